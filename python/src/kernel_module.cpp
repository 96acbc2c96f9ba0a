// SPDX-License-Identifier: Apache-2.0
// Your own kernels: Module.load(device, name), Module.kernel(name), Kernel.launch(grid, block,
// *args). Arguments become gpucore::KernelArgument values and go through the C++ launch, which
// checks them all; here only Python values are turned into C++ ones: a Buffer (or a view of one)
// into a buffer of its dtype, an int into a 64-bit integer (the core checks the parameter's range),
// a float into the parameter's floating type.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "python_buffer.hpp"

namespace gpucore::python {

namespace {

constexpr const char* kLaunch = "Kernel::launch";

const char* kind_name(KernelParameter::Kind kind) {
    switch (kind) {
    case KernelParameter::Kind::buffer: return "buffer";
    case KernelParameter::Kind::const_buffer: return "const_buffer";
    default: return "scalar";
    }
}

// The C++ type names of KernelParameter::type as NumPy spells them, as gpucore's dtypes are named
// in Python.
std::string python_type_name(const std::string& type) {
    static const std::pair<const char*, const char*> names[] = {
        {"f32", "float32"}, {"f64", "float64"}, {"f16", "float16"}, {"bf16", "bfloat16"},
        {"i8", "int8"},     {"i16", "int16"},   {"i32", "int32"},   {"i64", "int64"},
        {"u8", "uint8"},    {"u16", "uint16"},  {"u32", "uint32"},  {"u64", "uint64"}};
    for (const auto& [cpp, python] : names)
        if (type == cpp) return python;
    return type;
}


// NumPy's scalar types, when NumPy is there (gpucore works without it).
bool is_numpy(const py::handle& value, const char* abstract_type) {
    const py::dict modules = py::module_::import("sys").attr("modules");
    if (!modules.contains("numpy")) return false;
    return py::isinstance(value, py::module_::import("numpy").attr(abstract_type));
}

bool is_bool(const py::handle& value) { return PyBool_Check(value.ptr()) != 0 || is_numpy(value, "bool_"); }
bool is_int(const py::handle& value) {
    return !is_bool(value) && (PyLong_Check(value.ptr()) != 0 || is_numpy(value, "integer"));
}
bool is_float(const py::handle& value) { return PyFloat_Check(value.ptr()) != 0 || is_numpy(value, "floating"); }

std::string type_of(const py::handle& value) { return py::str(py::type::of(value).attr("__name__")).cast<std::string>(); }

std::string kernel_text(const Kernel& kernel) { return "kernel '" + kernel.name() + "' of module '" + kernel.module_name() + "'"; }

// A grid or block: an int or a tuple/list of one to three ints.
Dim3 to_dim3(const py::handle& value, const char* what) {
    std::vector<py::handle> parts;
    if (is_int(value)) {
        parts.push_back(value);
    } else if (py::isinstance<py::tuple>(value) || py::isinstance<py::list>(value)) {
        for (const py::handle part : value) parts.push_back(part);
    }
    const bool ints = std::all_of(parts.begin(), parts.end(), [](const py::handle& p) { return is_int(p); });
    if (parts.empty() || parts.size() > 3 || !ints)
        throw py::type_error(std::string(kLaunch) + ": " + what + " is an int or a tuple of one to three ints, not " +
                             py::repr(value).cast<std::string>());
    std::uint32_t dims[3] = {1, 1, 1};
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const py::int_ v = py::reinterpret_steal<py::int_>(PyNumber_Index(parts[i].ptr()));
        int overflow = 0;
        const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
        if (overflow != 0 || x < 0 || x > static_cast<long long>(std::numeric_limits<std::uint32_t>::max()))
            throw py::value_error(std::string(kLaunch) + ": " + what + " " + py::repr(value).cast<std::string>() +
                                  " has a dimension outside 0 .. 2**32-1");
        dims[i] = static_cast<std::uint32_t>(x);
    }
    return Dim3(dims[0], dims[1], dims[2]);
}

// An int as a 64-bit integer of its sign: the core decides whether the parameter's type holds it.
KernelArgument integer_argument(const py::handle& value, const Kernel& kernel, std::size_t position) {
    const py::int_ v = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow == 0) return KernelArgument::scalar(static_cast<std::int64_t>(x));
    if (overflow > 0) {
        const unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
        if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred() != nullptr))
            return KernelArgument::scalar(static_cast<std::uint64_t>(u));
        PyErr_Clear();
    }
    fail(ErrorCode::invalid_argument, kLaunch, kernel.device(),
         kernel_text(kernel) + ": argument " + std::to_string(position + 1) + " is given " + py::repr(value).cast<std::string>() +
             ", an integer outside every 64-bit range");
}

// A float as the parameter's floating type (rounded once, to nearest even). For any other
// parameter it stays a double, which the core refuses: floats never become integers.
KernelArgument float_argument(const py::handle& value, const KernelParameter& parameter) {
    const double x = py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>();
    if (parameter.type == "f32") return KernelArgument::scalar(static_cast<float>(x));
    if (parameter.type == "f16") return KernelArgument::scalar(half(x));
    if (parameter.type == "bf16") return KernelArgument::scalar(bfloat16(x));
    return KernelArgument::scalar(x);
}

KernelArgument to_argument(const py::handle& value, const KernelParameter& parameter, const Kernel& kernel,
                           std::size_t position) {
    if (py::isinstance<PyBuffer>(value)) {
        const PyBuffer& buffer = value.cast<const PyBuffer&>();
        return KernelArgument::buffer(buffer.range(kLaunch), buffer.dtype(), true);
    }
    const std::string argument = kernel_text(kernel) + ": argument " + std::to_string(position + 1);
    if (parameter.kind == KernelParameter::Kind::scalar && parameter.type == "raw")
        throw py::type_error(argument + " is a value of " + std::to_string(parameter.size) +
                             " bytes the module describes only by its size; Python launches pass buffers, ints and floats");
    if (is_int(value)) return integer_argument(value, kernel, position);
    if (is_float(value)) return float_argument(value, parameter);
    throw py::type_error(argument + " (" + kind_name(parameter.kind) + " of " + python_type_name(parameter.type) +
                         ") is given a " + type_of(value) +
                         ": pass a gpucore.Buffer for a buffer, an int or a float (Python or NumPy) for a scalar");
}

void launch(const Kernel& kernel, const py::object& grid, const py::object& block, const py::args& args, Stream* stream,
            std::size_t shared_bytes) {
    const LaunchConfig config{to_dim3(grid, "grid"), to_dim3(block, "block"), shared_bytes};
    const std::vector<KernelParameter> parameters = kernel.parameters();
    std::vector<KernelArgument> arguments(args.size());
    // With a wrong count the core names it: the values are not converted.
    if (args.size() == parameters.size()) {
        for (std::size_t i = 0; i < args.size(); ++i) arguments[i] = to_argument(args[i], parameters[i], kernel, i);
    }
    if (stream != nullptr) {
        py::gil_scoped_release release;
        kernel.launch(*stream, config, arguments);
        return;
    }
    Stream& internal = blocking_stream(kernel.device());
    {
        py::gil_scoped_release release;
        detail::order_after_device_work(internal, kLaunch);
        kernel.launch(internal, config, arguments);
    }
    synchronize(internal);
}

} // namespace

void bind_kernel_module(py::module_& m) {
    py::class_<KernelParameter>(m, "KernelParameter", "One parameter of a kernel, as its module describes it.")
        .def_property_readonly("kind", [](const KernelParameter& p) { return kind_name(p.kind); },
                               "'buffer' (the kernel writes it), 'const_buffer' (it only reads) or 'scalar'")
        .def_property_readonly("type", [](const KernelParameter& p) { return python_type_name(p.type); },
                               "the element type of a buffer or the type of a scalar: 'float32', 'uint64', ... "
                               "('raw' for a value known only by its size)")
        .def_property_readonly("size", [](const KernelParameter& p) { return p.size; },
                               "bytes passed: a pointer's size for buffers, the value's size for scalars")
        .def("__repr__", [](const KernelParameter& p) {
            return std::string("gpucore.KernelParameter(kind='") + kind_name(p.kind) + "', type='" +
                   python_type_name(p.type) + "', size=" + std::to_string(p.size) + ")";
        });

    py::class_<Kernel>(m, "Kernel", "One kernel of a loaded Module: Module.kernel(name).")
        .def_property_readonly("name", &Kernel::name)
        .def_property_readonly("module_name", &Kernel::module_name)
        .def_property_readonly("device", &Kernel::device)
        .def_property_readonly("parameters", &Kernel::parameters, "a KernelParameter per parameter, in order")
        .def("launch", &launch, py::arg("grid"), py::arg("block"), py::kw_only(), py::arg("stream") = nullptr,
             py::arg("shared_bytes") = 0,
             "launch(grid, block, *args, stream=None, shared_bytes=0): runs the kernel on grid blocks of block "
             "threads (each an int or a tuple of up to 3 ints) with shared_bytes of dynamic shared memory per "
             "block. args: a Buffer (or view) for each buffer parameter, of its element type; an int for an "
             "integer parameter (its range checked), a float for a floating one (floats never become ints, nor "
             "ints floats). On stream: enqueued, returns at once; without: blocking, after the work queued "
             "before on the device. Every misuse raises before anything is enqueued.")
        .def("__repr__", [](const Kernel& k) {
            return "gpucore.Kernel('" + k.name() + "', module='" + k.module_name() + "', device='" +
                   k.device().to_string() + "')";
        });

    py::class_<Module>(m, "Module",
                       "A kernel module built with gpucore_add_kernel_module, loaded for one device: "
                       "Module.load(device, name).")
        .def_static("load",
                    [](const py::object& device, const std::string& name) {
                        const Device d = to_device(device);
                        py::gil_scoped_release release;
                        return Module::load(d, name);
                    },
                    py::arg("device"), py::arg("name"),
                    "Finds, checks and loads the module file NAME.gpucore-<kind>.so made for the device's backend "
                    "(the program's folder, GPUCORE_MODULE_PATH, the installed folder); device as for Buffer.")
        .def("kernel", &Module::kernel, py::arg("name"),
             "The kernel of that name; gpucore.Error listing the module's kernels when absent.")
        .def_property_readonly("kernel_names", &Module::kernel_names)
        .def_property_readonly("name", &Module::name)
        .def_property_readonly("kind", &Module::kind, "'cuda', 'hip' or 'cpu'")
        .def_property_readonly("file", [](const Module& mod) { return mod.file().string(); },
                               "the loaded file (symlinks resolved)")
        .def_property_readonly("targets", &Module::targets, "device code it holds: 'sm_90', 'gfx942', ...")
        .def_property_readonly("device", &Module::device)
        .def("__repr__", [](const Module& mod) {
            return "gpucore.Module('" + mod.name() + "', device='" + mod.device().to_string() + "', file='" +
                   mod.file().string() + "')";
        });
}

} // namespace gpucore::python

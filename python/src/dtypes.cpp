// SPDX-License-Identifier: Apache-2.0
// DType, ReduceOp and MemoryKind, and the parsing of dtype, reduce-op and shape arguments.
// The dtypes are NumPy's names for gpucore's list (gpucore/plugin.h): float32, float64, int32,
// uint32, float16, and bfloat16, which NumPy lacks (its arrays of it are exchanged as float32 or
// as uint16 bit patterns; DLPack carries it as kDLBfloat).
#include <cstring>
#include <limits>

#include "bindings.hpp"
#include "python_buffer.hpp"

namespace gpucore::python {

namespace {

struct DTypeName {
    DType dtype;
    const char* python;  // NumPy's name
    const char* short_;  // gpucore's (to_string(DType))
};
constexpr DTypeName dtype_names[] = {
    {DType::f32, "float32", "f32"}, {DType::f64, "float64", "f64"},   {DType::i32, "int32", "i32"},
    {DType::u32, "uint32", "u32"},  {DType::f16, "float16", "f16"},   {DType::bf16, "bfloat16", "bf16"},
};
static_assert(sizeof(dtype_names) / sizeof(dtype_names[0]) == sizeof(all_dtypes) / sizeof(all_dtypes[0]),
              "a dtype of gpucore's list has no Python name here");

[[noreturn]] void unknown_dtype(const py::handle& value) {
    std::string known;
    for (const DTypeName& d : dtype_names) known += std::string(known.empty() ? "" : ", ") + d.python;
    throw py::type_error("gpucore has no dtype " + py::repr(value).cast<std::string>() + " (it has " +
                         known + ")");
}

} // namespace

std::string python_name(DType dtype) {
    for (const DTypeName& d : dtype_names)
        if (d.dtype == dtype) return d.python;
    return to_string(dtype);
}

DType to_dtype(const py::handle& value) {
    if (py::isinstance<DType>(value)) return value.cast<DType>();
    std::string name;
    if (py::isinstance<py::str>(value)) {
        name = value.cast<std::string>();
    } else if (!value.is_none() && py::hasattr(value, "dtype") && py::hasattr(value, "__name__") &&
               py::isinstance<py::type>(value)) {
        name = value.attr("__name__").cast<std::string>(); // a NumPy scalar type: numpy.float32
    } else if (!value.is_none() && py::hasattr(value, "name") && py::hasattr(value, "kind") &&
               py::hasattr(value, "itemsize")) {
        name = py::str(value.attr("name")).cast<std::string>(); // a numpy.dtype
    } else {
        unknown_dtype(value);
    }
    for (const DTypeName& d : dtype_names)
        if (name == d.python || name == d.short_) return d.dtype;
    unknown_dtype(value);
}

ReduceOp to_reduce_op(const py::handle& value) {
    if (py::isinstance<ReduceOp>(value)) return value.cast<ReduceOp>();
    if (py::isinstance<py::str>(value)) {
        const std::string name = value.cast<std::string>();
        for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max, ReduceOp::prod})
            if (name == to_string(op)) return op;
        throw py::value_error("unknown reduce op '" + name + "' (sum, min, max, prod)");
    }
    throw py::type_error("a reduce op is 'sum', 'min', 'max', 'prod' or a gpucore.ReduceOp, not " +
                         py::repr(value).cast<std::string>());
}

std::vector<std::size_t> to_shape(const py::handle& value) {
    auto dimension = [](const py::handle& item) -> std::size_t {
        // bool is an int in Python; a shape of True is a mistake, as NumPy would also say. Other
        // integers (numpy.int64) convert through __index__.
        if (py::isinstance<py::bool_>(item) || PyIndex_Check(item.ptr()) == 0)
            throw py::type_error("a shape holds ints, not " + py::repr(item).cast<std::string>());
        PyObject* index = PyNumber_Index(item.ptr());
        if (index == nullptr) throw py::error_already_set();
        const py::int_ number = py::reinterpret_steal<py::int_>(index);
        if (number < py::int_(0)) throw py::value_error("negative dimension " + py::repr(item).cast<std::string>());
        if (number > py::int_(std::numeric_limits<std::size_t>::max()))
            throw py::value_error("dimension " + py::repr(item).cast<std::string>() + " is too large");
        return number.cast<std::size_t>();
    };
    std::vector<std::size_t> shape;
    if (!py::isinstance<py::bool_>(value) && PyIndex_Check(value.ptr()) != 0) {
        shape.push_back(dimension(value));
    } else if (py::isinstance<py::tuple>(value) || py::isinstance<py::list>(value)) {
        for (const py::handle item : value) shape.push_back(dimension(item));
    } else {
        throw py::type_error("a shape is an int or a tuple of ints, not " + py::repr(value).cast<std::string>());
    }
    return shape;
}

std::size_t element_count(const std::vector<std::size_t>& shape, const Device& device, const char* operation) {
    std::size_t count = 1;
    for (std::size_t d : shape) {
        if (d != 0 && count > std::numeric_limits<std::size_t>::max() / d)
            fail(ErrorCode::invalid_argument, operation, device, "shape " + shape_text(shape) + " overflows size_t");
        count *= d;
    }
    return count;
}

py::tuple shape_tuple(const std::vector<std::size_t>& shape) {
    py::tuple t(shape.size());
    for (std::size_t i = 0; i < shape.size(); ++i) t[i] = py::int_(shape[i]);
    return t;
}

std::string shape_text(const std::vector<std::size_t>& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + (shape.size() == 1 ? ",)" : ")");
}

void bind_dtypes(py::module_& m) {
    py::enum_<DType> dtype(m, "DType", "Element types: float32, float64, int32, uint32, float16, bfloat16.");
    for (const DTypeName& d : dtype_names) dtype.value(d.python, d.dtype);
    dtype.export_values(); // gpucore.float32, ...
    dtype.def_property_readonly("itemsize", [](DType d) { return size_of(d); }, "bytes per element");
    // Replaces enum_'s "DType.float32": str(dtype) reads as NumPy's str(numpy.dtype) does.
    dtype.attr("__str__") = py::cpp_function([](DType d) { return python_name(d); }, py::name("__str__"),
                                             py::is_method(dtype));

    py::enum_<ReduceOp>(m, "ReduceOp")
        .value("sum", ReduceOp::sum)
        .value("min", ReduceOp::min)
        .value("max", ReduceOp::max)
        .value("prod", ReduceOp::prod);
    py::enum_<MemoryKind>(m, "MemoryKind")
        .value("device", MemoryKind::device)
        .value("pinned_host", MemoryKind::pinned_host)
        .value("managed", MemoryKind::managed);
}

} // namespace gpucore::python

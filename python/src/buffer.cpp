// SPDX-License-Identifier: Apache-2.0
// Buffer: allocation by shape and dtype, views by slicing and reshape, fill, copies between
// buffers, and copies from and to NumPy arrays (from_numpy / to_numpy copy; for zero-copy
// exchange use DLPack: numpy.from_dlpack(buffer), gpucore.from_dlpack(array)).
#include <pybind11/numpy.h>

#include <cmath>
#include <cstring>
#include <limits>

#include <dlpack/dlpack.h>

#include "bindings.hpp"
#include "python_buffer.hpp"

namespace gpucore::python {

Storage::~Storage() {
    if (producer != nullptr && allocation.valid()) {
        // The producer may free its memory as soon as it gets it back: gpucore's queued work on it
        // must have finished first.
        try {
            without_gil([this] {
                Stream& stream = blocking_stream(allocation.device());
                detail::order_after_device_work(stream, "Buffer release (from_dlpack)");
                stream.synchronize();
            });
        } catch (...) {
            // A failure of that work belongs to the streams it ran on; the memory goes back anyway.
        }
    }
    // Freeing owned memory waits for the device's streams.
    without_gil([this] { allocation = detail::Allocation(); });
    if (producer == nullptr || producer->deleter == nullptr) return;
    // The last reference may go on a thread without the GIL (a consumer's deleter), and some
    // producers' deleters touch Python objects without taking it (NumPy 1.x drops the array).
    if (Py_IsInitialized() != 0) {
        const PyGILState_STATE state = PyGILState_Ensure();
        producer->deleter(producer);
        PyGILState_Release(state);
    } else {
        producer->deleter(producer);
    }
}

PyBuffer::PyBuffer(std::shared_ptr<Storage> storage, DType dtype, std::vector<std::size_t> shape,
                   std::size_t offset)
    : storage_(std::move(storage)), dtype_(dtype), shape_(std::move(shape)), offset_(offset) {
    size_ = element_count(shape_, storage_->allocation.device(), "Buffer");
}

PyBuffer PyBuffer::allocate(const Device& device, const std::vector<std::size_t>& shape, DType dtype,
                            MemoryKind kind) {
    const std::size_t count = element_count(shape, device, "Buffer");
    const std::size_t bytes = detail::checked_allocation_bytes(count, size_of(dtype), device);
    std::shared_ptr<Storage> storage;
    {
        py::gil_scoped_release release;
        storage = std::make_shared<Storage>(detail::Allocation(device, kind, bytes));
    }
    return PyBuffer(std::move(storage), dtype, shape, 0);
}

void* PyBuffer::data() const noexcept {
    void* base = storage_->allocation.data();
    return base == nullptr ? nullptr : static_cast<char*>(base) + offset_ * size_of(dtype_);
}

detail::MemoryRange PyBuffer::range(const char* operation) const {
    const detail::Allocation& allocation = storage_->allocation;
    if (offset_ == 0 && nbytes() == allocation.bytes()) return detail::MemoryRange(allocation);
    return detail::MemoryRange(allocation, offset_ * size_of(dtype_), nbytes(), operation);
}

PyBuffer PyBuffer::reshaped(std::vector<std::size_t> shape) const {
    return PyBuffer(storage_, dtype_, std::move(shape), offset_);
}

namespace {

// The NumPy dtype of a buffer's to_numpy() by default: bfloat16 widens to float32 (exactly).
const char* numpy_name(DType dtype) {
    switch (dtype) {
    case DType::f32: return "float32";
    case DType::f64: return "float64";
    case DType::i32: return "int32";
    case DType::u32: return "uint32";
    case DType::f16: return "float16";
    case DType::bf16: return "float32";
    }
    return "float32";
}

// What a host array holds, from its buffer-protocol format: one of gpucore's dtypes, or 16-bit
// unsigned integers (bit patterns of float16/bfloat16). Empty when neither.
struct HostElement {
    bool known = false;
    bool bits16 = false; // uint16
    DType dtype = DType::f32;
};

HostElement host_element(const py::buffer_info& info) {
    std::string format = info.format;
    if (!format.empty() && (format[0] == '<' || format[0] == '=' || format[0] == '@')) format.erase(0, 1);
    if (format.size() != 1) return {};
    const char c = format[0];
    const auto size = static_cast<std::size_t>(info.itemsize);
    HostElement e;
    e.known = true;
    if (c == 'f' && size == 4) e.dtype = DType::f32;
    else if (c == 'd' && size == 8) e.dtype = DType::f64;
    else if (c == 'e' && size == 2) e.dtype = DType::f16;
    else if ((c == 'i' || c == 'l' || c == 'q') && size == 4) e.dtype = DType::i32;
    else if ((c == 'I' || c == 'L' || c == 'Q') && size == 4) e.dtype = DType::u32;
    else if (c == 'H' && size == 2) e.bits16 = true;
    else return {};
    return e;
}

bool c_contiguous(const py::buffer_info& info) {
    py::ssize_t expected = info.itemsize;
    for (py::ssize_t d = info.ndim - 1; d >= 0; --d) {
        const py::ssize_t extent = info.shape[static_cast<std::size_t>(d)];
        if (extent == 0) return true;
        if (extent != 1 && info.strides[static_cast<std::size_t>(d)] != expected) return false;
        expected *= extent;
    }
    return true;
}

PyBuffer from_numpy(const py::buffer& array, const py::object& device_arg, const py::object& dtype_arg) {
    const Device device = to_device(device_arg);
    const py::buffer_info info = array.request();
    const HostElement source = host_element(info);
    const std::string source_text = py::str(py::getattr(array, "dtype", py::str(info.format))).cast<std::string>();
    const DType dtype = dtype_arg.is_none() ? (source.known && !source.bits16 ? source.dtype : DType::f32)
                                            : to_dtype(dtype_arg);
    if (dtype_arg.is_none() && (!source.known || source.bits16))
        throw py::type_error("Buffer.from_numpy: gpucore has no dtype for arrays of " + source_text +
                             " (float32, float64, int32, uint32, float16; bfloat16 from float32 or uint16 "
                             "bits with dtype=gpucore.bfloat16)");
    const bool same = source.known && !source.bits16 && source.dtype == dtype;
    const bool widened_bf16 = dtype == DType::bf16 && source.known && !source.bits16 && source.dtype == DType::f32;
    const bool bits = source.bits16 && (dtype == DType::bf16 || dtype == DType::f16);
    if (!same && !widened_bf16 && !bits)
        fail(ErrorCode::invalid_argument, "Buffer.from_numpy", device,
             "an array of " + source_text + " cannot become " + python_name(dtype) +
                 " without a conversion gpucore does not make (use array.astype first)");
    if (!c_contiguous(info))
        fail(ErrorCode::invalid_argument, "Buffer.from_numpy", device,
             "the array is not C-contiguous (pass numpy.ascontiguousarray(array))");
    std::vector<std::size_t> shape;
    for (py::ssize_t extent : info.shape) shape.push_back(static_cast<std::size_t>(extent));
    PyBuffer buffer = PyBuffer::allocate(device, shape, dtype);
    const std::size_t count = buffer.size();
    if (count == 0) return buffer;
    const detail::MemoryRange range = buffer.range("Buffer.from_numpy");
    if (widened_bf16) {
        std::vector<std::uint16_t> converted(count);
        const auto* in = static_cast<const float*>(info.ptr);
        for (std::size_t i = 0; i < count; ++i) converted[i] = detail::float_to_bfloat16_bits(in[i]);
        py::gil_scoped_release release;
        detail::copy_from_host(range, converted.data(), count * 2, nullptr);
    } else {
        py::gil_scoped_release release;
        detail::copy_from_host(range, info.ptr, buffer.nbytes(), nullptr);
    }
    return buffer;
}

py::array to_numpy(const PyBuffer& buffer, const py::object& dtype_arg) {
    std::string name = numpy_name(buffer.dtype());
    bool bits = false;
    if (!dtype_arg.is_none()) {
        const std::string wanted = py::str(py::module_::import("numpy").attr("dtype")(dtype_arg).attr("name"));
        const bool sixteen = buffer.dtype() == DType::bf16 || buffer.dtype() == DType::f16;
        if (wanted == "uint16" && sixteen) {
            bits = true;
            name = wanted;
        } else if (wanted != name) {
            fail(ErrorCode::invalid_argument, "Buffer.to_numpy", buffer.device(),
                 "a buffer of " + python_name(buffer.dtype()) + " gives arrays of " + name +
                     (sixteen ? " or uint16 (bit patterns)" : "") + ", not " + wanted);
        }
    }
    std::vector<py::ssize_t> shape(buffer.shape().begin(), buffer.shape().end());
    py::array out(py::dtype(name), shape);
    if (buffer.size() == 0) return out;
    const detail::MemoryRange range = buffer.range("Buffer.to_numpy");
    if (buffer.dtype() == DType::bf16 && !bits) {
        std::vector<std::uint16_t> raw(buffer.size());
        {
            py::gil_scoped_release release;
            detail::copy_to_host(range, raw.data(), raw.size() * 2, nullptr);
        }
        auto* dst = static_cast<float*>(out.mutable_data());
        for (std::size_t i = 0; i < raw.size(); ++i) dst[i] = detail::bfloat16_bits_to_float(raw[i]);
    } else {
        void* dst = out.mutable_data();
        py::gil_scoped_release release;
        detail::copy_to_host(range, dst, buffer.nbytes(), nullptr);
    }
    return out;
}

// A Python number as an element of `dtype`: floats for the float types, ints in range for the
// integer types (ValueError outside it, TypeError for other objects).
template <class T>
T element_value(const py::handle& value, const char* what) {
    if constexpr (std::is_integral_v<T>) {
        if (!py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value))
            throw py::type_error(std::string(what) + ": an int is needed, not " + py::repr(value).cast<std::string>());
        const py::int_ number = py::reinterpret_borrow<py::int_>(value);
        if (number < py::int_(std::numeric_limits<T>::min()) || number > py::int_(std::numeric_limits<T>::max()))
            throw py::value_error(std::string(what) + ": " + py::repr(value).cast<std::string>() +
                                  " is outside the element type's range");
        return static_cast<T>(number.cast<long long>());
    } else {
        if (py::isinstance<py::bool_>(value) || py::isinstance<py::str>(value) || !PyNumber_Check(value.ptr()))
            throw py::type_error(std::string(what) + ": a number is needed, not " + py::repr(value).cast<std::string>());
        const double v = py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>(); // TypeError for complex
        return T(static_cast<std::conditional_t<std::is_same_v<T, double>, double, float>>(v));
    }
}

void fill(const PyBuffer& buffer, const py::handle& value, Stream* stream) {
    const detail::MemoryRange range = buffer.range("Buffer.fill");
    visit(buffer.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T element = element_value<T>(value, "Buffer.fill");
        if (stream != nullptr) {
            detail::fill(range, &element, sizeof(T), stream);
        } else {
            py::gil_scoped_release release;
            detail::fill(range, &element, sizeof(T), nullptr);
        }
    });
}

void copy_from(const PyBuffer& dst, const py::object& src, Stream* stream) {
    if (!py::isinstance<PyBuffer>(src))
        throw py::type_error("Buffer.copy_from takes a gpucore.Buffer (for arrays: Buffer.from_numpy or "
                             "gpucore.from_dlpack), not " + py::repr(src).cast<std::string>());
    const PyBuffer& source = src.cast<const PyBuffer&>();
    if (source.dtype() != dst.dtype())
        fail(ErrorCode::invalid_argument, "Buffer.copy_from", dst.device(),
             "dtypes differ (destination " + python_name(dst.dtype()) + ", source " + python_name(source.dtype()) + ")");
    const detail::MemoryRange to = dst.range("Buffer.copy_from");
    const detail::MemoryRange from = source.range("Buffer.copy_from");
    if (stream != nullptr) {
        detail::copy_device(to, from, stream);
    } else {
        py::gil_scoped_release release;
        detail::copy_device(to, from, nullptr);
    }
}

py::object getitem(const PyBuffer& buffer, const py::handle& key_arg) {
    py::handle key = key_arg;
    if (py::isinstance<py::tuple>(key)) {
        const py::tuple keys = py::reinterpret_borrow<py::tuple>(key);
        if (keys.size() != 1)
            throw py::index_error("a Buffer is indexed along its first axis only (one int or slice)");
        key = keys[0];
    }
    const std::vector<std::size_t>& shape = buffer.shape();
    if (shape.empty()) throw py::index_error("a 0-dimensional Buffer cannot be indexed");
    std::size_t row = 1;
    for (std::size_t d = 1; d < shape.size(); ++d) row *= shape[d];
    if (py::isinstance<py::slice>(key)) {
        py::ssize_t start = 0, stop = 0, step = 0, length = 0;
        if (PySlice_Unpack(key.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
        length = PySlice_AdjustIndices(static_cast<py::ssize_t>(shape[0]), &start, &stop, step);
        if (step != 1)
            fail(ErrorCode::invalid_argument, "Buffer.__getitem__", buffer.device(),
                 "a view is contiguous: slices take step 1, not " + std::to_string(step));
        std::vector<std::size_t> sub = shape;
        sub[0] = static_cast<std::size_t>(length);
        const std::size_t first = length == 0 ? 0 : static_cast<std::size_t>(start);
        return py::cast(PyBuffer(buffer.storage(), buffer.dtype(), sub, buffer.offset() + first * row));
    }
    if (py::isinstance<py::int_>(key) && !py::isinstance<py::bool_>(key)) {
        const py::int_ number = py::reinterpret_borrow<py::int_>(key);
        const py::int_ extent(shape[0]);
        py::int_ index = number;
        if (number < py::int_(0)) index = py::reinterpret_steal<py::int_>(PyNumber_Add(number.ptr(), extent.ptr()));
        if (index < py::int_(0) || !(index < extent))
            throw py::index_error("index " + py::repr(key).cast<std::string>() + " is out of range for axis 0 of length " +
                                  std::to_string(shape[0]));
        const std::vector<std::size_t> sub(shape.begin() + 1, shape.end());
        return py::cast(PyBuffer(buffer.storage(), buffer.dtype(), sub, buffer.offset() + index.cast<std::size_t>() * row));
    }
    throw py::type_error("a Buffer is indexed with an int or a slice, not " + py::repr(key).cast<std::string>());
}

PyBuffer reshape(const PyBuffer& buffer, const py::args& args) {
    py::object spec = args.size() == 1 && !py::isinstance<py::int_>(args[0]) ? py::reinterpret_borrow<py::object>(args[0])
                                                                             : py::reinterpret_borrow<py::object>(args);
    // One dimension may be -1: whatever makes the element count match.
    std::vector<std::size_t> shape;
    int inferred = -1;
    if (!py::isinstance<py::tuple>(spec) && !py::isinstance<py::list>(spec))
        throw py::type_error("reshape takes ints or a tuple of ints");
    for (const py::handle item : spec) {
        if (py::isinstance<py::int_>(item) && !py::isinstance<py::bool_>(item) && item.cast<py::int_>().equal(py::int_(-1))) {
            if (inferred >= 0) throw py::value_error("reshape: at most one dimension may be -1");
            inferred = static_cast<int>(shape.size());
            shape.push_back(1);
        } else if (py::isinstance<py::int_>(item)) {
            shape.push_back(to_shape(item).front()); // one int: one dimension, checked
        } else {
            throw py::type_error("reshape takes ints or a tuple of ints, not " + py::repr(item).cast<std::string>());
        }
    }
    const char* op = "Buffer.reshape";
    if (inferred >= 0) {
        const std::size_t known = element_count(shape, buffer.device(), op);
        if (known == 0 || buffer.size() % known != 0)
            fail(ErrorCode::invalid_argument, op, buffer.device(),
                 "cannot reshape " + std::to_string(buffer.size()) + " elements into " + shape_text(shape) + " with -1");
        shape[static_cast<std::size_t>(inferred)] = buffer.size() / known;
    }
    if (element_count(shape, buffer.device(), op) != buffer.size())
        fail(ErrorCode::invalid_argument, op, buffer.device(),
             "cannot reshape " + shape_text(buffer.shape()) + " (" + std::to_string(buffer.size()) + " elements) into " +
                 shape_text(shape));
    return buffer.reshaped(shape);
}

MemoryKind to_memory_kind(const py::handle& value) {
    if (py::isinstance<MemoryKind>(value)) return value.cast<MemoryKind>();
    if (py::isinstance<py::str>(value)) {
        const std::string name = value.cast<std::string>();
        for (MemoryKind kind : {MemoryKind::device, MemoryKind::pinned_host, MemoryKind::managed})
            if (name == to_string(kind)) return kind;
        throw py::value_error("unknown memory kind '" + name + "' (device, pinned_host, managed)");
    }
    throw py::type_error("a memory kind is 'device', 'pinned_host', 'managed' or a gpucore.MemoryKind");
}

} // namespace

void bind_buffer(py::module_& m) {
    py::class_<PyBuffer>(m, "Buffer",
                         "Memory on one device, with a shape and a dtype. Buffer(shape, dtype=float32, "
                         "device=None, kind='device'). Slicing the first axis (step 1) and reshape() "
                         "give views of the same memory.")
        .def(py::init([](const py::object& shape, const py::object& dtype, const py::object& device, const py::object& kind) {
                 return PyBuffer::allocate(to_device(device), to_shape(shape), to_dtype(dtype), to_memory_kind(kind));
             }),
             py::arg("shape"), py::arg("dtype") = DType::f32, py::arg("device") = py::none(),
             py::arg("kind") = MemoryKind::device)
        .def_property_readonly("shape", [](const PyBuffer& b) { return shape_tuple(b.shape()); })
        .def_property_readonly("dtype", &PyBuffer::dtype)
        .def_property_readonly("size", &PyBuffer::size, "number of elements")
        .def_property_readonly("nbytes", &PyBuffer::nbytes)
        .def_property_readonly("itemsize", [](const PyBuffer& b) { return size_of(b.dtype()); })
        .def_property_readonly("ndim", [](const PyBuffer& b) { return b.shape().size(); })
        .def_property_readonly("device", &PyBuffer::device)
        .def_property_readonly("kind", [](const PyBuffer& b) { return b.storage()->allocation.kind(); })
        .def_property_readonly("owns_memory", [](const PyBuffer& b) { return b.storage()->allocation.owns_memory(); },
                               "False for memory wrapped from another library (from_dlpack)")
        .def_property_readonly("data_ptr", [](const PyBuffer& b) { return reinterpret_cast<std::uintptr_t>(b.data()); },
                               "address of the first element (a device address on GPU backends)")
        .def("__len__", [](const PyBuffer& b) {
            if (b.shape().empty()) throw py::type_error("len() of a 0-dimensional Buffer");
            return b.shape()[0];
        })
        .def("__getitem__", &getitem)
        .def("reshape", &reshape, "A view of the same memory with another shape of as many elements.")
        .def("fill", [](const PyBuffer& b, const py::object& value, Stream* stream) { fill(b, value, stream); },
             py::arg("value"), py::arg("stream") = nullptr,
             "Sets every element to value: on stream (asynchronous) or, without one, blocking.")
        .def("copy_from", [](const PyBuffer& b, const py::object& src, Stream* stream) { copy_from(b, src, stream); },
             py::arg("src"), py::arg("stream") = nullptr,
             "Copies a Buffer of the same size and dtype from any device; asynchronous on stream, else blocking.")
        .def_static("from_numpy", &from_numpy, py::arg("array"), py::arg("device") = py::none(), py::arg("dtype") = py::none(),
                    "A new buffer on device holding a copy of a C-contiguous array. dtype=gpucore.bfloat16 "
                    "takes float32 (rounded to nearest even) or uint16 (bit patterns).")
        .def("to_numpy", &to_numpy, py::arg("dtype") = py::none(),
             "A NumPy copy (blocking: sees all work queued before on the device). bfloat16 gives float32, "
             "or uint16 bit patterns with dtype='uint16'.")
        .def("__array__", [](const PyBuffer& b, const py::object& dtype, const py::object& copy) {
            // NumPy 2 passes copy=: False asks for no copy, which device memory cannot give.
            if (!copy.is_none() && !copy.cast<bool>())
                throw py::value_error("a gpucore.Buffer converts to a NumPy array by a copy (for zero-copy "
                                      "on cpu: numpy.from_dlpack(buffer))");
            py::array out = to_numpy(b, py::none());
            return dtype.is_none() ? out : py::array(out.attr("astype")(dtype));
        }, py::arg("dtype") = py::none(), py::arg("copy") = py::none())
        .def("__repr__", [](const PyBuffer& b) {
            return "gpucore.Buffer(shape=" + shape_text(b.shape()) + ", dtype=" + python_name(b.dtype()) +
                   ", device='" + b.device().to_string() + "')";
        });
}

} // namespace gpucore::python

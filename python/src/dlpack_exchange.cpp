// SPDX-License-Identifier: Apache-2.0
// DLPack: Buffer.__dlpack__ / Buffer.__dlpack_device__ (gpucore as producer) and from_dlpack()
// (gpucore as consumer), zero-copy both ways, following the DLPack Python specification.
//
// Capsules are the unversioned "dltensor" kind: Debian 12's libdlpack-dev is DLPack 0.6, which has
// no DLManagedTensorVersioned. max_version is accepted and a "dltensor" capsule is returned for any
// value, as the specification allows a producer without the versioned struct to do (consumers that
// pass max_version, NumPy >= 2 and PyTorch among them, accept the unversioned capsule).
//
// Streams (producer side): unless stream == -1, __dlpack__ waits, on the host, until every piece
// of work queued before on the buffer's device has finished (the ordering of the C++ blocking
// calls), so the memory is ready for the consumer's stream, whichever it is. gpucore's C++ API has
// no native event handle to make a foreign stream wait without a host wait.
// Streams (consumer side): from_dlpack passes the producer the native handle of a gpucore stream
// (the one given, or a new one it then synchronizes), so the producer orders its work before it.
#include <pybind11/stl.h>

#include <dlpack/dlpack.h>

#include "bindings.hpp"
#include "python_buffer.hpp"

namespace gpucore::python {

namespace {

constexpr const char* capsule_name = "dltensor";
constexpr const char* used_capsule_name = "used_dltensor";

// A Buffer's memory lent to a consumer: the storage stays alive until the consumer calls the
// deleter (from any thread, with or without the GIL: nothing here touches Python).
struct ExportContext {
    std::shared_ptr<Storage> storage;
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> strides;
    DLManagedTensor tensor{};
};

void delete_export(DLManagedTensor* tensor) {
    delete static_cast<ExportContext*>(tensor->manager_ctx);
}

// A capsule nobody consumed still owns its tensor; a consumed one was renamed "used_dltensor".
void destroy_capsule(PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, capsule_name) == 0) return;
    PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
    PyErr_Fetch(&type, &value, &traceback);
    auto* tensor = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, capsule_name));
    if (tensor != nullptr && tensor->deleter != nullptr) tensor->deleter(tensor);
    PyErr_Restore(type, value, traceback);
}

DLDataType dl_dtype(DType dtype) {
    switch (dtype) {
    case DType::f32: return {kDLFloat, 32, 1};
    case DType::f64: return {kDLFloat, 64, 1};
    case DType::i32: return {kDLInt, 32, 1};
    case DType::u32: return {kDLUInt, 32, 1};
    case DType::f16: return {kDLFloat, 16, 1};
    case DType::bf16: return {kDLBfloat, 16, 1};
    }
    return {kDLFloat, 32, 1};
}

bool dtype_of(const DLDataType& t, DType& out) {
    if (t.lanes != 1) return false;
    for (DType d : all_dtypes) {
        const DLDataType candidate = dl_dtype(d);
        if (candidate.code == t.code && candidate.bits == t.bits) {
            out = d;
            return true;
        }
    }
    return false;
}

std::string dl_dtype_text(const DLDataType& t) {
    static const char* const codes[] = {"int", "uint", "float", "opaque_handle", "bfloat", "complex"};
    const std::string code = t.code < 6 ? codes[t.code] : "code " + std::to_string(t.code);
    return code + std::to_string(t.bits) + (t.lanes != 1 ? "x" + std::to_string(t.lanes) : "");
}

// The DLPack device of a buffer's memory. Only cpu, cuda and hip memory has a DLPack device type
// a consumer understands; other plugins' memory is refused with BufferError, as the spec asks.
DLDevice dl_device_of(const PyBuffer& buffer) {
    const Device& device = buffer.device();
    const std::string& backend = device.backend_name();
    const MemoryKind kind = buffer.storage()->allocation.kind();
    if (backend == "cpu") return {kDLCPU, 0};
    if (backend == "cuda") {
        if (kind == MemoryKind::managed) return {kDLCUDAManaged, device.index()};
        if (kind == MemoryKind::pinned_host) return {kDLCUDAHost, 0};
        return {kDLCUDA, device.index()};
    }
    if (backend == "hip") {
        if (kind == MemoryKind::pinned_host) return {kDLROCMHost, 0};
        return {kDLROCM, device.index()};
    }
    throw py::buffer_error("__dlpack__: " + device.to_string() + " memory has no DLPack device type (gpucore " +
                           "exchanges the memory of cpu, cuda and hip devices)");
}

// Waits until the device's queued work has finished (see the stream rules above).
void wait_for_device_work(const Device& device, const char* operation) {
    Stream& stream = blocking_stream(device);
    detail::order_after_device_work(stream, operation);
    synchronize(stream);
}

py::capsule export_capsule(const PyBuffer& buffer) {
    auto context = std::make_unique<ExportContext>();
    context->storage = buffer.storage();
    const std::size_t ndim = buffer.shape().size();
    context->shape.resize(ndim);
    context->strides.resize(ndim);
    std::int64_t stride = 1;
    for (std::size_t d = ndim; d-- > 0;) {
        context->shape[d] = static_cast<std::int64_t>(buffer.shape()[d]);
        context->strides[d] = stride;
        stride *= static_cast<std::int64_t>(buffer.shape()[d]);
    }
    DLTensor& t = context->tensor.dl_tensor;
    t.data = buffer.data();
    t.device = dl_device_of(buffer);
    t.ndim = static_cast<std::int32_t>(ndim);
    t.dtype = dl_dtype(buffer.dtype());
    t.shape = context->shape.data();
    t.strides = context->strides.data();
    t.byte_offset = 0;
    context->tensor.manager_ctx = context.get();
    context->tensor.deleter = &delete_export;
    PyObject* capsule = PyCapsule_New(&context->tensor, capsule_name, &destroy_capsule);
    if (capsule == nullptr) throw py::error_already_set();
    context.release(); // owned by the capsule now (its destructor, or the consumer's deleter call)
    return py::reinterpret_steal<py::capsule>(capsule);
}

// copy= of __dlpack__ and from_dlpack: None, True or False.
bool copy_requested(const py::object& copy, const char* operation) {
    if (copy.is_none()) return false;
    if (!py::isinstance<py::bool_>(copy))
        throw py::type_error(std::string(operation) + ": copy is None, True or False, not " + py::repr(copy).cast<std::string>());
    return copy.cast<bool>();
}

py::capsule dlpack(const PyBuffer& buffer, const py::object& stream, const py::object& max_version,
                   const py::object& dl_device, const py::object& copy) {
    static_cast<void>(max_version); // see the top of this file
    const DLDevice own = dl_device_of(buffer);
    if (!dl_device.is_none()) {
        const auto wanted = dl_device.cast<std::pair<int, int>>();
        if (wanted.first != own.device_type || wanted.second != own.device_id)
            throw py::buffer_error("__dlpack__: the buffer is on DLPack device (" + std::to_string(own.device_type) + ", " +
                                   std::to_string(own.device_id) + "); gpucore does not export to another device");
    }
    if (!stream.is_none() && (!py::isinstance<py::int_>(stream) || py::isinstance<py::bool_>(stream)))
        throw py::type_error("__dlpack__: stream is None or an int, not " + py::repr(stream).cast<std::string>());
    const bool no_sync = !stream.is_none() && stream.cast<py::int_>().equal(py::int_(-1));
    if (own.device_type == kDLCPU && !stream.is_none() && !no_sync)
        throw py::buffer_error("__dlpack__: stream must be None for cpu memory, not " + py::repr(stream).cast<std::string>());
    if (own.device_type == kDLCUDA && !stream.is_none() && stream.cast<py::int_>().equal(py::int_(0)))
        throw py::value_error("__dlpack__: stream 0 is ambiguous on CUDA and not allowed (1: legacy default stream, 2: per-thread)");
    if (copy_requested(copy, "__dlpack__")) {
        PyBuffer duplicate = PyBuffer::allocate(buffer.device(), buffer.shape(), buffer.dtype(),
                                                buffer.storage()->allocation.kind());
        {
            py::gil_scoped_release release;
            detail::copy_device(duplicate.range("__dlpack__"), buffer.range("__dlpack__"), nullptr);
        }
        return export_capsule(duplicate); // a blocking copy: ordered already
    }
    if (!no_sync) wait_for_device_work(buffer.device(), "__dlpack__");
    return export_capsule(buffer);
}

// The gpucore device of DLPack device (type, id); Error when gpucore has none.
Device device_of(const DLDevice& dl) {
    std::string backend;
    int index = dl.device_id;
    switch (dl.device_type) {
    case kDLCPU:
    case kDLCUDAHost:
    case kDLROCMHost:
        backend = "cpu"; // host memory: the cpu backend's memory
        index = 0;
        break;
    case kDLCUDA:
    case kDLCUDAManaged: backend = "cuda"; break;
    case kDLROCM: backend = "hip"; break;
    default:
        throw Error(ErrorCode::not_supported, "from_dlpack", "", -1,
                    "DLPack device type " + std::to_string(static_cast<int>(dl.device_type)) +
                        " is not one gpucore has (cpu, cuda, hip)");
    }
    std::string available;
    {
        const std::vector<Device> all = [] {
            py::gil_scoped_release release;
            return devices();
        }();
        for (const Device& d : all) {
            if (d.backend_name() == backend && d.index() == index) return d;
            available += (available.empty() ? "" : ", ") + d.to_string();
        }
    }
    throw Error(ErrorCode::backend_unavailable, "from_dlpack", backend, index,
                "the tensor is on " + backend + ":" + std::to_string(index) + ", which gpucore does not have (devices: " +
                    available + ")");
}

// Takes the producer's tensor from `capsule` into a Buffer (the capsule is renamed "used_dltensor"
// only once the Buffer owns it: on any error the capsule keeps it and returns it to the producer).
PyBuffer consume_capsule(const py::capsule& capsule) {
    if (PyCapsule_IsValid(capsule.ptr(), capsule_name) == 0) {
        const char* name = PyCapsule_GetName(capsule.ptr());
        PyErr_Clear();
        throw py::value_error(std::string("from_dlpack: not an unconsumed DLPack capsule (name '") +
                              (name ? name : "<none>") + "'; a capsule is consumed once)");
    }
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), capsule_name));
    if (managed == nullptr) throw py::error_already_set();
    const DLTensor& t = managed->dl_tensor;
    const Device device = device_of(t.device);
    const char* op = "from_dlpack";
    DType dtype = DType::f32;
    if (!dtype_of(t.dtype, dtype))
        fail(ErrorCode::invalid_argument, op, device,
             "gpucore has no dtype for " + dl_dtype_text(t.dtype) + " (float32, float64, int32, uint32, float16, bfloat16)");
    if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr))
        fail(ErrorCode::invalid_argument, op, device, "the tensor has an invalid shape");
    std::vector<std::size_t> shape;
    for (std::int32_t d = 0; d < t.ndim; ++d) {
        if (t.shape[d] < 0) fail(ErrorCode::invalid_argument, op, device, "the tensor has a negative dimension");
        shape.push_back(static_cast<std::size_t>(t.shape[d]));
    }
    const std::size_t count = element_count(shape, device, op);
    if (t.strides != nullptr && count > 0) {
        std::int64_t expected = 1;
        for (std::int32_t d = t.ndim; d-- > 0;) {
            if (t.shape[d] != 1 && t.strides[d] != expected) {
                std::string strides;
                for (std::int32_t k = 0; k < t.ndim; ++k) strides += (k ? ", " : "") + std::to_string(t.strides[k]);
                fail(ErrorCode::invalid_argument, op, device,
                     "the tensor is not C-contiguous (shape " + shape_text(shape) + ", strides (" + strides +
                         ") in elements): gpucore buffers are contiguous; make a contiguous copy first");
            }
            expected *= t.shape[d];
        }
    }
    void* data = count == 0 ? nullptr : static_cast<char*>(t.data) + t.byte_offset;
    const std::size_t element = size_of(dtype);
    detail::Allocation wrapped = detail::Allocation::wrap(device, data, count, element, element);
    auto storage = std::make_shared<Storage>(std::move(wrapped));
    storage->producer = managed;
    if (PyCapsule_SetName(capsule.ptr(), used_capsule_name) != 0) {
        storage->producer = nullptr; // the capsule still owns it
        throw py::error_already_set();
    }
    return PyBuffer(std::move(storage), dtype, shape, 0);
}

PyBuffer from_dlpack(const py::object& source, Stream* stream, const py::object& copy) {
    PyBuffer imported = [&]() -> PyBuffer {
        if (py::isinstance<PyBuffer>(source)) {
            const PyBuffer& buffer = source.cast<const PyBuffer&>();
            return PyBuffer(buffer.storage(), buffer.dtype(), buffer.shape(), buffer.offset());
        }
        if (py::isinstance<py::capsule>(source)) return consume_capsule(py::reinterpret_borrow<py::capsule>(source));
        if (!py::hasattr(source, "__dlpack__"))
            throw py::type_error("from_dlpack takes an object with __dlpack__ (a NumPy array, a torch or CuPy tensor, "
                                 "a gpucore.Buffer) or a DLPack capsule, not " + py::repr(source).cast<std::string>());
        DLDevice where{kDLCPU, 0};
        if (py::hasattr(source, "__dlpack_device__")) {
            const auto pair = source.attr("__dlpack_device__")().cast<std::pair<int, int>>();
            where = DLDevice{static_cast<DLDeviceType>(pair.first), pair.second};
        }
        if (where.device_type == kDLCPU || where.device_type == kDLCUDAHost || where.device_type == kDLROCMHost) {
            return consume_capsule(source.attr("__dlpack__")());
        }
        const Device device = device_of(where);
        if (stream != nullptr) {
            if (stream->device() != device)
                fail(ErrorCode::invalid_argument, "from_dlpack", device,
                     "the stream is on " + stream->device().to_string() + ", the tensor on " + device.to_string());
            const auto handle = reinterpret_cast<std::uintptr_t>(stream->native_handle());
            return consume_capsule(source.attr("__dlpack__")(py::arg("stream") = handle));
        }
        // No stream given: the producer orders its work before a fresh stream, which is then waited
        // for, so every later gpucore call (on any stream) sees the data.
        Stream fresh(device);
        const auto handle = reinterpret_cast<std::uintptr_t>(fresh.native_handle());
        PyBuffer buffer = consume_capsule(source.attr("__dlpack__")(py::arg("stream") = handle));
        synchronize(fresh);
        return buffer;
    }();
    if (!copy_requested(copy, "from_dlpack")) return imported;
    PyBuffer duplicate = PyBuffer::allocate(imported.device(), imported.shape(), imported.dtype());
    py::gil_scoped_release release;
    detail::copy_device(duplicate.range("from_dlpack"), imported.range("from_dlpack"), nullptr);
    return duplicate;
}

} // namespace

void bind_dlpack(py::module_& m) {
    auto buffer = py::reinterpret_borrow<py::class_<PyBuffer>>(m.attr("Buffer"));
    buffer.def("__dlpack__", &dlpack, py::kw_only(), py::arg("stream") = py::none(),
               py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(), py::arg("copy") = py::none(),
               "A DLPack capsule ('dltensor') of this buffer's memory, without a copy (unless copy=True). "
               "Waits for the device's queued work unless stream == -1.");
    buffer.def("__dlpack_device__", [](const PyBuffer& b) {
        const DLDevice d = dl_device_of(b);
        return std::make_pair(static_cast<int>(d.device_type), d.device_id);
    }, "(DLPack device type, device id): (1, 0) for cpu, (2, N) for cuda:N, (10, N) for hip:N.");
    m.def("from_dlpack", &from_dlpack, py::arg("x"), py::kw_only(), py::arg("stream") = nullptr,
          py::arg("copy") = py::none(),
          "A Buffer over the memory of x (a NumPy array, a torch or CuPy tensor, anything with __dlpack__, or "
          "a DLPack capsule), without a copy: the producer's memory stays alive while the Buffer (or a view) "
          "does. stream: the gpucore Stream the data will be used on (GPU tensors); without one, from_dlpack "
          "waits until the producer's work on it has finished. copy=True returns an owned copy instead.");
}

} // namespace gpucore::python

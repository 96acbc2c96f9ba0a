// SPDX-License-Identifier: Apache-2.0
// The C++ objects behind the Python types, and the helpers every binding file shares.
//
// Python's Buffer has its dtype and shape at run time, so it is not a gpucore::Buffer<T> but an
// untyped allocation (detail::Allocation, the one Buffer<T> wraps) plus dtype, shape and an element
// offset. The operations take its detail::MemoryRange, as the C++ templates do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "gpucore/gpucore.hpp"

struct DLManagedTensor;

namespace gpucore::python {

namespace py = pybind11;

// Memory a Python Buffer refers to: an allocation of its own, or a wrap of a DLPack producer's
// memory, whose DLManagedTensor it keeps (and returns through its deleter) until the last Buffer
// and the last capsule exported from one are gone. Shared by views and by exported capsules, so
// it may be destroyed on any thread, with or without the GIL.
struct Storage {
    detail::Allocation allocation;
    DLManagedTensor* producer = nullptr; // a DLPack producer's tensor this storage wraps
    Storage() = default;
    explicit Storage(detail::Allocation&& a) : allocation(std::move(a)) {}
    ~Storage();
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;
};

class PyBuffer {
public:
    PyBuffer(std::shared_ptr<Storage> storage, DType dtype, std::vector<std::size_t> shape,
             std::size_t offset);
    // A new allocation of `shape` elements of `dtype` on `device` (the GIL released meanwhile).
    static PyBuffer allocate(const Device& device, const std::vector<std::size_t>& shape, DType dtype,
                             MemoryKind kind = MemoryKind::device);

    DType dtype() const noexcept { return dtype_; }
    const std::vector<std::size_t>& shape() const noexcept { return shape_; }
    std::size_t size() const noexcept { return size_; }                 // elements
    std::size_t nbytes() const noexcept { return size_ * size_of(dtype_); }
    std::size_t offset() const noexcept { return offset_; }            // elements from the start
    const Device& device() const noexcept { return storage_->allocation.device(); }
    const std::shared_ptr<Storage>& storage() const noexcept { return storage_; }
    // Address of the first element (a device address on GPU backends).
    void* data() const noexcept;
    // The memory an operation or copy works on; Error(invalid_argument) naming `operation` when
    // it lies outside the allocation (it never does for buffers made here).
    detail::MemoryRange range(const char* operation) const;
    // The same memory with another shape of as many elements.
    PyBuffer reshaped(std::vector<std::size_t> shape) const;

private:
    std::shared_ptr<Storage> storage_;
    DType dtype_;
    std::vector<std::size_t> shape_;
    std::size_t size_ = 0;
    std::size_t offset_ = 0;
};

// Runs f with the GIL released when this thread holds it (destructors run with and without it).
template <class F>
void without_gil(F&& f) {
    if (Py_IsInitialized() != 0 && PyGILState_Check() != 0) {
        py::gil_scoped_release release;
        f();
    } else {
        f();
    }
}

// Device arguments: None (default_device(), i.e. GPU_BACKEND), a Device, or a selection text
// such as "cpu" or "cuda:1" (select_device).
Device to_device(const py::handle& value);
// Dtype arguments: a gpucore.DType, its name ("float32", "bf16"), a numpy dtype or scalar type.
// TypeError for anything else, naming the dtypes gpucore has.
DType to_dtype(const py::handle& value);
// "sum", "min", "max", "prod" or a gpucore.ReduceOp.
ReduceOp to_reduce_op(const py::handle& value);
// Shape arguments: an int or a sequence of ints, each >= 0. TypeError / ValueError otherwise.
std::vector<std::size_t> to_shape(const py::handle& value);
std::size_t element_count(const std::vector<std::size_t>& shape, const Device& device,
                          const char* operation);
py::tuple shape_tuple(const std::vector<std::size_t>& shape);
std::string shape_text(const std::vector<std::size_t>& shape);
std::string python_name(DType dtype); // "float32", "bfloat16"

// Error(code) about `device` from `operation`, as the C++ library raises them.
[[noreturn]] void fail(ErrorCode code, const char* operation, const Device& device, const std::string& cause);

// One stream per device for the blocking forms: each blocking call orders it after the device's
// queued work (detail::order_after_device_work), enqueues, and waits for it with the GIL released,
// as the C++ blocking calls do on the runtime's internal stream. Never destroyed: it may be used
// until the process ends.
Stream& blocking_stream(const Device& device);
// Waits for `stream` with the GIL released.
void synchronize(Stream& stream);

} // namespace gpucore::python

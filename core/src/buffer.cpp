// SPDX-License-Identifier: Apache-2.0
// Allocation and the untyped transfers behind Buffer<T>.
#include "gpucore/buffer.hpp"

#include <limits>
#include <utility>

#include "access.hpp"
#include "device_copy.hpp"
#include "logging.hpp"
#include "process_fork.hpp"

namespace gpucore::detail {

namespace {

gpucore_memory_kind to_plugin(MemoryKind kind) {
    switch (kind) {
    case MemoryKind::pinned_host: return GPUCORE_MEMORY_PINNED_HOST;
    case MemoryKind::managed: return GPUCORE_MEMORY_MANAGED;
    case MemoryKind::device: break;
    }
    return GPUCORE_MEMORY_DEVICE;
}

std::string bytes_text(std::size_t bytes) { return std::to_string(bytes) + " bytes"; }

void require_buffer(const Allocation& allocation, const char* which, const char* operation) {
    if (!allocation.valid()) {
        throw Error(ErrorCode::invalid_argument, operation, "", -1,
                    std::string(which) + " is a null (default-constructed or moved-from) Buffer");
    }
    require_this_process(allocation.generation(), which, operation);
}

void require_stream_on(const Stream& stream, const Device& device, const char* operation) {
    require_valid(stream, operation);
    const Device& stream_device = Access::device(stream);
    if (stream_device != device) {
        throw Error(ErrorCode::invalid_argument, operation, Access::backend(device)->name(),
                    Access::index(device),
                    "the buffer is on " + device.to_string() + " but the stream is on " +
                        stream_device.to_string());
    }
}

// For a copy between two devices: the stream may belong to either.
void require_stream_on_either(const Stream& stream, const Device& dst, const Device& src, const char* operation) {
    require_valid(stream, operation);
    const Device& stream_device = Access::device(stream);
    if (stream_device != dst && stream_device != src) {
        throw Error(ErrorCode::invalid_argument, operation, Access::backend(dst)->name(), Access::index(dst),
                    "the destination is on " + dst.to_string() + " and the source on " + src.to_string() +
                        " but the stream is on " + stream_device.to_string());
    }
}

// Enqueues one copy, on `stream` or (blocking) on the device's internal stream, then waits.
void run_copy(const Allocation& on, void* dst, const void* src, std::size_t bytes,
              gpucore_copy_kind kind, Stream* stream, const char* operation) {
    Backend& backend = *Access::backend(on.device());
    const int device = Access::index(on.device());
    if (stream != nullptr) {
        const EnqueueNote note(*stream);
        backend.call(operation, device, backend.api().copy, dst, src, bytes, kind, Access::handle(*stream));
        return;
    }
    backend.run_blocking(device, operation, [&](gpucore_stream internal) {
        backend.call(operation, device, backend.api().copy, dst, src, bytes, kind, internal);
    });
}

} // namespace

// ---- Allocation -----------------------------------------------------------------------------

Allocation::Allocation(const Device& device, MemoryKind kind, std::size_t bytes) {
    Backend& backend = backend_of(device, "Buffer::Buffer");
    const int index = Access::index(device);
    const DeviceProperties& props = backend.properties(index);
    if (kind != MemoryKind::device && kind != MemoryKind::pinned_host && kind != MemoryKind::managed) {
        // An integer cast to MemoryKind: refuse it rather than hand out device memory under its name.
        throw Error(ErrorCode::invalid_argument, "Buffer::Buffer", backend.name(), index,
                    "unknown memory kind " + std::to_string(static_cast<int>(kind)));
    }
    if ((kind == MemoryKind::pinned_host && !props.supports_pinned_host) ||
        (kind == MemoryKind::managed && !props.supports_managed)) {
        throw Error(ErrorCode::not_supported, "Buffer::Buffer", backend.name(), index,
                    std::string(to_string(kind)) + " memory is not supported by this device");
    }
    if (bytes > 0) {
        void* ptr = nullptr;
        backend.call("Buffer::Buffer", index, backend.api().allocate, index, to_plugin(kind), bytes, &ptr);
        ptr_ = ptr;
    }
    device_ = device;
    kind_ = kind;
    bytes_ = bytes;
    generation_ = process_generation();
}

Allocation::~Allocation() { release(); }

Allocation::Allocation(Allocation&& other) noexcept
    : device_(std::exchange(other.device_, Device())), kind_(std::exchange(other.kind_, MemoryKind::device)),
      bytes_(std::exchange(other.bytes_, 0)), ptr_(std::exchange(other.ptr_, nullptr)),
      generation_(other.generation_) {}

Allocation& Allocation::operator=(Allocation&& other) noexcept {
    if (this != &other) {
        release();
        device_ = std::exchange(other.device_, Device());
        kind_ = std::exchange(other.kind_, MemoryKind::device);
        bytes_ = std::exchange(other.bytes_, 0);
        ptr_ = std::exchange(other.ptr_, nullptr);
        generation_ = other.generation_;
    }
    return *this;
}

void Allocation::release() noexcept {
    // An allocation the parent made before fork() is the parent's to free (device memory is not
    // even mapped in the child): forget it.
    if (ptr_ != nullptr && generation_ == process_generation()) {
        Backend& backend = *Access::backend(device_);
        const int index = Access::index(device_);
        // The device may still be using the memory: wait for every stream we know of first. A
        // failure of their work is not ours to report: it stays with its stream for the owner's
        // next synchronize.
        backend.synchronize_known_streams(index);
        gpucore_message message;
        message.text[0] = '\0';
        if (backend.invoke("Buffer::~Buffer", message, backend.api().deallocate, index, to_plugin(kind_), ptr_) !=
            GPUCORE_OK) {
            try {
                logger().error("Buffer::~Buffer on {}: deallocate failed: {}", device_.to_string(),
                               message.text);
            } catch (...) {
            }
        }
    }
    ptr_ = nullptr;
    bytes_ = 0;
    kind_ = MemoryKind::device;
    device_ = Device();
}

std::size_t checked_allocation_bytes(std::size_t count, std::size_t element_size, const Device& device) {
    if (element_size != 0 && count > std::numeric_limits<std::size_t>::max() / element_size) {
        const Backend* backend = Access::backend(device);
        throw Error(ErrorCode::invalid_argument, "Buffer::Buffer", backend ? backend->name() : "",
                    backend ? Access::index(device) : -1,
                    std::to_string(count) + " elements of " + std::to_string(element_size) +
                        " bytes overflow size_t");
    }
    return count * element_size;
}

// ---- transfers ------------------------------------------------------------------------------

void copy_from_host(const Allocation& dst, const void* src, std::size_t src_bytes, Stream* stream) {
    const char* operation = stream ? "Buffer::copy_from_host_async" : "Buffer::copy_from_host";
    require_buffer(dst, "the destination", operation);
    if (stream) require_stream_on(*stream, dst.device(), operation);
    if (src_bytes < dst.bytes()) {
        throw Error(ErrorCode::invalid_argument, operation, dst.device().backend_name(), dst.device().index(),
                    "host range is shorter than the buffer (" + bytes_text(src_bytes) + " < " +
                        bytes_text(dst.bytes()) + ")");
    }
    if (dst.bytes() == 0) return;
    if (src == nullptr) {
        throw Error(ErrorCode::invalid_argument, operation, dst.device().backend_name(), dst.device().index(),
                    "host pointer is null");
    }
    run_copy(dst, dst.data(), src, dst.bytes(), GPUCORE_COPY_HOST_TO_DEVICE, stream, operation);
}

void copy_to_host(const Allocation& src, void* dst, std::size_t dst_bytes, Stream* stream) {
    const char* operation = stream ? "Buffer::copy_to_host_async" : "Buffer::copy_to_host";
    require_buffer(src, "the source", operation);
    if (stream) require_stream_on(*stream, src.device(), operation);
    if (dst_bytes < src.bytes()) {
        throw Error(ErrorCode::invalid_argument, operation, src.device().backend_name(), src.device().index(),
                    "host range is shorter than the buffer (" + bytes_text(dst_bytes) + " < " +
                        bytes_text(src.bytes()) + ")");
    }
    if (src.bytes() == 0) return;
    if (dst == nullptr) {
        throw Error(ErrorCode::invalid_argument, operation, src.device().backend_name(), src.device().index(),
                    "host pointer is null");
    }
    run_copy(src, dst, src.data(), src.bytes(), GPUCORE_COPY_DEVICE_TO_HOST, stream, operation);
}

void copy_device(const Allocation& dst, const Allocation& src, Stream* stream) {
    const char* operation = stream ? "Buffer::copy_from_async" : "Buffer::copy_from";
    require_buffer(dst, "the destination", operation);
    require_buffer(src, "the source", operation);
    const bool between_devices = dst.device() != src.device();
    if (stream && between_devices) require_stream_on_either(*stream, dst.device(), src.device(), operation);
    else if (stream) require_stream_on(*stream, dst.device(), operation);
    if (dst.bytes() != src.bytes()) {
        const std::string devices = between_devices ? "copy from " + src.device().to_string() + " to " +
                                                          dst.device().to_string() + ": "
                                                    : std::string();
        throw Error(ErrorCode::invalid_argument, operation, dst.device().backend_name(), dst.device().index(),
                    devices + "buffer sizes differ (destination: " + bytes_text(dst.bytes()) +
                        ", source: " + bytes_text(src.bytes()) + ")");
    }
    if (between_devices) {
        if (dst.bytes() != 0) {
            copy_between_devices({dst.device(), dst.data(), dst.bytes()}, {src.device(), src.data(), src.bytes()},
                                 stream, operation);
        }
        return;
    }
    if (dst.bytes() == 0 || dst.data() == src.data()) return; // nothing to do, or a copy onto itself
    run_copy(dst, dst.data(), src.data(), dst.bytes(), GPUCORE_COPY_DEVICE_TO_DEVICE, stream, operation);
}

void fill(const Allocation& dst, const void* value, std::size_t element_size, Stream* stream) {
    const char* operation = stream ? "Buffer::fill_async" : "Buffer::fill";
    require_buffer(dst, "the buffer", operation);
    if (stream) require_stream_on(*stream, dst.device(), operation);
    if (element_size != 1 && element_size != 2 && element_size != 4 && element_size != 8) {
        throw Error(ErrorCode::invalid_argument, operation, dst.device().backend_name(), dst.device().index(),
                    "element size " + std::to_string(element_size) + " is not 1, 2, 4 or 8");
    }
    if (dst.bytes() == 0) return;
    Backend& backend = *Access::backend(dst.device());
    const int device = Access::index(dst.device());
    const std::size_t count = dst.bytes() / element_size;
    if (stream != nullptr) {
        const EnqueueNote note(*stream);
        backend.call(operation, device, backend.api().fill, dst.data(), value, element_size, count,
                     Access::handle(*stream));
        return;
    }
    backend.run_blocking(device, operation, [&](gpucore_stream internal) {
        backend.call(operation, device, backend.api().fill, dst.data(), value, element_size, count, internal);
    });
}

} // namespace gpucore::detail

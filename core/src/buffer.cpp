// SPDX-License-Identifier: Apache-2.0
// Allocation and the untyped transfers behind Buffer<T>.
#include "gpucore/buffer.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <utility>

#include "access.hpp"
#if defined(GPUCORE_HAVE_CPU_BACKEND)
#include "cpu_backend.h"
#endif
#include "device_copy.hpp"
#include "logging.hpp"
#include "memory_range_checks.hpp"
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

void require_buffer(const MemoryRange& range, const char* which, const char* operation) {
    require_usable(range, [which] { return std::string(which); }, operation);
    require_plugin_takes(range, operation);
}

MemoryKind from_plugin(gpucore_memory_kind kind) {
    switch (kind) {
    case GPUCORE_MEMORY_PINNED_HOST: return MemoryKind::pinned_host;
    case GPUCORE_MEMORY_MANAGED: return MemoryKind::managed;
    case GPUCORE_MEMORY_DEVICE: break;
    }
    return MemoryKind::device;
}

std::string address_text(const void* ptr) {
    char text[2 + 2 * sizeof(void*) + 1];
    std::snprintf(text, sizeof text, "0x%jx", static_cast<std::uintmax_t>(reinterpret_cast<std::uintptr_t>(ptr)));
    return text;
}

// The device and kind of the memory at `ptr`, as the backend's pointer_device slot reports it.
// A refusal is Error(invalid_argument) "foreign pointer" with the plugin's reason.
std::pair<int, gpucore_memory_kind> locate(Backend& backend, int device, const void* ptr) {
    decltype(gpucore_plugin_api::pointer_device) slot = nullptr;
    try {
        slot = backend.optional_slot(&gpucore_plugin_api::pointer_device, "Buffer::wrap", device);
    } catch (const Error& missing) {
        throw Error(missing.code(), "Buffer::wrap", backend.name(), device,
                    missing.cause() + " (wrap validates every pointer through the plugin's pointer_device slot of "
                                      "ABI 1.2, and does not accept a pointer it cannot validate)");
    }
    gpucore_message message;
    message.text[0] = '\0';
    int owner = -1;
    gpucore_memory_kind kind = GPUCORE_MEMORY_DEVICE;
    const gpucore_status status = backend.invoke("Buffer::wrap", message, slot, ptr, &owner, &kind);
    if (status != GPUCORE_OK) {
        const Error cause = error_from_status(status, message, "Buffer::wrap", backend.name(), device);
        throw Error(status == GPUCORE_ERROR_INVALID_ARGUMENT ? ErrorCode::invalid_argument : cause.code(),
                    "Buffer::wrap", backend.name(), device,
                    "foreign pointer: " + address_text(ptr) + " is not memory of " + backend.name() +
                        ":" + std::to_string(device) + " (" + cause.cause() + ")");
    }
    if (kind != GPUCORE_MEMORY_DEVICE && kind != GPUCORE_MEMORY_PINNED_HOST && kind != GPUCORE_MEMORY_MANAGED) {
        throw Error(ErrorCode::plugin_error, "Buffer::wrap", backend.name(), device,
                    "pointer_device reported unknown memory kind " + std::to_string(static_cast<int>(kind)));
    }
    return {owner, kind};
}

// The built-in cpu backend's device memory is any read-write host memory of the process, on its one
// device: every byte of the range (at least the first) is checked against the process's memory map,
// not only the ends that pointer_device looks at, and that one check also answers what
// pointer_device would at both ends (each a read of the map). True when the range was checked so
// (the built-in cpu backend); false for every other backend, whose pointer_device answers for its
// runtime's allocations, looked up at both ends.
bool checked_as_host_range(Backend& backend, int device, const void* ptr, std::size_t bytes) {
#if defined(GPUCORE_HAVE_CPU_BACKEND)
    if (backend.source() != "built-in") return false;
    const std::size_t checked = std::max<std::size_t>(bytes, 1);
    gpucore_message message;
    message.text[0] = '\0';
    const gpucore_status status =
        backend.invoke("Buffer::wrap", message, &gpucore_cpu_check_host_range, ptr, checked);
    if (status != GPUCORE_OK) {
        const Error cause = error_from_status(status, message, "Buffer::wrap", backend.name(), device);
        throw Error(ErrorCode::invalid_argument, "Buffer::wrap", backend.name(), device,
                    "foreign pointer: the " + std::to_string(checked) +
                        (checked == 1 ? " byte at " + address_text(ptr) + " is "
                                      : " bytes at " + address_text(ptr) + " are ") +
                        cause.cause());
    }
    return true;
#else
    (void)backend, (void)device, (void)ptr, (void)bytes;
    return false;
#endif
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
void run_copy(const MemoryRange& on, void* dst, const void* src, std::size_t bytes,
              gpucore_copy_kind kind, Stream* stream, const char* operation) {
    Backend& backend = *Access::backend(on.device());
    const int device = Access::index(on.device());
    if (stream != nullptr) {
        const EnqueueNote note(*stream);
        backend.call(operation, device, backend.api().copy, dst, src, bytes, kind, Access::handle(*stream));
        return;
    }
    backend.streams().run_blocking(device, operation, [&](gpucore_stream internal) {
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
    lifetime_ = std::make_shared<const int>(0);
}

Allocation Allocation::wrap(const Device& device, void* ptr, std::size_t count, std::size_t element_size,
                            std::size_t alignment) {
    const char* operation = "Buffer::wrap";
    Backend& backend = backend_of(device, operation);
    const int index = Access::index(device);
    const auto fail = [&](const std::string& cause) {
        throw Error(ErrorCode::invalid_argument, operation, backend.name(), index, cause);
    };
    if (element_size != 0 && count > std::numeric_limits<std::size_t>::max() / element_size) {
        fail(std::to_string(count) + " elements of " + std::to_string(element_size) + " bytes overflow size_t");
    }
    const std::size_t bytes = count * element_size;
    if (ptr == nullptr && count > 0) fail("null pointer with " + std::to_string(count) + " elements");
    const auto address = reinterpret_cast<std::uintptr_t>(ptr);
    if (alignment > 1 && address % alignment != 0) {
        fail("pointer " + address_text(ptr) + " is not aligned to its element (" + std::to_string(alignment) + " bytes)");
    }
    if (bytes > std::numeric_limits<std::uintptr_t>::max() - address) {
        fail(std::to_string(bytes) + " bytes at " + address_text(ptr) + " run past the end of the address space");
    }
    gpucore_memory_kind kind = GPUCORE_MEMORY_DEVICE;
    if (ptr != nullptr && !checked_as_host_range(backend, index, ptr, bytes)) {
        // The first and the last byte: a range that starts in the device's memory but runs out
        // of it (a count larger than the allocation) is refused where the backend can tell.
        const std::pair<int, gpucore_memory_kind> first = locate(backend, index, ptr);
        std::pair<int, gpucore_memory_kind> last = first;
        if (bytes > 1) last = locate(backend, index, static_cast<const char*>(ptr) + (bytes - 1));
        for (const int owner : {first.first, last.first}) {
            if (owner != index) {
                fail("foreign pointer: " + address_text(ptr) + " is memory of " + backend.name() + ":" +
                     std::to_string(owner) + ", not of " + device.to_string());
            }
        }
        if (first.second != last.second) {
            fail("foreign pointer: the " + std::to_string(bytes) + " bytes at " + address_text(ptr) +
                 " span memory of different kinds");
        }
        kind = first.second;
    }
    Allocation result;
    result.device_ = device;
    result.kind_ = from_plugin(kind);
    result.bytes_ = bytes;
    result.ptr_ = ptr;
    result.generation_ = process_generation();
    result.owns_ = false;
    result.lifetime_ = std::make_shared<const int>(0);
    return result;
}

Allocation::~Allocation() { release(); }

Allocation::Allocation(Allocation&& other) noexcept
    : device_(std::exchange(other.device_, Device())), kind_(std::exchange(other.kind_, MemoryKind::device)),
      bytes_(std::exchange(other.bytes_, 0)), ptr_(std::exchange(other.ptr_, nullptr)),
      generation_(other.generation_), owns_(std::exchange(other.owns_, true)),
      lifetime_(std::move(other.lifetime_)) {}

Allocation& Allocation::operator=(Allocation&& other) noexcept {
    if (this != &other) {
        release();
        device_ = std::exchange(other.device_, Device());
        kind_ = std::exchange(other.kind_, MemoryKind::device);
        bytes_ = std::exchange(other.bytes_, 0);
        ptr_ = std::exchange(other.ptr_, nullptr);
        generation_ = other.generation_;
        owns_ = std::exchange(other.owns_, true);
        lifetime_ = std::move(other.lifetime_);
    }
    return *this;
}

void Allocation::release() noexcept {
    // Views of this memory expire first, so none can reach it once it is freed.
    lifetime_.reset();
    if (ptr_ != nullptr && owns_ && generation_ == process_generation()) {
        // The device may still be using the memory: wait for every stream we know of first. A
        // failure of their work is not ours to report: it stays with its stream for the owner's
        // next synchronize.
        Access::backend(device_)->streams().synchronize_known_streams(Access::index(device_));
    }
    free_now();
}

void Allocation::free_now() noexcept {
    lifetime_.reset();
    // An allocation the parent made before fork() is the parent's to free (device memory is not
    // even mapped in the child): forget it.
    if (ptr_ != nullptr && owns_ && generation_ == process_generation()) {
        Backend& backend = *Access::backend(device_);
        const int index = Access::index(device_);
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
    owns_ = true;
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

void copy_from_host(const MemoryRange& dst, const void* src, std::size_t src_bytes, Stream* stream) {
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
    if (src == dst.data()) return; // the host range is the destination itself (host-visible memory)
    if (overlap(dst.data(), dst.bytes(), src, dst.bytes())) {
        throw Error(ErrorCode::invalid_argument, operation, dst.device().backend_name(), dst.device().index(),
                    "the host range overlaps the destination");
    }
    run_copy(dst, dst.data(), src, dst.bytes(), GPUCORE_COPY_HOST_TO_DEVICE, stream, operation);
}

void copy_to_host(const MemoryRange& src, void* dst, std::size_t dst_bytes, Stream* stream) {
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
    if (dst == src.data()) return; // the host range is the source itself (host-visible memory)
    if (overlap(dst, src.bytes(), src.data(), src.bytes())) {
        throw Error(ErrorCode::invalid_argument, operation, src.device().backend_name(), src.device().index(),
                    "the host range overlaps the source");
    }
    run_copy(src, dst, src.data(), src.bytes(), GPUCORE_COPY_DEVICE_TO_HOST, stream, operation);
}

void copy_device(const MemoryRange& dst, const MemoryRange& src, Stream* stream) {
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
    if (dst.bytes() == 0 || identical(dst, src)) return; // nothing to do, or a copy onto itself
    if (overlap(dst, src)) {
        throw Error(ErrorCode::invalid_argument, operation, dst.device().backend_name(), dst.device().index(),
                    "the source and the destination partly overlap");
    }
    run_copy(dst, dst.data(), src.data(), dst.bytes(), GPUCORE_COPY_DEVICE_TO_DEVICE, stream, operation);
}

void fill(const MemoryRange& dst, const void* value, std::size_t element_size, Stream* stream) {
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
    backend.streams().run_blocking(device, operation, [&](gpucore_stream internal) {
        backend.call(operation, device, backend.api().fill, dst.data(), value, element_size, count, internal);
    });
}

} // namespace gpucore::detail

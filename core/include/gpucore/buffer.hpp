// SPDX-License-Identifier: Apache-2.0
// Buffer<T>: a typed, owning allocation on one device.
//
// Thread safety: a Buffer may be read (used as an input, copied to host) from several threads at
// once; writes need the caller's ordering, as for any memory. The blocking copies and fill are
// ordered after all work enqueued before them on any stream of the device, as on a legacy default
// stream (without a device-wide synchronize); the *_async forms are ordered with their stream only.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "gpucore/device.hpp"
#include "gpucore/stream.hpp"
#include "gpucore/types.hpp"

namespace gpucore {
namespace detail {

// Untyped RAII allocation; Buffer<T> is a typed view over one. Freed (after the device finished
// using it: the core synchronizes the device's streams it knows of) when destroyed. One inherited
// from the parent by a fork() child is an Error to use there, and is not freed there.
class GPUCORE_API Allocation {
public:
    Allocation() = default;
    Allocation(const Device& device, MemoryKind kind, std::size_t bytes);
    ~Allocation();
    Allocation(Allocation&& other) noexcept;
    Allocation& operator=(Allocation&& other) noexcept;
    Allocation(const Allocation&) = delete;
    Allocation& operator=(const Allocation&) = delete;

    const Device& device() const noexcept { return device_; }
    MemoryKind kind() const noexcept { return kind_; }
    std::size_t bytes() const noexcept { return bytes_; }
    void* data() const noexcept { return ptr_; }
    bool valid() const noexcept { return device_.valid(); }
    // The process generation it was allocated in (see process_fork.hpp in the core's sources).
    unsigned generation() const noexcept { return generation_; }

private:
    void release() noexcept;
    Device device_;
    MemoryKind kind_ = MemoryKind::device;
    std::size_t bytes_ = 0;
    void* ptr_ = nullptr; // null for zero-byte allocations
    unsigned generation_ = 0;
};

// Untyped transfers behind Buffer<T>. `op` names the public call for error messages.
// stream == nullptr means blocking (on the runtime's internal stream for the device).
GPUCORE_API void copy_from_host(const Allocation& dst, const void* src, std::size_t src_bytes, Stream* stream);
GPUCORE_API void copy_to_host(const Allocation& src, void* dst, std::size_t dst_bytes, Stream* stream);
GPUCORE_API void copy_device(const Allocation& dst, const Allocation& src, Stream* stream);
GPUCORE_API void fill(const Allocation& dst, const void* value, std::size_t element_size, Stream* stream);

// count * element_size; Error(invalid_argument) naming `device` when that overflows size_t.
GPUCORE_API std::size_t checked_allocation_bytes(std::size_t count, std::size_t element_size,
                                     const Device& device);

} // namespace detail

template <class T>
class Buffer {
    static_assert(is_supported_type_v<T>, "gpucore::Buffer supports the element types of the dtype list (float, double, int32_t, uint32_t, half, bfloat16)");

public:
    using value_type = T;

    Buffer() = default; // null buffer: every use other than valid()/size() throws
    Buffer(const Device& device, std::size_t count, MemoryKind kind = MemoryKind::device)
        : alloc_(device, kind, detail::checked_allocation_bytes(count, sizeof(T), device)),
          count_(count) {}
    // A moved-from Buffer is a null buffer: size() 0, valid() false.
    Buffer(Buffer&& other) noexcept
        : alloc_(std::move(other.alloc_)), count_(std::exchange(other.count_, 0)) {}
    Buffer& operator=(Buffer&& other) noexcept {
        if (this != &other) {
            alloc_ = std::move(other.alloc_);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() = default;

    bool valid() const noexcept { return alloc_.valid(); }
    std::size_t size() const noexcept { return count_; }
    std::size_t bytes() const noexcept { return count_ * sizeof(T); }
    bool empty() const noexcept { return count_ == 0; }
    MemoryKind kind() const noexcept { return alloc_.kind(); }
    const Device& device() const noexcept { return alloc_.device(); }
    // Device address. Host-dereferenceable only for pinned_host and managed buffers, and for every
    // buffer of the cpu backend.
    T* data() noexcept { return static_cast<T*>(alloc_.data()); }
    const T* data() const noexcept { return static_cast<const T*>(alloc_.data()); }

    // Whole-buffer copies from host memory. The host range must hold at least size() elements
    // (extra elements are ignored); a shorter one is Error(invalid_argument).
    void copy_from_host(const T* src, std::size_t src_count) {
        detail::copy_from_host(alloc_, src, bytes_of(src_count), nullptr);
    }
    void copy_from_host(const std::vector<T>& src) { copy_from_host(src.data(), src.size()); }
    // Asynchronous: `src` must stay alive and unchanged until `stream` passes the copy.
    void copy_from_host_async(Stream& stream, const T* src, std::size_t src_count) {
        detail::copy_from_host(alloc_, src, bytes_of(src_count), &stream);
    }

    // Whole-buffer copies to host memory holding at least size() elements.
    void copy_to_host(T* dst, std::size_t dst_count) const {
        detail::copy_to_host(alloc_, dst, bytes_of(dst_count), nullptr);
    }
    void copy_to_host_async(Stream& stream, T* dst, std::size_t dst_count) const {
        detail::copy_to_host(alloc_, dst, bytes_of(dst_count), &stream);
    }
    std::vector<T> to_vector() const {
        std::vector<T> out(count_);
        copy_to_host(out.data(), out.size());
        return out;
    }

    // Copy from a buffer of the same length on any device, of this backend or another.
    // Between two devices of one backend whose plugin copies peer-to-peer (cuda, hip, cpu), the
    // async form stays on `stream` (a stream of either device) and is also ordered after the work
    // queued so far on the other device. Otherwise (between backends, or a plugin without peer
    // copies) the copy is staged through pinned host memory in chunks, ordered after the work
    // queued so far on both devices, and both forms return when it is done.
    // GPUCORE_STAGING_CHUNK_BYTES sets the staging chunk size (default 32 MiB).
    void copy_from(const Buffer& src) { detail::copy_device(alloc_, src.alloc_, nullptr); }
    void copy_from_async(Stream& stream, const Buffer& src) {
        detail::copy_device(alloc_, src.alloc_, &stream);
    }

    // Sets every element to `value`.
    void fill(T value) { detail::fill(alloc_, &value, sizeof(T), nullptr); }
    void fill_async(Stream& stream, T value) { detail::fill(alloc_, &value, sizeof(T), &stream); }

    const detail::Allocation& allocation() const noexcept { return alloc_; }

private:
    static std::size_t bytes_of(std::size_t count) noexcept {
        // Saturate instead of wrapping: an absurd count is then "longer than the buffer", not short.
        return count > static_cast<std::size_t>(-1) / sizeof(T) ? static_cast<std::size_t>(-1)
                                                                 : count * sizeof(T);
    }
    detail::Allocation alloc_;
    std::size_t count_ = 0;
};

} // namespace gpucore

// SPDX-License-Identifier: Apache-2.0
// Buffer<T>: a typed allocation on one device, owning (the constructor) or wrapping memory the
// caller allocated (Buffer<T>::wrap). Buffer<T>::view gives a BufferView<T> (buffer_view.hpp): a
// typed part of a buffer that every operation and copy accepts.
//
// Thread safety: a Buffer may be read (used as an input, copied to host) from several threads at
// once; writes need the caller's ordering, as for any memory. The blocking copies and fill are
// ordered after all work enqueued before them on any stream of the device, as on a legacy default
// stream (without a device-wide synchronize); the *_async forms are ordered with their stream only.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "gpucore/device.hpp"
#include "gpucore/stream.hpp"
#include "gpucore/types.hpp"

namespace gpucore {

template <class T>
class BufferView;

namespace detail {

// Untyped RAII allocation; Buffer<T> is a typed view over one. Freed (after the device finished
// using it: the core synchronizes the device's streams it knows of) when destroyed. One inherited
// from the parent by a fork() child is an Error to use there, and is not freed there.
// A wrapped allocation (Allocation::wrap) refers to memory the caller owns: it is never freed and
// its destruction waits for nothing.
class GPUCORE_API Allocation {
public:
    Allocation() = default;
    Allocation(const Device& device, MemoryKind kind, std::size_t bytes);
    // Refers to `bytes` at `ptr`, which the caller allocated, after the device's backend confirmed
    // (pointer_device slot) that the first and last byte are memory of `device` (on the built-in
    // cpu backend: that every byte is read-write host memory). `alignment` is
    // the element's: a misaligned `ptr` is refused. Errors: see Buffer<T>::wrap.
    static Allocation wrap(const Device& device, void* ptr, std::size_t count, std::size_t element_size,
                           std::size_t alignment);
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
    // False for memory wrapped with wrap(): the caller frees it.
    bool owns_memory() const noexcept { return owns_; }
    // Expires when the memory is released (destruction, assignment): views watch it.
    std::weak_ptr<const void> lifetime() const noexcept { return lifetime_; }
    // Frees the memory now, without first synchronizing the device's streams as destruction does:
    // for the core, once every stream that used it has been destroyed (its work has finished).
    void free_now() noexcept;

private:
    void release() noexcept;
    Device device_;
    MemoryKind kind_ = MemoryKind::device;
    std::size_t bytes_ = 0;
    void* ptr_ = nullptr; // null for zero-byte allocations
    unsigned generation_ = 0;
    bool owns_ = true;
    std::shared_ptr<const void> lifetime_; // set while valid
};

// The bytes an operation or copy works on: a whole allocation (from a Buffer) or a part of one
// (from a BufferView). It refers to the allocation's memory, not to the Buffer object: it stays
// usable when the buffer is moved, and becomes an Error to use once the memory is released.
class GPUCORE_API MemoryRange {
public:
    MemoryRange() noexcept = default; // a null range
    // The whole allocation (implicit: a Buffer's allocation is a range).
    MemoryRange(const Allocation& whole) noexcept;
    // Part of `allocation`; Error(invalid_argument) naming `operation` when the allocation is null
    // or [offset_bytes, offset_bytes + bytes) is not inside it.
    MemoryRange(const Allocation& allocation, std::size_t offset_bytes, std::size_t bytes,
                const char* operation);
    // A part of this range, checked as above.
    MemoryRange part(std::size_t offset_bytes, std::size_t bytes, const char* operation) const;

    // False for a null range and for one whose memory was released since.
    bool valid() const noexcept { return device_.valid() && !lifetime_.expired(); }
    // True when the range had memory that was released since (a view that outlived its buffer).
    bool released() const noexcept { return device_.valid() && lifetime_.expired(); }
    bool is_part() const noexcept { return is_part_; }
    const Device& device() const noexcept { return device_; }
    MemoryKind kind() const noexcept { return kind_; }
    unsigned generation() const noexcept { return generation_; }
    std::size_t bytes() const noexcept { return bytes_; }
    // Bytes from the start of the allocation.
    std::size_t offset_bytes() const noexcept { return offset_; }
    // True when the plugin allocated this memory and the range starts at the allocation's start.
    bool at_allocation_start() const noexcept { return offset_ == 0 && owned_; }
    void* data() const noexcept { return base_ == nullptr ? nullptr : static_cast<char*>(base_) + offset_; }

private:
    Device device_;
    MemoryKind kind_ = MemoryKind::device;
    unsigned generation_ = 0;
    void* base_ = nullptr;
    std::size_t offset_ = 0;
    std::size_t bytes_ = 0;
    std::size_t allocation_bytes_ = 0;
    bool owned_ = true;
    bool is_part_ = false;
    std::weak_ptr<const void> lifetime_;
};

// Untyped transfers behind Buffer<T> and BufferView<T>. `op` names the public call for error
// messages. stream == nullptr means blocking (on the runtime's internal stream for the device).
GPUCORE_API void copy_from_host(const MemoryRange& dst, const void* src, std::size_t src_bytes, Stream* stream);
GPUCORE_API void copy_to_host(const MemoryRange& src, void* dst, std::size_t dst_bytes, Stream* stream);
GPUCORE_API void copy_device(const MemoryRange& dst, const MemoryRange& src, Stream* stream);
GPUCORE_API void fill(const MemoryRange& dst, const void* value, std::size_t element_size, Stream* stream);

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

    // A Buffer over memory the caller allocated: `count` elements at `ptr` on `device` (device
    // memory, pinned host or managed memory of that device's runtime; on the cpu backend any
    // mapped host memory). Usable in every operation and copy like any buffer; never frees the
    // memory. The caller keeps the memory alive, and does not free or reuse it, until every
    // operation and copy that uses it has finished (synchronize the streams they were queued on)
    // and the Buffer is destroyed. Validated through the backend (its pointer_device slot):
    //  - Error(invalid_argument): `ptr` null with count > 0; count * sizeof(T) overflows;
    //    `ptr` not aligned to T; `ptr` (first or last byte; on the cpu backend any byte, or the
    //    process's memory map cannot be read to check it) is not memory of `device` ("foreign
    //    pointer": another device, another backend, pageable host memory on a GPU backend);
    //  - Error(not_supported): the backend's plugin has no pointer_device slot (built against
    //    ABI < 1.2), as an unvalidated pointer could make operations fault or corrupt memory.
    // wrap(device, nullptr, 0) is an empty buffer on `device`.
    static Buffer wrap(const Device& device, T* ptr, std::size_t count) {
        return Buffer(detail::Allocation::wrap(device, ptr, count, sizeof(T), alignof(T)), count);
    }

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
    // False for a buffer made by wrap(): the caller owns (and frees) its memory.
    bool owns_memory() const noexcept { return alloc_.owns_memory(); }
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
    // copies) the copy is staged through host memory in chunks (pinned memory of one of the two
    // plugins where either has it, else ordinary host memory), ordered after the work
    // queued so far on both devices, and both forms return when it is done.
    // GPUCORE_STAGING_CHUNK_BYTES sets the staging chunk size (default 32 MiB).
    void copy_from(const Buffer& src) { detail::copy_device(alloc_, src.alloc_, nullptr); }
    void copy_from_async(Stream& stream, const Buffer& src) {
        detail::copy_device(alloc_, src.alloc_, &stream);
    }
    // The same from a view of the same length (it must not partly overlap this buffer).
    void copy_from(const BufferView<const T>& src);
    void copy_from_async(Stream& stream, const BufferView<const T>& src);

    // Sets every element to `value`.
    void fill(T value) { detail::fill(alloc_, &value, sizeof(T), nullptr); }
    void fill_async(Stream& stream, T value) { detail::fill(alloc_, &value, sizeof(T), &stream); }

    // `count` elements from element `offset` (both checked: Error(invalid_argument) when the view
    // does not lie inside the buffer, offset + count overflowing included, and for a null
    // buffer). A view refers to this buffer's memory without owning it: see buffer_view.hpp.
    BufferView<T> view(std::size_t offset, std::size_t count);
    BufferView<const T> view(std::size_t offset, std::size_t count) const;
    // The whole buffer.
    BufferView<T> view();
    BufferView<const T> view() const;

    const detail::Allocation& allocation() const noexcept { return alloc_; }

private:
    Buffer(detail::Allocation&& alloc, std::size_t count) : alloc_(std::move(alloc)), count_(count) {}
    static std::size_t bytes_of(std::size_t count) noexcept {
        // Saturate instead of wrapping: an absurd count is then "longer than the buffer", not short.
        return count > static_cast<std::size_t>(-1) / sizeof(T) ? static_cast<std::size_t>(-1)
                                                                 : count * sizeof(T);
    }
    detail::Allocation alloc_;
    std::size_t count_ = 0;
};

} // namespace gpucore

#include "gpucore/buffer_view.hpp"

// SPDX-License-Identifier: Apache-2.0
// BufferView<T>: `count` consecutive elements of a Buffer<T>, from element `offset`. Every
// operation (ops.hpp) and copy accepts a view wherever it accepts a buffer, so one buffer can be
// processed in parts (a chunked pipeline) without a separate buffer per part.
//
// BufferView<T> writes; BufferView<const T> only reads (a Buffer<T>& and a BufferView<T> convert
// to it). Views are cheap to copy.
//
// Lifetime: a view does not own memory. It refers to the buffer's memory, not to the Buffer
// object: it stays valid when the buffer is moved (it then refers to the moved-to buffer's
// memory), and once that memory is released (the buffer destroyed, or assigned another buffer)
// every use of the view is Error(invalid_argument) ("the view's memory was released"), never
// undefined behaviour. data() of such a view is a dangling address. A view of a wrapped buffer
// (Buffer<T>::wrap) watches the wrapper, not the caller's memory, which the caller keeps alive.
//
// Alignment: a view's address is aligned to its element only (a view of f32 from element 1 is
// 4-byte aligned); the backends take their vector fast paths where the addresses allow it.
//
// Thread safety: as for Buffer. A view must not be used while another thread destroys its buffer.
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

#include "gpucore/buffer.hpp"

namespace gpucore {

template <class T>
class BufferView {
public:
    using value_type = std::remove_const_t<T>;
    using element_type = T;
    static_assert(is_supported_type_v<value_type>, "gpucore::BufferView supports the element types of the dtype list");

    BufferView() = default; // null view: every use other than valid()/size() throws

    // The whole buffer (implicit, so a Buffer goes wherever a view is expected).
    template <class U = T, std::enable_if_t<!std::is_const_v<U>, int> = 0>
    BufferView(Buffer<value_type>& buffer) : BufferView(buffer.view()) {}
    template <class U = T, std::enable_if_t<std::is_const_v<U>, int> = 0>
    BufferView(const Buffer<value_type>& buffer) : BufferView(buffer.view()) {}
    // A writable view reads as well.
    template <class U, std::enable_if_t<std::is_const_v<T> && std::is_same_v<const U, T> && !std::is_same_v<U, T>, int> = 0>
    BufferView(const BufferView<U>& other) noexcept
        : range_(other.range()), count_(other.size()), offset_(other.offset()) {}

    // False for a null view and for one whose memory was released.
    bool valid() const noexcept { return range_.valid(); }
    std::size_t size() const noexcept { return count_; }
    std::size_t bytes() const noexcept { return count_ * sizeof(T); }
    bool empty() const noexcept { return count_ == 0; }
    // Elements from the start of the buffer.
    std::size_t offset() const noexcept { return offset_; }
    const Device& device() const noexcept { return range_.device(); }
    MemoryKind kind() const noexcept { return range_.kind(); }
    // Device address of the first element (see Buffer::data()).
    T* data() const noexcept { return static_cast<T*>(range_.data()); }

    // `count` elements from element `offset` of this view (checked as Buffer::view).
    BufferView subview(std::size_t offset, std::size_t count) const {
        return BufferView(range_.part(checked_bytes(offset), checked_bytes(count), "BufferView::subview"),
                          count, offset_ + offset);
    }

    // Copies as Buffer's: the host range holds at least size() elements.
    template <class U = T, std::enable_if_t<!std::is_const_v<U>, int> = 0>
    void copy_from_host(const value_type* src, std::size_t src_count) const {
        detail::copy_from_host(range_, src, bytes_of(src_count), nullptr);
    }
    template <class U = T, std::enable_if_t<!std::is_const_v<U>, int> = 0>
    void copy_from_host(const std::vector<value_type>& src) const { copy_from_host(src.data(), src.size()); }
    template <class U = T, std::enable_if_t<!std::is_const_v<U>, int> = 0>
    void copy_from_host_async(Stream& stream, const value_type* src, std::size_t src_count) const {
        detail::copy_from_host(range_, src, bytes_of(src_count), &stream);
    }
    void copy_to_host(value_type* dst, std::size_t dst_count) const {
        detail::copy_to_host(range_, dst, bytes_of(dst_count), nullptr);
    }
    void copy_to_host_async(Stream& stream, value_type* dst, std::size_t dst_count) const {
        detail::copy_to_host(range_, dst, bytes_of(dst_count), &stream);
    }
    std::vector<value_type> to_vector() const {
        std::vector<value_type> out(count_);
        copy_to_host(out.data(), out.size());
        return out;
    }
    // From a buffer or view of the same length on the same device. Identical ranges are a no-op;
    // partly overlapping ones are Error(invalid_argument).
    template <class U = T, std::enable_if_t<!std::is_const_v<U>, int> = 0>
    void copy_from(const BufferView<const value_type>& src) const {
        detail::copy_device(range_, src.range(), nullptr);
    }
    template <class U = T, std::enable_if_t<!std::is_const_v<U>, int> = 0>
    void copy_from_async(Stream& stream, const BufferView<const value_type>& src) const {
        detail::copy_device(range_, src.range(), &stream);
    }
    template <class U = T, std::enable_if_t<!std::is_const_v<U>, int> = 0>
    void fill(value_type value) const {
        detail::fill(range_, &value, sizeof(T), nullptr);
    }
    template <class U = T, std::enable_if_t<!std::is_const_v<U>, int> = 0>
    void fill_async(Stream& stream, value_type value) const {
        detail::fill(range_, &value, sizeof(T), &stream);
    }

    const detail::MemoryRange& range() const noexcept { return range_; }

private:
    friend class Buffer<value_type>;
    BufferView(detail::MemoryRange range, std::size_t count, std::size_t offset) noexcept
        : range_(std::move(range)), count_(count), offset_(offset) {}
    static std::size_t bytes_of(std::size_t count) noexcept {
        return count > static_cast<std::size_t>(-1) / sizeof(T) ? static_cast<std::size_t>(-1)
                                                                 : count * sizeof(T);
    }
    // Element counts as bytes; one that overflows saturates, so it fails the bounds check.
    static std::size_t checked_bytes(std::size_t count) noexcept { return bytes_of(count); }

    detail::MemoryRange range_;
    std::size_t count_ = 0;
    std::size_t offset_ = 0;
};

// ---- Buffer<T> members that make or take views ----------------------------------------------

template <class T>
BufferView<T> Buffer<T>::view(std::size_t offset, std::size_t count) {
    return BufferView<T>(detail::MemoryRange(alloc_, BufferView<T>::checked_bytes(offset),
                                             BufferView<T>::checked_bytes(count), "Buffer::view"),
                         count, offset);
}
template <class T>
BufferView<const T> Buffer<T>::view(std::size_t offset, std::size_t count) const {
    return BufferView<const T>(detail::MemoryRange(alloc_, BufferView<T>::checked_bytes(offset),
                                                   BufferView<T>::checked_bytes(count), "Buffer::view"),
                               count, offset);
}
template <class T>
BufferView<T> Buffer<T>::view() {
    return view(0, count_);
}
template <class T>
BufferView<const T> Buffer<T>::view() const {
    return view(0, count_);
}
template <class T>
void Buffer<T>::copy_from(const BufferView<const T>& src) {
    detail::copy_device(alloc_, src.range(), nullptr);
}
template <class T>
void Buffer<T>::copy_from_async(Stream& stream, const BufferView<const T>& src) {
    detail::copy_device(alloc_, src.range(), &stream);
}

namespace detail {

// What the operations accept as an operand: a Buffer<T> or a BufferView<T> / BufferView<const T>.
template <class X>
struct Operand {
    static constexpr bool is_operand = false;
};
template <class T>
struct Operand<Buffer<T>> {
    static constexpr bool is_operand = true;
    static constexpr bool writable = true;
    using element = T;
    static MemoryRange range(const Buffer<T>& buffer) noexcept { return MemoryRange(buffer.allocation()); }
};
template <class T>
struct Operand<BufferView<T>> {
    static constexpr bool is_operand = true;
    static constexpr bool writable = !std::is_const_v<T>;
    using element = std::remove_const_t<T>;
    static const MemoryRange& range(const BufferView<T>& view) noexcept { return view.range(); }
};

// X as named in a parameter `X&&`: a const Buffer is read-only.
template <class X>
inline constexpr bool is_operand_v = Operand<std::remove_cv_t<std::remove_reference_t<X>>>::is_operand;
template <class X>
inline constexpr bool is_writable_operand_v =
    Operand<std::remove_cv_t<std::remove_reference_t<X>>>::writable &&
    !(std::is_const_v<std::remove_reference_t<X>> &&
      !std::is_same_v<std::remove_cv_t<std::remove_reference_t<X>>,
                      BufferView<typename Operand<std::remove_cv_t<std::remove_reference_t<X>>>::element>>);
template <class X>
using operand_element_t = typename Operand<std::remove_cv_t<std::remove_reference_t<X>>>::element;
template <class X>
decltype(auto) operand_range(const X& x) noexcept {
    return Operand<std::remove_cv_t<X>>::range(x);
}

} // namespace detail
} // namespace gpucore

// SPDX-License-Identifier: Apache-2.0
// The C++ element type of each dtype of the contract's list (GPUCORE_DTYPE_LIST in gpucore/dtype.h), for
// the core and for C++ plugins alike, and a visitor over the list. Header-only, C++17.
#pragma once

#include <cstddef>
#include <type_traits>

#include "gpucore/float16.hpp"
#include "gpucore/dtype.h"

namespace gpucore {

// A type as a value, for generic lambdas: [](auto tag) { using T = typename decltype(tag)::type; }.
template <class T>
struct type_tag {
    using type = T;
};

namespace detail {
// The list's C storage type, unless C++ has a better one for the dtype.
template <gpucore_dtype D, class CType>
struct element_type_of {
    using type = CType;
};
// C stores the 16-bit floats as uint16_t bit patterns; C++ has types for them (float16.hpp).
template <>
struct element_type_of<GPUCORE_DTYPE_F16, uint16_t> {
    using type = half;
};
template <>
struct element_type_of<GPUCORE_DTYPE_BF16, uint16_t> {
    using type = bfloat16;
};
} // namespace detail

// element_of_t<GPUCORE_DTYPE_F32> is float, and so on for every dtype of the list.
template <gpucore_dtype D>
struct element_of;
#define GPUCORE_DTYPE_ELEMENT_(ID, value, name, ctype, bytes, minor)                        \
    template <>                                                                              \
    struct element_of<GPUCORE_DTYPE_##ID> {                                                  \
        using type = typename detail::element_type_of<GPUCORE_DTYPE_##ID, ctype>::type;      \
        static_assert(sizeof(type) == bytes, "element type size differs from the dtype list"); \
    };
GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_ELEMENT_)
#undef GPUCORE_DTYPE_ELEMENT_
template <gpucore_dtype D>
using element_of_t = typename element_of<D>::type;

// The dtype id whose element type is T (a compile error for a type outside the list).
template <class T>
constexpr gpucore_dtype dtype_id_of() noexcept {
#define GPUCORE_DTYPE_ID_OF_(ID, value, name, ctype, bytes, minor) \
    if constexpr (std::is_same_v<T, element_of_t<GPUCORE_DTYPE_##ID>>) return GPUCORE_DTYPE_##ID; else
    GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_ID_OF_) {
        static_assert(sizeof(T) == 0, "not an element type of GPUCORE_DTYPE_LIST");
        return GPUCORE_DTYPE_FORCE_32BIT_;
    }
#undef GPUCORE_DTYPE_ID_OF_
}

// The dtypes of the list, in its order.
#define GPUCORE_DTYPE_LISTED_(ID, value, name, ctype, bytes, minor) GPUCORE_DTYPE_##ID,
inline constexpr gpucore_dtype listed_dtypes[] = {GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_LISTED_)};
#undef GPUCORE_DTYPE_LISTED_

// The one dispatch from a dtype id to its C++ type, which every other derives from: returns
// f(type_tag<element_of_t<dtype>>{}), or on_unknown() for an id outside the list. Every call of f,
// and on_unknown, must return the same type.
template <class F, class Unknown>
decltype(auto) visit_dtype(gpucore_dtype dtype, F&& f, Unknown&& on_unknown) {
    switch (dtype) {
#define GPUCORE_DTYPE_VISIT_(ID, value, name, ctype, bytes, minor) \
    case GPUCORE_DTYPE_##ID: return f(type_tag<element_of_t<GPUCORE_DTYPE_##ID>>{});
        GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_VISIT_)
#undef GPUCORE_DTYPE_VISIT_
    default: return on_unknown();
    }
}

// Calls f(type_tag<element_of_t<dtype>>{}) and returns true; returns false, calling nothing, for
// an id outside the list (an unknown dtype from a newer or buggy caller is never a crash).
template <class F>
bool visit_dtype(gpucore_dtype dtype, F&& f) {
    return visit_dtype(
        dtype, [&](auto tag) { f(tag); return true; }, [] { return false; });
}

// Bytes per element of `dtype`; 0 for an id outside the list.
inline constexpr std::size_t element_size(gpucore_dtype dtype) noexcept {
    switch (dtype) {
#define GPUCORE_DTYPE_BYTES_(ID, value, name, ctype, bytes, minor) \
    case GPUCORE_DTYPE_##ID: return bytes;
        GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_BYTES_)
#undef GPUCORE_DTYPE_BYTES_
    default: return 0;
    }
}

} // namespace gpucore

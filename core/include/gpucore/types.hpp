// SPDX-License-Identifier: Apache-2.0
// Element types, reduce operations and memory kinds understood by every backend.
//
// The element types come from the one list the plugin contract shares (GPUCORE_DTYPE_LIST in the C
// header gpucore/dtype.h; the contract itself, gpucore/plugin.h, is not part of this API): DType,
// all_dtypes, dtype_of<T>(), element_type_t<D>, visit(), to_string() and size_of() are all expanded
// from it, so a new dtype is one line there (plus its host type, when C++ has none).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "gpucore/error.hpp"
#include "gpucore/export.hpp"
#include "gpucore/element_types.hpp"
#include "gpucore/dtype.h"

namespace gpucore {

#define GPUCORE_DTYPE_ENUMERATOR_(ID, value, name, ctype, bytes, minor) name = value,
enum class DType : int { GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_ENUMERATOR_) };
#undef GPUCORE_DTYPE_ENUMERATOR_

enum class ReduceOp { sum, min, max, prod };
enum class MemoryKind { device, pinned_host, managed };

// Every dtype, in the contract's order.
#define GPUCORE_DTYPE_VALUE_(ID, value, name, ctype, bytes, minor) DType::name,
inline constexpr DType all_dtypes[] = {GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_VALUE_)};
#undef GPUCORE_DTYPE_VALUE_

GPUCORE_API const char* to_string(DType dtype) noexcept;       // "f32"; "unknown_dtype" outside the list
GPUCORE_API const char* to_string(ReduceOp op) noexcept;       // "sum"
GPUCORE_API const char* to_string(MemoryKind kind) noexcept;   // "device", "pinned_host", "managed"
GPUCORE_API std::size_t size_of(DType dtype) noexcept;         // bytes per element; 0 outside the list

// True for a value of the list (an integer cast to DType may be anything).
constexpr bool is_known(DType dtype) noexcept {
#define GPUCORE_DTYPE_KNOWN_(ID, value, name, ctype, bytes, minor) dtype == DType::name ||
    return GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_KNOWN_) false;
#undef GPUCORE_DTYPE_KNOWN_
}

// The ABI minor of the contract that added `dtype` (a plugin of an older minor never sees it).
constexpr std::uint32_t abi_minor_of(DType dtype) noexcept {
#define GPUCORE_DTYPE_MINOR_(ID, value, name, ctype, bytes, minor) if (dtype == DType::name) return minor;
    GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_MINOR_)
#undef GPUCORE_DTYPE_MINOR_
    return 0;
}

#define GPUCORE_DTYPE_TRAITS_(ID, value, name, ctype, bytes, minor) \
    template <>                                                      \
    struct dtype_traits<DType::name> {                               \
        using type = element_of_t<GPUCORE_DTYPE_##ID>;               \
    };
template <DType D>
struct dtype_traits;
GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_TRAITS_)
#undef GPUCORE_DTYPE_TRAITS_

// The C++ element type of D: float for DType::f32, and so on.
template <DType D>
using element_type_t = typename dtype_traits<D>::type;

// Calls f(type_tag<T>{}) with T the element type of `dtype` and returns what it returns (every
// instantiation must return the same type). Error(invalid_argument) for a value outside the list.
// The dispatch is the SDK's one visit_dtype (element_types.hpp).
template <class F>
decltype(auto) visit(DType dtype, F&& f) {
    using Result = decltype(f(type_tag<element_of_t<listed_dtypes[0]>>{}));
    return visit_dtype(static_cast<gpucore_dtype>(dtype), f, [dtype]() -> Result {
        throw Error(ErrorCode::invalid_argument, "visit", "", -1,
                    "unknown dtype " + std::to_string(static_cast<int>(dtype)));
    });
}

namespace detail {
template <class T, DType... Ds>
constexpr bool is_one_of_v = (std::is_same_v<T, element_type_t<Ds>> || ...);
template <class T, DType... Ds>
constexpr DType dtype_from() noexcept {
    DType found = DType{};
    static_cast<void>(((std::is_same_v<T, element_type_t<Ds>> ? (found = Ds, true) : false) || ...));
    return found;
}
} // namespace detail

// The element types gpucore operates on: those of the list.
#define GPUCORE_DTYPE_ARG_(ID, value, name, ctype, bytes, minor) , DType::name
template <class T>
inline constexpr bool is_supported_type_v = detail::is_one_of_v<T GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_ARG_)>;

template <class T>
constexpr DType dtype_of() noexcept {
    static_assert(is_supported_type_v<T>, "gpucore supports the element types of GPUCORE_DTYPE_LIST");
    return detail::dtype_from<T GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_ARG_)>();
}
#undef GPUCORE_DTYPE_ARG_

} // namespace gpucore

// Element types, reduce operations and memory kinds understood by every backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "gpucore/export.hpp"

namespace gpucore {

enum class DType { f32, f64, i32, u32 };
enum class ReduceOp { sum, min, max, prod };
enum class MemoryKind { device, pinned_host, managed };

GPUCORE_API const char* to_string(DType dtype) noexcept;       // "f32"
GPUCORE_API const char* to_string(ReduceOp op) noexcept;       // "sum"
GPUCORE_API const char* to_string(MemoryKind kind) noexcept;   // "device", "pinned_host", "managed"
GPUCORE_API std::size_t size_of(DType dtype) noexcept;         // bytes per element

// The element types gpucore operates on: float, double, int32_t, uint32_t.
template <class T>
inline constexpr bool is_supported_type_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::uint32_t>;

template <class T>
constexpr DType dtype_of() noexcept {
    static_assert(is_supported_type_v<T>, "gpucore supports float, double, int32_t, uint32_t");
    if constexpr (std::is_same_v<T, float>) return DType::f32;
    else if constexpr (std::is_same_v<T, double>) return DType::f64;
    else if constexpr (std::is_same_v<T, std::int32_t>) return DType::i32;
    else return DType::u32;
}

} // namespace gpucore

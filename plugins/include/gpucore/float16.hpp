// SPDX-License-Identifier: Apache-2.0
// gpucore::half (IEEE 754 binary16) and gpucore::bfloat16 (the upper 16 bits of a binary32): host
// storage types of 2 bytes that convert to and from float. Header-only, no third-party code; part
// of the plugin SDK so that the core (types.hpp) and C++ plugins share one definition.
//
// Conversions: to float is exact. From float, double and int rounds to nearest, ties to even, once
// (a double is rounded directly, never through float); values beyond the largest finite value
// round to infinity (as IEEE rounding does); infinities keep their sign; a NaN stays a NaN
// (quiet). Every conversion is integer arithmetic on the bits (or float operations whose result is
// exact), so it gives the same result whatever rounding mode the caller set with fesetround.
// The float conversions are branch-free so that loops over arrays vectorize.
//
// Arithmetic: a half converts implicitly to float, so a + b, a < b, std::isnan(a) work in float;
// the result is stored back with an explicit conversion: half(a + b).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace gpucore {

namespace detail {

inline std::uint32_t bits_of(float value) noexcept {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

inline float float_of(std::uint32_t bits) noexcept {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// value / 2^shift rounded to nearest, ties to even, in integers; 1 <= shift <= 31.
inline std::uint32_t round_shift_even(std::uint32_t value, std::uint32_t shift) noexcept {
    const std::uint32_t quotient = value >> shift;
    const std::uint32_t remainder = value & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1u);
    return quotient + ((remainder > halfway || (remainder == halfway && (quotient & 1u) != 0)) ? 1u : 0u);
}

// The same for 64-bit values; 1 <= shift <= 63.
inline std::uint64_t round_shift_even(std::uint64_t value, unsigned shift) noexcept {
    const std::uint64_t quotient = value >> shift;
    const std::uint64_t remainder = value & ((std::uint64_t{1} << shift) - 1u);
    const std::uint64_t halfway = std::uint64_t{1} << (shift - 1u);
    return quotient + ((remainder > halfway || (remainder == halfway && (quotient & 1u) != 0)) ? 1u : 0u);
}

inline std::uint64_t bits_of(double value) noexcept {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

// binary64 -> a 16-bit format with `exponent_bits` and `mantissa_bits` (5 and 10: binary16; 8 and
// 7: bfloat16), rounded once to nearest even; overflow gives infinity; NaN stays a quiet NaN.
template <unsigned exponent_bits, unsigned mantissa_bits>
inline std::uint16_t double_to_narrow_bits(double value) noexcept {
    constexpr std::uint64_t mantissa_mask = (std::uint64_t{1} << 52) - 1u;
    constexpr unsigned dropped = 52 - mantissa_bits;                // mantissa bits a normal loses
    constexpr int bias = (1 << (exponent_bits - 1)) - 1;             // 15, 127
    constexpr std::uint64_t rebias = static_cast<std::uint64_t>(1023 - bias); // 1008, 896
    constexpr std::uint32_t infinity = ((1u << exponent_bits) - 1u) << mantissa_bits;
    const std::uint64_t bits = bits_of(value);
    const std::uint32_t sign = static_cast<std::uint32_t>(bits >> 48) & 0x8000u;
    const std::uint64_t magnitude = bits & 0x7FFFFFFFFFFFFFFFu;
    const std::uint64_t exponent = magnitude >> 52;
    std::uint32_t result;
    if (magnitude > 0x7FF0000000000000u) { // NaN: quiet, keeping the top payload bits
        result = infinity | (1u << (mantissa_bits - 1)) |
                 static_cast<std::uint32_t>((magnitude >> dropped) & ((1u << mantissa_bits) - 1u));
    } else if (exponent > rebias) { // normal range of the narrow format (or beyond)
        const std::uint64_t rounded = round_shift_even(magnitude - (rebias << 52), dropped);
        result = rounded >= infinity ? infinity : static_cast<std::uint32_t>(rounded);
    } else { // subnormal of the narrow format: units of 2^(1 - bias - mantissa_bits)
        const std::uint64_t significand = (magnitude & mantissa_mask) | (exponent != 0 ? std::uint64_t{1} << 52 : 0u);
        // value / unit = significand * 2^(exponent - 1023 - 52 + bias - 1 + mantissa_bits)
        const std::uint64_t shift = static_cast<std::uint64_t>(1023 + 52 + 1 - bias - static_cast<int>(mantissa_bits)) - exponent;
        result = static_cast<std::uint32_t>(round_shift_even(significand, static_cast<unsigned>(std::min<std::uint64_t>(shift, 63))));
    }
    return static_cast<std::uint16_t>(result | sign);
}

// binary16 -> binary32, exact. Subnormal halves become normal floats.
inline float half_bits_to_float(std::uint16_t h) noexcept {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t magnitude = static_cast<std::uint32_t>(h & 0x7FFFu) << 13; // exponent+mantissa
    const std::uint32_t exponent = magnitude & 0x0F800000u;
    // Normal: rebias the exponent (127 - 15). Inf/NaN: also move the exponent to all ones.
    const std::uint32_t normal = magnitude + (112u << 23);
    const std::uint32_t special = magnitude + (224u << 23);
    // Subnormal (and zero): the mantissa (an integer below 2^10, converted exactly) times 2^-24,
    // a product that is exact, so no rounding mode applies (+0 stays +0).
    const float subnormal = static_cast<float>(static_cast<std::int32_t>(h & 0x03FFu)) * 0x1p-24f;
    const std::uint32_t result = exponent == 0x0F800000u ? special
                               : exponent == 0          ? bits_of(subnormal)
                                                        : normal;
    return float_of(result | sign);
}

// binary32 -> binary16, round to nearest even; overflow gives infinity; NaN stays a quiet NaN.
inline std::uint16_t float_to_half_bits(float value) noexcept {
    const std::uint32_t bits = bits_of(value);
    const std::uint32_t sign = (bits >> 16) & 0x8000u;
    const std::uint32_t magnitude = bits & 0x7FFFFFFFu;
    // Normal halves: drop 13 mantissa bits with round-to-nearest-even, rebias the exponent. A
    // mantissa carry moves into the exponent, which is what rounding up must do.
    const std::uint32_t normal =
        (magnitude - (112u << 23) + 0x0FFFu + ((magnitude >> 13) & 1u)) >> 13;
    // Subnormal halves (|value| < 2^-14): the value in units of 2^-24 is the 24-bit significand
    // shifted right by 126 - exponent (at least 14), rounded to nearest even. A float subnormal
    // (exponent 0) is far below half of 2^-24 and gives 0.
    const std::uint32_t exponent = magnitude >> 23;
    const std::uint32_t significand = (magnitude & 0x007FFFFFu) | (exponent != 0 ? 0x00800000u : 0u);
    const std::uint32_t shift = exponent > 112u ? 14u : std::min(126u - exponent, 31u);
    const std::uint32_t subnormal = round_shift_even(significand, shift);
    const std::uint32_t nan = 0x7E00u | ((magnitude >> 13) & 0x01FFu);
    const std::uint32_t result = magnitude > 0x7F800000u   ? nan
                               : magnitude >= 0x477FF000u  ? 0x7C00u // rounds beyond 65504: inf
                               : magnitude < 0x38800000u   ? subnormal
                                                           : normal;
    return static_cast<std::uint16_t>(result | sign);
}

inline float bfloat16_bits_to_float(std::uint16_t b) noexcept {
    return float_of(static_cast<std::uint32_t>(b) << 16);
}

// binary32 -> bfloat16, round to nearest even; overflow gives infinity; NaN stays a quiet NaN.
inline std::uint16_t float_to_bfloat16_bits(float value) noexcept {
    const std::uint32_t bits = bits_of(value);
    const std::uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
    const bool is_nan = (bits & 0x7FFFFFFFu) > 0x7F800000u;
    return static_cast<std::uint16_t>(is_nan ? ((bits >> 16) | 0x0040u) : rounded);
}

} // namespace detail

// IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits; largest finite 65504, epsilon 2^-10.
class half {
public:
    half() noexcept = default;
    explicit half(float value) noexcept : bits_(detail::float_to_half_bits(value)) {}
    explicit half(double value) noexcept : bits_(detail::double_to_narrow_bits<5, 10>(value)) {}
    // Through double, which holds every int exactly.
    explicit half(int value) noexcept : half(static_cast<double>(value)) {}
    operator float() const noexcept { return detail::half_bits_to_float(bits_); }

    static half from_bits(std::uint16_t bits) noexcept {
        half h;
        h.bits_ = bits;
        return h;
    }
    std::uint16_t bits() const noexcept { return bits_; }

private:
    std::uint16_t bits_ = 0;
};

// bfloat16: 1 sign, 8 exponent, 7 mantissa bits (float's range); epsilon 2^-7.
class bfloat16 {
public:
    bfloat16() noexcept = default;
    explicit bfloat16(float value) noexcept : bits_(detail::float_to_bfloat16_bits(value)) {}
    explicit bfloat16(double value) noexcept : bits_(detail::double_to_narrow_bits<8, 7>(value)) {}
    // Through double, which holds every int exactly.
    explicit bfloat16(int value) noexcept : bfloat16(static_cast<double>(value)) {}
    operator float() const noexcept { return detail::bfloat16_bits_to_float(bits_); }

    static bfloat16 from_bits(std::uint16_t bits) noexcept {
        bfloat16 b;
        b.bits_ = bits;
        return b;
    }
    std::uint16_t bits() const noexcept { return bits_; }

private:
    std::uint16_t bits_ = 0;
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2, "16-bit storage types");

// The type reductions of T accumulate in: float for half and bfloat16, T itself otherwise.
template <class T>
struct accumulator {
    using type = T;
};
template <>
struct accumulator<half> {
    using type = float;
};
template <>
struct accumulator<bfloat16> {
    using type = float;
};
template <class T>
using accumulator_t = typename accumulator<T>::type;

// True for the element types that hold floating-point values: float, double, half, bfloat16.
template <class T>
inline constexpr bool is_float_element_v =
    std::is_floating_point_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

} // namespace gpucore

namespace std {

template <>
class numeric_limits<gpucore::half> {
public:
    static constexpr bool is_specialized = true;
    static constexpr bool is_signed = true;
    static constexpr bool is_integer = false;
    static constexpr bool is_exact = false;
    static constexpr bool has_infinity = true;
    static constexpr bool has_quiet_NaN = true;
    static constexpr int digits = 11;
    static constexpr int max_exponent = 16;
    static constexpr int min_exponent = -13;
    static gpucore::half min() noexcept { return gpucore::half::from_bits(0x0400); }       // 2^-14
    static gpucore::half max() noexcept { return gpucore::half::from_bits(0x7BFF); }       // 65504
    static gpucore::half lowest() noexcept { return gpucore::half::from_bits(0xFBFF); }    // -65504
    static gpucore::half epsilon() noexcept { return gpucore::half::from_bits(0x1400); }   // 2^-10
    static gpucore::half infinity() noexcept { return gpucore::half::from_bits(0x7C00); }
    static gpucore::half quiet_NaN() noexcept { return gpucore::half::from_bits(0x7E00); }
    static gpucore::half denorm_min() noexcept { return gpucore::half::from_bits(0x0001); } // 2^-24
};

template <>
class numeric_limits<gpucore::bfloat16> {
public:
    static constexpr bool is_specialized = true;
    static constexpr bool is_signed = true;
    static constexpr bool is_integer = false;
    static constexpr bool is_exact = false;
    static constexpr bool has_infinity = true;
    static constexpr bool has_quiet_NaN = true;
    static constexpr int digits = 8;
    static constexpr int max_exponent = 128;
    static constexpr int min_exponent = -125;
    static gpucore::bfloat16 min() noexcept { return gpucore::bfloat16::from_bits(0x0080); }
    static gpucore::bfloat16 max() noexcept { return gpucore::bfloat16::from_bits(0x7F7F); }
    static gpucore::bfloat16 lowest() noexcept { return gpucore::bfloat16::from_bits(0xFF7F); }
    static gpucore::bfloat16 epsilon() noexcept { return gpucore::bfloat16::from_bits(0x3C00); } // 2^-7
    static gpucore::bfloat16 infinity() noexcept { return gpucore::bfloat16::from_bits(0x7F80); }
    static gpucore::bfloat16 quiet_NaN() noexcept { return gpucore::bfloat16::from_bits(0x7FC0); }
    static gpucore::bfloat16 denorm_min() noexcept { return gpucore::bfloat16::from_bits(0x0001); }
};

} // namespace std

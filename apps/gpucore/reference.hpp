// SPDX-License-Identifier: Apache-2.0
// Double-precision CPU references, computed independently of any backend, with the error a
// correct device result may have against them (the error model is documented in reference.cpp).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "gpucore/types.hpp"

namespace gpucore::cli {

// Unit roundoff of T: 2^-24 for float, 2^-53 for double, 2^-11 for half, 2^-8 for bfloat16, 0 for
// integers (exact arithmetic).
template <class T>
constexpr double unit_roundoff() noexcept {
    if constexpr (gpucore::is_float_element_v<T>) return 1.0 / static_cast<double>(std::uint64_t{1} << std::numeric_limits<T>::digits);
    else return 0.0;
}

// a + b: exact in double for float inputs; integers wrap as uint32 arithmetic does.
template <class T>
double reference_add(T a, T b) noexcept {
    if constexpr (gpucore::is_float_element_v<T>) {
        return static_cast<double>(a) + static_cast<double>(b);
    } else {
        const auto sum = static_cast<std::uint32_t>(static_cast<std::uint32_t>(a) +
                                                    static_cast<std::uint32_t>(b));
        return static_cast<double>(static_cast<T>(sum));
    }
}

// Largest |device - reference| allowed for one element of vector_add: one unit in the last place
// of T (2 u_T relative; a correctly rounded sum is within half of that), plus the reference's own
// rounding (u_64), plus T's smallest normal so a device may flush a subnormal sum to zero.
template <class T>
double add_tolerance(double reference) noexcept {
    if constexpr (gpucore::is_float_element_v<T>) {
        return (2 * unit_roundoff<T>() + unit_roundoff<double>()) * std::fabs(reference) +
               static_cast<double>(std::numeric_limits<T>::min());
    } else {
        return 0.0;
    }
}

// A reference value and the largest |device - value| a correct device result may have.
struct Expected {
    double value = 0;
    double tolerance = 0;
};

// op over x[0, n): the identity when n == 0 (sum 0, prod 1, min/max +-infinity for floats and
// the type's max/lowest for integers). Integer sum/prod wrap as uint32 arithmetic.
// Instantiated for every element type of the dtype list.
template <class T>
Expected reference_reduce(const T* x, std::size_t n, ReduceOp op);

} // namespace gpucore::cli

// SPDX-License-Identifier: Apache-2.0
// How far a correct device result may lie from the reference (host_reference.hpp), per dtype, op
// and length. u is the unit roundoff of the type a reduction accumulates in (accumulator_t: float
// for half and bfloat16), u_T that of the element type, u64 that of double.
//  - vector_add, transpose, min, max and every integer op: exact (0). vector_add is the correctly
//    rounded sum in T (README: every backend gives the same bits).
//  - sum: (u * (2 ceil(log2(n + 1)) + 8) + 4 u64) * sum |x_i|. Any summation tree of depth d errs
//    by at most d u sum |x| (Higham, "Accuracy and Stability of Numerical Algorithms", eq. 4.3); a
//    pairwise sum has depth log2 n, and the factor 2 and the +8 leave room for blocked variants
//    that add a few elements serially at the leaves. One long serial float accumulator over 10^6
//    values fails it (its typical error grows like u sqrt(n) sum), which is the point: gpucore
//    promises accurate sums, not just fast ones.
//  - prod: the smaller of the worst case gamma(n) = n u / (1 - n u) (Higham, lemma 3.1) and the
//    probabilistic bound exp(lambda sqrt(n) u + n u^2 / (1 - u)) - 1 (Higham & Mary, SISC 2019,
//    theorem 2.4; lambda = 12: a correct result fails with probability below 1e-30), plus 2 u,
//    relative to |prod|.
//  - the reference is rounded once to T; a type narrower than its accumulator is also rounded once
//    by the device: u_T |value| each, plus T's smallest subnormal for results near zero.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "gpucore/float16.hpp"

namespace gpucore::reference {

// 2^-p for a float type of p significand bits (2^-24 float, 2^-53 double, 2^-11 half, 2^-8
// bfloat16); 0 for integers, whose arithmetic is exact.
template <class T>
constexpr double unit_roundoff() noexcept {
    if constexpr (is_float_element_v<T>)
        return 1.0 / static_cast<double>(std::uint64_t{1} << std::numeric_limits<T>::digits);
    else
        return 0.0;
}

// ceil(log2(n)) for n >= 1; 0 for n <= 1.
inline unsigned ceil_log2(std::size_t n) noexcept {
    unsigned depth = 0;
    while (depth < 63 && (std::size_t{1} << depth) < n) ++depth;
    return depth;
}

// What rounding the reference to T, and the device's own final rounding of a type narrower than
// its accumulator, add.
template <class T>
double rounding_to_element(double value) noexcept {
    if constexpr (!is_float_element_v<T>) {
        return 0.0;
    } else if constexpr (sizeof(T) < sizeof(accumulator_t<T>)) {
        return 2 * unit_roundoff<T>() * std::fabs(value) +
               static_cast<double>(std::numeric_limits<T>::denorm_min());
    } else {
        return unit_roundoff<T>() * std::fabs(value);
    }
}

// Allowed |device - value| for a sum of n elements whose magnitudes add up to `magnitude`.
template <class T>
double sum_tolerance(std::size_t n, double magnitude, double value) noexcept {
    if constexpr (!is_float_element_v<T>) {
        return 0.0;
    } else {
        const double u = unit_roundoff<accumulator_t<T>>();
        const double levels = 2.0 * ceil_log2(n + 1) + 8.0;
        return (u * levels + 4 * unit_roundoff<double>()) * magnitude + rounding_to_element<T>(value);
    }
}

// Allowed |device - value| for a product of n elements.
template <class T>
double prod_tolerance(std::size_t n, double value) noexcept {
    if constexpr (!is_float_element_v<T>) {
        return 0.0;
    } else {
        const double u = unit_roundoff<accumulator_t<T>>();
        const double len = static_cast<double>(n);
        const double worst = len * u < 1 ? len * u / (1 - len * u) : 1.0;
        const double lambda = 12;
        const double probable = std::expm1(lambda * std::sqrt(len) * u + len * u * u / (1 - u));
        return ((worst < probable ? worst : probable) + 2 * u) * std::fabs(value) +
               rounding_to_element<T>(value);
    }
}

} // namespace gpucore::reference

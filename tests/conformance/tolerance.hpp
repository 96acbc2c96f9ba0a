// SPDX-License-Identifier: Apache-2.0
// How far a backend's float reduction may lie from the (essentially exact) long double reference,
// and why. Integers, min/max, vector_add, transpose, and the float inputs built to be exact in any
// order (see random_inputs.hpp) are compared exactly: these bounds are only for random reals.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

namespace conformance::tolerance {

// ceil(log2(n)) for n >= 1; 0 for n <= 1.
inline unsigned ceil_log2(std::size_t n) {
    unsigned depth = 0;
    while (depth < 64 && (std::size_t{1} << depth) < n) ++depth;
    return depth;
}

// Sum of n values. Any summation tree of depth d has |computed - exact| <= d * u * sum|x_i|
// (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., eq. 4.3 and section 4.2),
// u = eps/2 the unit roundoff. A tree (pairwise) sum has depth ceil(log2 n); real kernels run
// short serial chains at the leaves (SIMD lanes, per-thread grid-stride loops), for which we allow
// 32 more levels; using eps instead of u doubles all of it as margin; the final rounding of the
// result to T adds at most u*|sum|. A single long serial accumulator (depth n) exceeds this for
// large n: for 10^6 positive values its typical error is about sqrt(n)/3 u * sum, ~5x the bound.
template <class T>
long double sum_bound(std::size_t n, long double sum_of_magnitudes, long double exact) {
    const long double eps = std::numeric_limits<T>::epsilon();
    return (ceil_log2(n) + 32) * eps * sum_of_magnitudes + eps / 2 * std::fabs(exact);
}

// Product of n values. Every multiplication, in any order, adds one relative error <= u, so
// |computed - exact| <= gamma(n) |exact| with gamma(n) = n u / (1 - n u) (Higham, lemma 3.1): no
// order does better. For large n this worst case is loose; with rounding errors modelled as
// independent and mean-zero (Higham & Mary, "A new approach to probabilistic rounding error
// analysis", SISC 2019, theorem 2.4), the relative error is at most
// exp(lambda sqrt(n) u + n u^2 / (1 - u)) - 1 with probability >= 1 - 2 exp(-lambda^2 (1-u)^2 / 2);
// lambda = 12 puts a spurious failure below 1e-30 per test. We take the smaller of the two, plus
// 2u of margin.
template <class T>
long double prod_bound(std::size_t n, long double exact) {
    const long double u = std::numeric_limits<T>::epsilon() / 2;
    const long double nl = static_cast<long double>(n);
    const long double worst = nl * u < 1 ? nl * u / (1 - nl * u) : 1.0L;
    const long double lambda = 12;
    const long double probable = std::expm1(lambda * std::sqrt(nl) * u + nl * u * u / (1 - u));
    return ((worst < probable ? worst : probable) + 2 * u) * std::fabs(exact);
}

} // namespace conformance::tolerance

// SPDX-License-Identifier: Apache-2.0
// Random inputs for the conformance suite, chosen so that every comparison is meaningful:
//  - general: floats uniform in [-1000, 1000], integers over their whole range (sums wrap);
//  - exact_sum: floats that are small integers, so every partial sum in ANY order is exactly
//    representable and the result must match exactly (a dropped or doubled element shows);
//  - positive_reals / mixed_reals: real-valued floats that exercise rounding (tolerance checks);
//  - exact_product: floats +-1, 2 and 1/2 only, so any-order products are exact powers of two;
//    integers odd (plus at most three factors of two), so a wrapped product never collapses to 0;
//  - near_one: floats exp(d), d uniform in [-a, a], a = min(1/2, 10/sqrt(segment)): the log of a
//    segment's product has standard deviation <= 10/sqrt(3), so products stay far inside the
//    float range, while one dropped factor still moves the result by ~a (far beyond the
//    tolerance). Not 1 + d with tiny d: products of floats within ~1e-3 of 1 round with a
//    systematic bias (about -0.02 u per multiplication, measured), which a tree of near-1 partial
//    products accumulates far beyond any mean-zero error model; at a >= 0.01 the bias is gone.
// `segment` is the length reduced together (n for reduce, cols for reduce_rows).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "test_seed.hpp"

namespace conformance {

enum class Pattern { general, exact_sum, positive_reals, mixed_reals, exact_product, near_one };

inline const char* to_string(Pattern pattern) {
    switch (pattern) {
    case Pattern::general: return "general";
    case Pattern::exact_sum: return "exact_sum";
    case Pattern::positive_reals: return "positive_reals";
    case Pattern::mixed_reals: return "mixed_reals";
    case Pattern::exact_product: return "exact_product";
    case Pattern::near_one: return "near_one";
    }
    return "?";
}

namespace detail {

template <class T>
T random_integer(Rng& rng) {
    return static_cast<T>(static_cast<std::uint32_t>(rng() >> 32));
}

template <class T>
std::vector<T> uniform_reals(Rng& rng, std::size_t n, double lo, double hi) {
    std::uniform_real_distribution<double> dist(lo, hi);
    std::vector<T> x(n);
    for (auto& v : x) v = static_cast<T>(dist(rng));
    return x;
}

template <class T>
std::vector<T> random_integers(Rng& rng, std::size_t n) {
    std::vector<T> x(n);
    for (auto& v : x) v = random_integer<T>(rng);
    return x;
}

// Floats: integers in [-R, R] with segment * R <= 2^(digits-1), so any partial sum of a segment is
// an integer below 2^digits in magnitude: exactly representable.
template <class T>
std::vector<T> exact_sum_floats(Rng& rng, std::size_t n, std::size_t segment) {
    const double limit = std::ldexp(1.0, std::numeric_limits<T>::digits - 1);
    const double r = std::clamp(std::floor(limit / static_cast<double>(std::max<std::size_t>(segment, 1))),
                                1.0, 1024.0);
    const auto range = static_cast<std::int64_t>(r);
    std::uniform_int_distribution<std::int64_t> dist(-range, range);
    std::vector<T> x(n);
    for (auto& v : x) v = static_cast<T>(dist(rng));
    return x;
}

// Floats: +-1 mostly, some 2 and 1/2; at most 60 of each per segment, so every partial product
// lies in [2^-60, 2^60]: exact in float and double whatever the order.
template <class T>
std::vector<T> exact_product_floats(Rng& rng, std::size_t n, std::size_t segment) {
    std::vector<T> x(n);
    std::size_t twos = 0, halves = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (segment != 0 && i % segment == 0) twos = halves = 0;
        const std::uint64_t bits = rng();
        T v = T(1);
        if ((bits & 7) == 0 && twos < 60) {
            v = T(2);
            ++twos;
        } else if ((bits & 7) == 1 && halves < 60) {
            v = T(0.5);
            ++halves;
        }
        x[i] = (bits & 8) ? -v : v;
    }
    return x;
}

// Integers: odd values over the whole range; at most three per segment doubled, so the wrapped
// product keeps a nonzero value (an odd number times at most 2^3).
template <class T>
std::vector<T> odd_integers(Rng& rng, std::size_t n, std::size_t segment) {
    std::vector<T> x(n);
    std::size_t doubled = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (segment != 0 && i % segment == 0) doubled = 0;
        std::uint32_t v = static_cast<std::uint32_t>(rng() >> 32) | 1u;
        if ((rng() & 63) == 0 && doubled < 3) {
            v *= 2u;
            ++doubled;
        }
        x[i] = static_cast<T>(v);
    }
    return x;
}

} // namespace detail

template <class T>
std::vector<T> random_values(Rng& rng, Pattern pattern, std::size_t n, std::size_t segment) {
    if constexpr (std::is_floating_point_v<T>) {
        switch (pattern) {
        case Pattern::general: return detail::uniform_reals<T>(rng, n, -1000.0, 1000.0);
        case Pattern::exact_sum: return detail::exact_sum_floats<T>(rng, n, segment);
        case Pattern::positive_reals: return detail::uniform_reals<T>(rng, n, 0.0, 1.0);
        case Pattern::mixed_reals: return detail::uniform_reals<T>(rng, n, -1.0, 1.0);
        case Pattern::exact_product: return detail::exact_product_floats<T>(rng, n, segment);
        case Pattern::near_one: {
            const double a = std::min(0.5, 10.0 / std::sqrt(static_cast<double>(std::max<std::size_t>(segment, 1))));
            std::vector<T> x = detail::uniform_reals<T>(rng, n, -a, a);
            for (auto& v : x) v = static_cast<T>(std::exp(static_cast<double>(v)));
            return x;
        }
        }
        return {};
    } else {
        if (pattern == Pattern::exact_product || pattern == Pattern::near_one)
            return detail::odd_integers<T>(rng, n, segment);
        return detail::random_integers<T>(rng, n);
    }
}

// A uniformly random index in [0, n); n must be > 0.
inline std::size_t random_index(Rng& rng, std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
}

} // namespace conformance

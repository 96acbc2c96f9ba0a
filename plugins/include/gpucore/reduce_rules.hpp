// SPDX-License-Identifier: Apache-2.0
// The reduce operations' rules on the host, in one place: each op's identity (what an empty input
// gives) and its combine step, with the NaN rule for float min/max (a NaN anywhere gives NaN).
// Used by the cpu backend, the template plugin, the CLI's and the tests' references; the device
// side has its own single copy (backends/gpu/kernels/reduce_ops.cuh). Header-only, C++17.
//
// combine() is written once for scalars and for GCC vector types (the cpu backend's SIMD leaves),
// branch-free so that it maps onto SIMD instructions. Integer sums and products should be
// instantiated with the unsigned type of the same width, so they wrap without undefined behaviour;
// half and bfloat16 with their accumulator type, float (accumulator_t in float16.hpp).
#pragma once

#include <limits>
#include <type_traits>

#include "gpucore/float16.hpp"
#include "gpucore/plugin.h"

namespace gpucore::reduce_rules {

template <class T>
struct Sum {
    static constexpr T identity() { return T(0); }
    template <class V>
    static V combine(const V& acc, const V& x) { return acc + x; }
};

template <class T>
struct Prod {
    static constexpr T identity() { return T(1); }
    template <class V>
    static V combine(const V& acc, const V& x) { return acc * x; }
};

template <class T>
struct Min {
    static constexpr T identity() {
        return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::max();
    }
    template <class V>
    static V combine(const V& acc, const V& x) {
        if constexpr (is_float_element_v<T>) {
            // Take x when it is smaller or NaN; once acc is NaN no comparison replaces it, so a
            // NaN anywhere propagates.
            return ((x < acc) | (x != x)) ? x : acc;
        } else {
            return x < acc ? x : acc;
        }
    }
};

template <class T>
struct Max {
    static constexpr T identity() {
        return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::lowest();
    }
    template <class V>
    static V combine(const V& acc, const V& x) {
        if constexpr (is_float_element_v<T>) {
            return ((x > acc) | (x != x)) ? x : acc;
        } else {
            return x > acc ? x : acc;
        }
    }
};

// Calls f(Rule{}) with Rule the rule type of `op` for T; false (nothing called) for an op outside
// the contract's enum.
template <class T, class F>
bool visit_op(gpucore_reduce_op op, F&& f) {
    switch (op) {
    case GPUCORE_REDUCE_SUM: f(Sum<T>{}); return true;
    case GPUCORE_REDUCE_PROD: f(Prod<T>{}); return true;
    case GPUCORE_REDUCE_MIN: f(Min<T>{}); return true;
    case GPUCORE_REDUCE_MAX: f(Max<T>{}); return true;
    }
    return false;
}

// The identity of `op` for T (T(0) for an op outside the enum).
template <class T>
constexpr T identity(gpucore_reduce_op op) {
    switch (op) {
    case GPUCORE_REDUCE_SUM: return Sum<T>::identity();
    case GPUCORE_REDUCE_PROD: return Prod<T>::identity();
    case GPUCORE_REDUCE_MIN: return Min<T>::identity();
    case GPUCORE_REDUCE_MAX: return Max<T>::identity();
    }
    return T(0);
}

} // namespace gpucore::reduce_rules

// SPDX-License-Identifier: Apache-2.0
// The four reduce operations as device functors, each with its identity. Integer sums and products
// are computed in uint32_t by the dispatch (wrap-around is defined there, and i32 has the same
// bits). Float min/max propagate NaN: if either operand is NaN, the result is NaN, so a NaN
// anywhere in the input reaches the root of any reduction tree.
#pragma once

#include <cmath>
#include <cstdint>

namespace gpucore::gpu {

template <class T>
struct NumericBounds; // largest / lowest finite-or-infinite value of T, usable on the device

template <>
struct NumericBounds<float> {
    static __host__ __device__ constexpr float highest() { return INFINITY; }
    static __host__ __device__ constexpr float lowest() { return -INFINITY; }
};
template <>
struct NumericBounds<double> {
    static __host__ __device__ constexpr double highest() { return static_cast<double>(INFINITY); }
    static __host__ __device__ constexpr double lowest() { return -static_cast<double>(INFINITY); }
};
template <>
struct NumericBounds<std::int32_t> {
    static __host__ __device__ constexpr std::int32_t highest() { return INT32_MAX; }
    static __host__ __device__ constexpr std::int32_t lowest() { return INT32_MIN; }
};
template <>
struct NumericBounds<std::uint32_t> {
    static __host__ __device__ constexpr std::uint32_t highest() { return UINT32_MAX; }
    static __host__ __device__ constexpr std::uint32_t lowest() { return 0u; }
};

template <class T>
__host__ __device__ constexpr bool is_nan(T v) {
    return v != v; // only floats can differ from themselves
}

struct SumOp {
    template <class T>
    static __host__ __device__ constexpr T identity() { return T(0); }
    template <class T>
    __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};

struct ProdOp {
    template <class T>
    static __host__ __device__ constexpr T identity() { return T(1); }
    template <class T>
    __device__ __forceinline__ T operator()(T a, T b) const { return a * b; }
};

struct MinOp {
    template <class T>
    static __host__ __device__ constexpr T identity() { return NumericBounds<T>::highest(); }
    template <class T>
    __device__ __forceinline__ T operator()(T a, T b) const {
        return (a < b || is_nan(a)) ? a : b; // b wins ties and when b is NaN
    }
};

struct MaxOp {
    template <class T>
    static __host__ __device__ constexpr T identity() { return NumericBounds<T>::lowest(); }
    template <class T>
    __device__ __forceinline__ T operator()(T a, T b) const {
        return (a > b || is_nan(a)) ? a : b;
    }
};

} // namespace gpucore::gpu

// SPDX-License-Identifier: Apache-2.0
// What kernels compute an element type in. The 4- and 8-byte types compute in themselves (widen and
// narrow are the identity, so their code is unchanged); half_t and bfloat16_t compute in float:
// widen is exact, narrow rounds to nearest even (the kernel dialect's to_float and round_to).
// Reductions accumulate in Accumulator and narrow once, at the end.
#pragma once

#include "../gpu_vendor.hpp"

namespace gpucore::gpu {

template <class T>
struct ElementMath {
    using Accumulator = T;
    static __device__ __forceinline__ T widen(T x) { return x; }
    static __device__ __forceinline__ T narrow(T x) { return x; }
};
template <>
struct ElementMath<half_t> {
    using Accumulator = float;
    static __device__ __forceinline__ float widen(half_t x) { return to_float(x); }
    static __device__ __forceinline__ half_t narrow(float x) { return round_to<half_t>(x); }
};
template <>
struct ElementMath<bfloat16_t> {
    using Accumulator = float;
    static __device__ __forceinline__ float widen(bfloat16_t x) { return to_float(x); }
    static __device__ __forceinline__ bfloat16_t narrow(float x) { return round_to<bfloat16_t>(x); }
};

template <class T>
using accumulator_of_t = typename ElementMath<T>::Accumulator;

template <class T>
__device__ __forceinline__ accumulator_of_t<T> widen(T x) {
    return ElementMath<T>::widen(x);
}

template <class T>
__device__ __forceinline__ T narrow(accumulator_of_t<T> x) {
    return ElementMath<T>::narrow(x);
}

} // namespace gpucore::gpu

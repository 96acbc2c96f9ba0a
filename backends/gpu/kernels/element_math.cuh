// SPDX-License-Identifier: Apache-2.0
// What kernels compute an element type in. The 4- and 8-byte types compute in themselves (widen and
// narrow are the identity, so their code is unchanged); gpu_half and gpu_bfloat16 compute in float:
// widen is exact, narrow rounds to nearest even (gpu_vendor.hpp). Reductions accumulate in
// Accumulator and narrow once, at the end.
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
struct ElementMath<gpu_half> {
    using Accumulator = float;
    static __device__ __forceinline__ float widen(gpu_half x) { return widen_to_float(x); }
    static __device__ __forceinline__ gpu_half narrow(float x) { return round_to_half(x); }
};
template <>
struct ElementMath<gpu_bfloat16> {
    using Accumulator = float;
    static __device__ __forceinline__ float widen(gpu_bfloat16 x) { return widen_to_float(x); }
    static __device__ __forceinline__ gpu_bfloat16 narrow(float x) { return round_to_bfloat16(x); }
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

// SPDX-License-Identifier: Apache-2.0
// The kernel dialect on NVIDIA GPUs (nvcc). Included by gpucore/kernel.hpp; do not include it
// directly. Warps have 32 lanes; warp operations involve every lane of the warp (the full mask).
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define GPUCORE_KERNEL_VENDOR_CUDA 1
#define GPUCORE_KERNEL_KIND "cuda"

namespace gpucore::kernel::vendor {

using half_t = __half;
using bfloat16_t = __nv_bfloat16;
__device__ __forceinline__ float to_float(half_t x) { return __half2float(x); }
__device__ __forceinline__ float to_float(bfloat16_t x) { return __bfloat162float(x); }
__device__ __forceinline__ half_t to_half(float x) { return __float2half_rn(x); }
__device__ __forceinline__ bfloat16_t to_bfloat16(float x) { return __float2bfloat16_rn(x); }

__device__ __forceinline__ int warp_size() { return warpSize; }
__device__ __forceinline__ unsigned char* dynamic_shared_bytes() {
    extern __shared__ __align__(16) unsigned char gpucore_dynamic_shared[];
    return gpucore_dynamic_shared;
}

inline constexpr unsigned kFullMask = 0xffffffffu;
template <class T>
__device__ __forceinline__ T shfl_xor(T v, int mask, int width) { return __shfl_xor_sync(kFullMask, v, mask, width); }
template <class T>
__device__ __forceinline__ T shfl(T v, int lane, int width) { return __shfl_sync(kFullMask, v, lane, width); }
template <class T>
__device__ __forceinline__ T shfl_down(T v, unsigned delta, int width) { return __shfl_down_sync(kFullMask, v, delta, width); }
template <class T>
__device__ __forceinline__ T shfl_up(T v, unsigned delta, int width) { return __shfl_up_sync(kFullMask, v, delta, width); }
__device__ __forceinline__ std::uint64_t ballot(bool predicate) { return __ballot_sync(kFullMask, predicate); }

// atomicMin and atomicMax take long long.
inline constexpr bool kSigned64MinMax = true;

} // namespace gpucore::kernel::vendor

#include "gpucore/kernel/gpu_atomics.hpp"

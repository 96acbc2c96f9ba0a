// SPDX-License-Identifier: Apache-2.0
// The kernel dialect on AMD GPUs (hipcc). Included by gpucore/kernel.hpp; do not include it
// directly. Wavefronts have 64 lanes on CDNA (gfx9) and 32 on RDNA (gfx10+): warpSize says which.
#pragma once

#include <cstdint>
#include <type_traits>

#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#define GPUCORE_KERNEL_VENDOR_HIP 1
#define GPUCORE_KERNEL_KIND "hip"

namespace gpucore::kernel::vendor {

using half_t = __half;
using bfloat16_t = hip_bfloat16; // rounds to nearest even from float
__device__ __forceinline__ float to_float(half_t x) { return __half2float(x); }
__device__ __forceinline__ float to_float(bfloat16_t x) { return static_cast<float>(x); }
__device__ __forceinline__ half_t to_half(float x) { return __float2half_rn(x); }
__device__ __forceinline__ bfloat16_t to_bfloat16(float x) { return bfloat16_t(x); }

__device__ __forceinline__ int warp_size() { return warpSize; }
__device__ __forceinline__ unsigned char* dynamic_shared_bytes() {
    extern __shared__ __align__(16) unsigned char gpucore_dynamic_shared[];
    return gpucore_dynamic_shared;
}

// HIP's shuffles and ballot take no lane mask: every lane of the wavefront takes part. A mask or
// offset counts by its low log2(warpSize) bits, as CUDA's hardware takes the low 5 (HIP's own
// functions would compare the whole value against the segment instead).
template <class T>
__device__ __forceinline__ T shfl_xor(T v, int mask, int width) { return __shfl_xor(v, mask & (warpSize - 1), width); }
template <class T>
__device__ __forceinline__ T shfl(T v, int lane, int width) { return __shfl(v, lane, width); }
template <class T>
__device__ __forceinline__ T shfl_down(T v, unsigned delta, int width) { return __shfl_down(v, delta & (warpSize - 1), width); }
template <class T>
__device__ __forceinline__ T shfl_up(T v, unsigned delta, int width) { return __shfl_up(v, delta & (warpSize - 1), width); }
__device__ __forceinline__ std::uint64_t ballot(bool predicate) { return __ballot(predicate); }

// ROCm 5.2's atomicMin and atomicMax have no long long form (only the unsigned 64-bit ones).
inline constexpr bool kSigned64MinMax = false;

} // namespace gpucore::kernel::vendor

#include "gpucore/kernel/gpu_atomics.hpp"

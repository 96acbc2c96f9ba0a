// SPDX-License-Identifier: Apache-2.0
// gpucore's kernel dialect: write a kernel once, compile it with nvcc (NVIDIA), hipcc (AMD) or a
// C++ compiler (the CPU), and run it on whichever device the application picks at run time.
// gpucore's own kernels are written in it too.
//
//   #include <gpucore/kernel.hpp>
//   using namespace gpucore::kernel;
//
//   GPUCORE_KERNEL saxpy(float a, const float* x, float* y, std::size_t n) {
//       const std::size_t i = global_thread_index();
//       if (i < n) y[i] = a * x[i] + y[i];
//   }
//   GPUCORE_MODULE_KERNEL(saxpy);   // gpucore/kernel_module.hpp: makes it launchable by name
//
// What a kernel may use, on every vendor:
//  - GPUCORE_KERNEL (a kernel: returns void), GPUCORE_DEVICE (a function kernels call),
//    GPUCORE_SHARED (static shared memory, one per block), dynamic_shared<T>() (the launch's
//    dynamic shared memory, 16-byte aligned);
//  - threadIdx, blockIdx, blockDim, gridDim (x, y, z), global_thread_index(), global_thread_count();
//  - sync_block(): the block barrier. Every thread of the block must reach the same barrier;
//  - warp_size() (32 or 64: a run-time value, never assume 32), lane_id(), and the warp
//    operations shfl_xor, shfl, shfl_down, shfl_up, warp_ballot (a 64-bit lane mask), warp_any,
//    warp_all (CUDA's own ballot/any/all are global names; these never collide). Every
//    lane of the warp takes part in each; the block is a whole number of warps where they are used;
//    `width` is a power of two up to warp_size(). Shuffled values: 32- and 64-bit integers and
//    floats (what every vendor shuffles);
//  - atomics on int32_t, uint32_t, int64_t, uint64_t: atomic_add, atomic_min, atomic_max,
//    atomic_exchange, atomic_cas; atomic_add on float and double. They are relaxed: order other
//    memory with the fences fence_block(), fence_device(), fence_system();
//  - float4 and uint4 (CUDA's 16-byte aligned vectors): one load or store moves 16 bytes, which
//    keeps a GPU's memory busy with fewer instructions and lets a C++ compiler use SIMD registers;
//  - half_t and bfloat16_t (2-byte storage of gpucore::half and gpucore::bfloat16 buffers),
//    to_float(x) (exact) and round_to<T>(float) (round to nearest, ties to even). Compute in float.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__) && !defined(__HIPCC__)
#include "gpucore/kernel/cuda.hpp"
#elif defined(__HIPCC__)
#include "gpucore/kernel/hip.hpp"
#else
#include "gpucore/kernel/cpu.hpp"
#endif

#define GPUCORE_KERNEL __global__ void
#define GPUCORE_DEVICE __device__ __forceinline__
#define GPUCORE_SHARED __shared__

// On the CPU, warp operations and barriers name their call site in the fault a misuse raises.
#if defined(GPUCORE_KERNEL_VENDOR_CPU)
#define GPUCORE_KERNEL_SITE_PARAMS_FIRST const char *file = __builtin_FILE(), int line = __builtin_LINE()
#define GPUCORE_KERNEL_SITE_ARGS_FIRST file, line
#define GPUCORE_KERNEL_SITE_PARAMS , GPUCORE_KERNEL_SITE_PARAMS_FIRST
#define GPUCORE_KERNEL_SITE_ARGS , file, line
#else
#define GPUCORE_KERNEL_SITE_PARAMS_FIRST
#define GPUCORE_KERNEL_SITE_ARGS_FIRST
#define GPUCORE_KERNEL_SITE_PARAMS
#define GPUCORE_KERNEL_SITE_ARGS
#endif

namespace gpucore::kernel {

using half_t = vendor::half_t;
using bfloat16_t = vendor::bfloat16_t;
using lane_mask_t = std::uint64_t;

GPUCORE_DEVICE float to_float(half_t x) { return vendor::to_float(x); }
GPUCORE_DEVICE float to_float(bfloat16_t x) { return vendor::to_float(x); }
template <class T>
GPUCORE_DEVICE T round_to(float x);
template <>
GPUCORE_DEVICE half_t round_to<half_t>(float x) { return vendor::to_half(x); }
template <>
GPUCORE_DEVICE bfloat16_t round_to<bfloat16_t>(float x) { return vendor::to_bfloat16(x); }

GPUCORE_DEVICE int warp_size() { return vendor::warp_size(); }
GPUCORE_DEVICE unsigned linear_thread_index() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
GPUCORE_DEVICE int lane_id() { return static_cast<int>(linear_thread_index() % static_cast<unsigned>(warp_size())); }
// blockIdx.x * blockDim.x + threadIdx.x, in size_t (no 32-bit overflow past 2^32 threads).
GPUCORE_DEVICE std::size_t global_thread_index() {
    return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
// gridDim.x * blockDim.x: the stride of a grid-stride loop.
GPUCORE_DEVICE std::size_t global_thread_count() { return static_cast<std::size_t>(gridDim.x) * blockDim.x; }

template <class T>
GPUCORE_DEVICE T* dynamic_shared() {
    return reinterpret_cast<T*>(vendor::dynamic_shared_bytes());
}

GPUCORE_DEVICE void sync_block(GPUCORE_KERNEL_SITE_PARAMS_FIRST) {
    __syncthreads(GPUCORE_KERNEL_SITE_ARGS_FIRST);
}

template <class T>
GPUCORE_DEVICE T shfl_xor(T v, int lane_mask, int width = warp_size() GPUCORE_KERNEL_SITE_PARAMS) {
    return vendor::shfl_xor(v, lane_mask, width GPUCORE_KERNEL_SITE_ARGS);
}
template <class T>
GPUCORE_DEVICE T shfl(T v, int source_lane, int width = warp_size() GPUCORE_KERNEL_SITE_PARAMS) {
    return vendor::shfl(v, source_lane, width GPUCORE_KERNEL_SITE_ARGS);
}
template <class T>
GPUCORE_DEVICE T shfl_down(T v, unsigned delta, int width = warp_size() GPUCORE_KERNEL_SITE_PARAMS) {
    return vendor::shfl_down(v, delta, width GPUCORE_KERNEL_SITE_ARGS);
}
template <class T>
GPUCORE_DEVICE T shfl_up(T v, unsigned delta, int width = warp_size() GPUCORE_KERNEL_SITE_PARAMS) {
    return vendor::shfl_up(v, delta, width GPUCORE_KERNEL_SITE_ARGS);
}
// Bit l is set when lane l's predicate is true.
GPUCORE_DEVICE lane_mask_t warp_ballot(bool predicate GPUCORE_KERNEL_SITE_PARAMS) {
    return vendor::ballot(predicate GPUCORE_KERNEL_SITE_ARGS);
}
GPUCORE_DEVICE bool warp_any(bool predicate GPUCORE_KERNEL_SITE_PARAMS) {
    return warp_ballot(predicate GPUCORE_KERNEL_SITE_ARGS) != 0;
}
GPUCORE_DEVICE bool warp_all(bool predicate GPUCORE_KERNEL_SITE_PARAMS) {
    const lane_mask_t full = warp_size() == 64 ? ~lane_mask_t{0} : (lane_mask_t{1} << warp_size()) - 1;
    return warp_ballot(predicate GPUCORE_KERNEL_SITE_ARGS) == full;
}

template <class T>
GPUCORE_DEVICE T atomic_add(T* p, T v) { return vendor::atomic_add(p, v); }
template <class T>
GPUCORE_DEVICE T atomic_min(T* p, T v) { return vendor::atomic_min(p, v); }
template <class T>
GPUCORE_DEVICE T atomic_max(T* p, T v) { return vendor::atomic_max(p, v); }
template <class T>
GPUCORE_DEVICE T atomic_exchange(T* p, T v) { return vendor::atomic_exchange(p, v); }
// Writes `desired` where *p equals `expected`; returns the old value either way.
template <class T>
GPUCORE_DEVICE T atomic_cas(T* p, T expected, T desired) { return vendor::atomic_cas(p, expected, desired); }

GPUCORE_DEVICE void fence_block() { vendor::fence_block(); }
GPUCORE_DEVICE void fence_device() { vendor::fence_device(); }
GPUCORE_DEVICE void fence_system() { vendor::fence_system(); }

} // namespace gpucore::kernel

// SPDX-License-Identifier: Apache-2.0
// Kernel module "saxpy": y = a * x + y, written once in gpucore's kernel dialect. The same file
// compiles with nvcc, hipcc and a C++ compiler (gpucore_add_kernel_module).
#include <cstdint>

#include <gpucore/kernel_module.hpp>

using namespace gpucore::kernel;

// float4 vectors per thread in a tile, and the elements they hold: a block takes tiles of
// kSaxpyItems * blockDim.x elements.
constexpr unsigned kSaxpyVectors = 2;
constexpr unsigned kSaxpyItems = 4 * kSaxpyVectors;

// Each block walks tiles grid-stride, so any grid covers any n; a grid of ceil(n / tile) blocks
// takes one tile each. In a tile, vector v of thread t is the float4 at v * blockDim.x + t: each
// load or store of a warp is one contiguous run of 16-byte pieces. A thread issues all its loads
// before its first store, which keeps enough of them in flight to run at the memory's speed on a
// GPU; on the CPU, where a block's threads run one after another, the block walks memory in order
// with 16-byte SIMD operations, and each thread's start-up cost is spread over kSaxpyItems
// elements. A tile cut by n, or arrays not 16-byte aligned (views at odd offsets), take the same
// elements one float at a time.
GPUCORE_KERNEL saxpy(float a, const float* x, float* y, std::size_t n) {
    const std::size_t tile = std::size_t{blockDim.x} * kSaxpyItems;
    const std::uintptr_t addresses = reinterpret_cast<std::uintptr_t>(x) | reinterpret_cast<std::uintptr_t>(y);
    const bool aligned = addresses % 16 == 0;
    for (std::size_t base = blockIdx.x * tile; base < n; base += std::size_t{gridDim.x} * tile) {
        std::size_t first[kSaxpyVectors];
        for (unsigned v = 0; v < kSaxpyVectors; ++v) {
            first[v] = base + 4 * (std::size_t{v} * blockDim.x + threadIdx.x);
        }
        if (aligned && base + tile <= n) {
            float4 xs[kSaxpyVectors], ys[kSaxpyVectors];
            for (unsigned v = 0; v < kSaxpyVectors; ++v) {
                xs[v] = *reinterpret_cast<const float4*>(x + first[v]);
                ys[v] = *reinterpret_cast<const float4*>(y + first[v]);
            }
            for (unsigned v = 0; v < kSaxpyVectors; ++v) {
                float4 r;
                r.x = a * xs[v].x + ys[v].x;
                r.y = a * xs[v].y + ys[v].y;
                r.z = a * xs[v].z + ys[v].z;
                r.w = a * xs[v].w + ys[v].w;
                *reinterpret_cast<float4*>(y + first[v]) = r;
            }
        } else {
            for (unsigned v = 0; v < kSaxpyVectors; ++v) {
                for (std::size_t i = first[v]; i < first[v] + 4 && i < n; ++i) y[i] = a * x[i] + y[i];
            }
        }
    }
}
GPUCORE_MODULE_KERNEL(saxpy);

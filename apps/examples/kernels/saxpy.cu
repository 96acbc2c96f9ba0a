// SPDX-License-Identifier: Apache-2.0
// Kernel module "saxpy": y = a * x + y, written once in gpucore's kernel dialect. The same file
// compiles with nvcc, hipcc and a C++ compiler (gpucore_add_kernel_module).
#include <gpucore/kernel_module.hpp>

using namespace gpucore::kernel;

// Elements per thread and tile: a block takes tiles of kSaxpyItems * blockDim.x elements.
constexpr unsigned kSaxpyItems = 4;

// Each block walks tiles of kSaxpyItems * blockDim.x elements, grid-stride, so any grid covers
// any n; a grid of ceil(n / tile) blocks takes one tile each. In a tile, thread t takes elements
// t, t + blockDim.x, ...: every load of a warp reads consecutive memory, and a thread issues its
// kSaxpyItems loads of x and of y before the first store, which keeps enough of them in flight to
// run at the memory's speed on a GPU (and, on the CPU, spreads each thread's start-up cost over
// kSaxpyItems elements).
GPUCORE_KERNEL saxpy(float a, const float* x, float* y, std::size_t n) {
    const std::size_t tile = std::size_t{blockDim.x} * kSaxpyItems;
    for (std::size_t base = blockIdx.x * tile; base < n; base += std::size_t{gridDim.x} * tile) {
        const std::size_t first = base + threadIdx.x;
        if (base + tile <= n) {
            float xs[kSaxpyItems], ys[kSaxpyItems];
            for (unsigned k = 0; k < kSaxpyItems; ++k) {
                xs[k] = x[first + k * blockDim.x];
                ys[k] = y[first + k * blockDim.x];
            }
            for (unsigned k = 0; k < kSaxpyItems; ++k) y[first + k * blockDim.x] = a * xs[k] + ys[k];
        } else {
            for (std::size_t i = first; i < n; i += blockDim.x) y[i] = a * x[i] + y[i];
        }
    }
}
GPUCORE_MODULE_KERNEL(saxpy);

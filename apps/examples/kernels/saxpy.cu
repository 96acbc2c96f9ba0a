// SPDX-License-Identifier: Apache-2.0
// Kernel module "saxpy": y = a * x + y, written once in gpucore's kernel dialect. The same file
// compiles with nvcc, hipcc and a C++ compiler (gpucore_add_kernel_module).
#include <gpucore/kernel_module.hpp>

using namespace gpucore::kernel;

// A grid-stride loop: any grid covers any n. Each pass loads four elements a grid apart before it
// stores any, so a thread keeps four loads of x and four of y in flight: memory, not the loop,
// sets the speed on a GPU (a grid of a few blocks per SM is enough).
GPUCORE_KERNEL saxpy(float a, const float* x, float* y, std::size_t n) {
    const std::size_t stride = global_thread_count();
    std::size_t i = global_thread_index();
    for (; i + 3 * stride < n; i += 4 * stride) {
        const float x0 = x[i], x1 = x[i + stride], x2 = x[i + 2 * stride], x3 = x[i + 3 * stride];
        const float y0 = y[i], y1 = y[i + stride], y2 = y[i + 2 * stride], y3 = y[i + 3 * stride];
        y[i] = a * x0 + y0;
        y[i + stride] = a * x1 + y1;
        y[i + 2 * stride] = a * x2 + y2;
        y[i + 3 * stride] = a * x3 + y3;
    }
    for (; i < n; i += stride) y[i] = a * x[i] + y[i];
}
GPUCORE_MODULE_KERNEL(saxpy);

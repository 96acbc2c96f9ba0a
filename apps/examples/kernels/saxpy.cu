// SPDX-License-Identifier: Apache-2.0
// Kernel module "saxpy": y = a * x + y, written once in gpucore's kernel dialect. The same file
// compiles with nvcc, hipcc and a C++ compiler (gpucore_add_kernel_module).
#include <gpucore/kernel_module.hpp>

using namespace gpucore::kernel;

// A grid-stride loop: any grid covers any n.
GPUCORE_KERNEL saxpy(float a, const float* x, float* y, std::size_t n) {
    for (std::size_t i = global_thread_index(); i < n; i += global_thread_count()) y[i] = a * x[i] + y[i];
}
GPUCORE_MODULE_KERNEL(saxpy);

// SPDX-License-Identifier: Apache-2.0
// Kernel module "block_sums": each block sums its slice of `in` in shared memory (a tree with a
// barrier per level) and adds the slice's sum to *total.
#include <gpucore/kernel_module.hpp>

using namespace gpucore::kernel;

GPUCORE_KERNEL block_sums(const std::uint32_t* in, std::size_t n, std::uint32_t* sums, std::uint32_t* total) {
    GPUCORE_SHARED std::uint32_t partial[256];
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0u;
    sync_block();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        sync_block();
    }
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = partial[0];
        atomic_add(total, partial[0]);
    }
}
GPUCORE_MODULE_KERNEL(block_sums);

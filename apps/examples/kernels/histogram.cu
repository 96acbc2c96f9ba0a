// SPDX-License-Identifier: Apache-2.0
// Kernel module "histogram": counts of byte values, first per block in shared memory, then added
// to the global bins with atomics.
#include <gpucore/kernel_module.hpp>

using namespace gpucore::kernel;

constexpr unsigned kBins = 256;

// values: n values in [0, 256) (stored as u32); bins: 256 counters, added to.
GPUCORE_KERNEL histogram256(const std::uint32_t* values, std::size_t n, std::uint32_t* bins) {
    GPUCORE_SHARED std::uint32_t local[kBins];
    for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
    sync_block();
    for (std::size_t i = global_thread_index(); i < n; i += global_thread_count()) {
        atomic_add(&local[values[i] % kBins], std::uint32_t{1});
    }
    sync_block();
    for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) {
        if (local[b] != 0) atomic_add(&bins[b], local[b]);
    }
}
GPUCORE_MODULE_KERNEL(histogram256);

// The sum of all values, with a warp reduction that never assumes a warp width.
GPUCORE_KERNEL sum_u32(const std::uint32_t* values, std::size_t n, std::uint32_t* total) {
    std::uint32_t sum = 0;
    for (std::size_t i = global_thread_index(); i < n; i += global_thread_count()) sum += values[i];
    for (int offset = warp_size() / 2; offset > 0; offset /= 2) sum += shfl_down(sum, static_cast<unsigned>(offset));
    if (lane_id() == 0) atomic_add(total, sum);
}
GPUCORE_MODULE_KERNEL(sum_u32);

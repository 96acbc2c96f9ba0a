// SPDX-License-Identifier: Apache-2.0
// What launch sizing needs to know about a device, read once when the plugin starts.
#pragma once

#include <cstddef>

namespace gpucore::gpu {

struct DeviceShape {
    int sm_count = 1;            // SMs / CUs
    int warp_size = 32;          // hardware warp (wavefront) width, from the device
    int max_threads_per_sm = 1024;
    int ordinal = 0;             // the runtime's device index (keys per-device caches)
};

// Blocks of `threads` threads that can be resident at once, counting threads only. Kernels whose
// registers or shared memory allow fewer size their grids with resident_blocks_of (occupancy.hpp).
inline std::size_t resident_blocks(const DeviceShape& device, int threads) {
    const int per_sm = device.max_threads_per_sm / threads;
    return static_cast<std::size_t>(device.sm_count) * static_cast<std::size_t>(per_sm > 0 ? per_sm : 1);
}

} // namespace gpucore::gpu

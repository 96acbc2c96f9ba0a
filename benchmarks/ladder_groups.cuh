// SPDX-License-Identifier: Apache-2.0
// Cooperative groups for the tiled-partition lesson. Both toolkits have them, under different
// header names (the one vendor difference of the ladder that the vendor header does not hold:
// only this benchmark uses them). The kernels see the same names either way.
#pragma once

#include "gpu_vendor.hpp"

#if GPUCORE_GPU_IS_HIP
#include <hip/hip_cooperative_groups.h>
#else
#include <cooperative_groups.h>
#endif

namespace ladder {
using cooperative_groups::this_thread_block;
using cooperative_groups::tiled_partition;
} // namespace ladder

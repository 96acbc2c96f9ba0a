// SPDX-License-Identifier: Apache-2.0
// Compiled (never run) by hipcc for every offload target of the HIP plugin: the device pass of
// each target must see the vendor header's warp size equal to that target's wavefront width
// (64 on gfx9 GCN/CDNA, 32 on gfx10+ RDNA, whose default is wave32), with the kernel dialect's
// lane mask wide enough for it. The target families come from clang's own macros, not from gpu_vendor.hpp.
#include "gpu_vendor.hpp"

#if defined(__HIP_DEVICE_COMPILE__)
#if defined(__GFX9__)
static_assert(gpucore::gpu::kWarpSize == 64, "gfx9 targets run 64-wide wavefronts");
#elif defined(__GFX10__) || defined(__GFX11__)
static_assert(gpucore::gpu::kWarpSize == 32, "gfx10+ targets default to 32-wide wavefronts");
#else
#error "an offload target of unknown family: add its wavefront width to this check"
#endif
static_assert(sizeof(gpucore::kernel::lane_mask_t) * 8 >= gpucore::gpu::kWarpSize,
              "one mask bit per lane");
#endif

// The host pass of a HIP build has no target; it must not make up a width narrower than any
// target's (host code asks the device for its width and never uses kWarpSize).
#if !defined(__HIP_DEVICE_COMPILE__)
static_assert(gpucore::gpu::kWarpSize == 64, "host pass: the widest wavefront");
#endif


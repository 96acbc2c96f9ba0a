// SPDX-License-Identifier: Apache-2.0
// Warp-level reduction, generic in its LOGICAL width: lanes [k*Width, (k+1)*Width) of a warp each
// reduce their own values (a butterfly of xor shuffles). Width is any power of two up to the
// hardware warp (32 on NVIDIA, 64 on CDNA): several short rows can share one warp.
#pragma once

#include "../gpu_vendor.hpp"

namespace gpucore::gpu {

// Returns the reduction of the Width values of this lane's logical group, in every lane of it.
// Every lane of the hardware warp must call it (the warp stays converged).
template <int Width, class T, class Op>
__device__ __forceinline__ T warp_reduce(T value, Op op) {
    static_assert(Width >= 1 && (Width & (Width - 1)) == 0, "logical width: a power of two");
    static_assert(Width <= kWarpSize, "logical width exceeds the hardware warp");
#pragma unroll
    for (int offset = Width / 2; offset > 0; offset /= 2) {
        value = op(value, shfl_xor(value, offset, Width));
    }
    return value;
}

} // namespace gpucore::gpu

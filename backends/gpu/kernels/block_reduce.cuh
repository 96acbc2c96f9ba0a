// SPDX-License-Identifier: Apache-2.0
// Block-level reduction built on warp_reduce: each warp reduces its lanes, warp leaders meet in
// shared memory, the first warp reduces those. Like CUB's BLOCK_REDUCE_WARP_REDUCTIONS.
#pragma once

#include "../gpu_vendor.hpp"
#include "warp_reduce.cuh"

namespace gpucore::gpu {

// Shared storage for block_reduce: one slot per warp of the block.
template <class T, int BlockThreads>
struct BlockReduceStorage {
    static constexpr int kWarps = BlockThreads / kWarpSize > 0 ? BlockThreads / kWarpSize : 1;
    T warp_results[kWarps];
};

// Reduces `value` over the block; the result is valid in thread 0 only. Every thread of the block
// must call it. Calling it again with the same storage needs a sync_block() in between.
template <int BlockThreads, class T, class Op>
__device__ __forceinline__ T block_reduce(T value, Op op,
                                          BlockReduceStorage<T, BlockThreads>& storage) {
    static_assert(BlockThreads % kWarpSize == 0, "block must be whole warps");
    constexpr int kWarps = BlockThreads / kWarpSize;
    static_assert(kWarps <= kWarpSize, "warp results must fit one warp");
    const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
    const int warp = static_cast<int>(threadIdx.x) / kWarpSize;

    value = warp_reduce<kWarpSize>(value, op);
    if constexpr (kWarps == 1) return value;
    if (lane == 0) storage.warp_results[warp] = value;
    sync_block();
    if (warp == 0) {
        value = lane < kWarps ? storage.warp_results[lane] : Op::template identity<T>();
        value = warp_reduce<kWarps>(value, op);
    }
    return value;
}

} // namespace gpucore::gpu

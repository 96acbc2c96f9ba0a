// The "last block finishes" pattern that makes multi-block reductions a single launch: each block
// stores its partial, fences, and takes a ticket; the block that draws the last ticket sees every
// partial and combines them. The ticket is reset to 0 by that block, ready for the next launch on
// the same stream (the scratch is per stream, and a stream runs its launches in order).
#pragma once

#include <cstddef>

#include "../gpu_vendor.hpp"

namespace gpucore::gpu {

// Called by every thread of the block after thread 0 holds the block's partial in `partial`.
// Returns true in every thread of the block that drew the last of `expected` tickets; partials
// written by all blocks are then visible to it (read them with load_partial).
template <class T>
__device__ __forceinline__ bool publish_partial(T partial, T* partial_slot, unsigned int* ticket,
                                                unsigned int expected, bool* is_last_shared) {
    if (threadIdx.x == 0) {
        *partial_slot = partial;
        __threadfence(); // the partial is visible device-wide before the ticket is taken
        const unsigned int drawn = atomicAdd(ticket, 1u);
        const bool last = drawn == expected - 1;
        if (last) __threadfence(); // acquire side: order the ticket before reading partials
        *is_last_shared = last;
    }
    __syncthreads();
    return *is_last_shared;
}

// Reads a partial written by another block: volatile, so it is fetched from L2, never from a
// stale L1 line.
template <class T>
__device__ __forceinline__ T load_partial(const T* slot) {
    return *static_cast<const volatile T*>(slot);
}

} // namespace gpucore::gpu

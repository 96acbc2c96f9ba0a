// SPDX-License-Identifier: Apache-2.0
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
// written by all blocks are then visible to it (read them with combine_partials).
template <class T>
__device__ __forceinline__ bool publish_partial(T partial, T* partial_slot, unsigned int* ticket,
                                                unsigned int expected, bool* is_last_shared) {
    if (threadIdx.x == 0) {
        *partial_slot = partial;
        fence_device(); // the partial is visible device-wide before the ticket is taken
        const unsigned int drawn = atomic_add(ticket, 1u);
        const bool last = drawn == expected - 1;
        if (last) fence_device(); // acquire side: order the ticket before reading partials
        *is_last_shared = last;
    }
    sync_block();
    return *is_last_shared;
}

// Combines partials[0..count) in the last block (every thread calls it; the result is this
// thread's share, to be block-reduced). Loads bypass L1 (load_coherent) and four are in flight
// per thread before they are combined: the combine is latency-bound, not bandwidth-bound.
template <int kThreads, class T, class Op>
__device__ __forceinline__ T combine_partials(const T* partials, std::size_t count, Op op) {
    constexpr int kInFlight = 4;
    T value = Op::template identity<T>();
    for (std::size_t base = threadIdx.x; base < count; base += kThreads * kInFlight) {
        T loaded[kInFlight];
#pragma unroll
        for (int j = 0; j < kInFlight; ++j) {
            const std::size_t i = base + static_cast<std::size_t>(j) * kThreads;
            loaded[j] = i < count ? load_coherent(partials + i) : Op::template identity<T>();
        }
#pragma unroll
        for (int j = 0; j < kInFlight; ++j) value = op(value, loaded[j]);
    }
    return value;
}

} // namespace gpucore::gpu

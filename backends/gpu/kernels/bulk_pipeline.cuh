// SPDX-License-Identifier: Apache-2.0
// The loop of a kernel that moves its work items through shared memory with the bulk copy engine
// (TMA, sm_90+; see gpu_vendor.hpp): kStages input buffers loaded ahead, two output buffers stored
// behind, so loads, the block's reordering in shared memory and stores overlap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../gpu_vendor.hpp"

namespace gpucore::gpu {

// Moves the block's `items` work items. Thread 0 calls load(i, stage) to start item i's load into
// input buffer `stage`, arming loaded[stage] (kStages barriers in shared memory) for its bytes.
// Every thread calls reorder(i, stage, out_index) once item i has landed and output buffer
// `out_index` (i % 2) is no longer read by the store of item i - 2. Then thread 0 calls
// store(i, out_index) and refills the stage with item i + kStages. Every store is complete when it returns.
template <int kStages, class Load, class Reorder, class Store>
__device__ __forceinline__ void run_bulk_pipeline(std::uint64_t* loaded, std::size_t items, Load&& load,
                                                  Reorder&& reorder, Store&& store) {
    static_assert(kStages >= 1, "a stage at least");
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) bulk_barrier_init(&loaded[s], 1);
        for (std::size_t i = 0; i < items && i < static_cast<std::size_t>(kStages); ++i) {
            load(i, static_cast<int>(i));
        }
    }
    sync_block();

    for (std::size_t i = 0; i < items; ++i) {
        const int stage = static_cast<int>(i % kStages);
        const auto parity = static_cast<std::uint32_t>((i / kStages) & 1);
        const int out_index = static_cast<int>(i & 1);
        while (!bulk_barrier_try_wait(&loaded[stage], parity)) {
        }
        // The store that last read this output buffer (two items ago) must be done reading it.
        if (threadIdx.x == 0) bulk_store_wait_read_all_but_one();
        sync_block();

        reorder(i, stage, out_index);
        fence_shared_for_bulk_copy();
        sync_block();

        if (threadIdx.x == 0) {
            store(i, out_index);
            bulk_store_commit();
            // Every thread has finished reading this input stage (the barrier above): refill it.
            if (i + kStages < items) load(i + kStages, stage);
        }
    }
    if (threadIdx.x == 0) bulk_store_wait_all();
}

} // namespace gpucore::gpu

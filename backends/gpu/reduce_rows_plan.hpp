// SPDX-License-Identifier: Apache-2.0
// How reduce_rows runs a given shape: which kernel (see kernels/reduce_rows_kernels.cuh), with
// which logical width or split, and how many blocks. Pure host logic, testable without a GPU.
#pragma once

#include <cstddef>

#include "device_shape.hpp"
#include "tuning_policy.hpp"

namespace gpucore::gpu {

enum class RowStrategy {
    sub_warp,     // cols <= TuningPolicy::ReduceRows::kSubWarpMaxCols: several rows per warp
    warp_per_row, // medium rows, many of them
    block_per_row // long rows; split > 1 spreads each row over several blocks
};

struct RowPlan {
    RowStrategy strategy = RowStrategy::block_per_row;
    int logical_width = 0;  // sub_warp: lanes per row, a power of two
    int per_lane = 1;       // sub_warp: elements each lane reads; logical_width * per_lane >= cols.
                            // warp_per_row: packs each lane keeps in flight (2 or 4).
                            // block_per_row: kLeanRowPacks (split 1), the lean blocks; anything
                            // else, the split kernel
    std::size_t split = 1;  // block_per_row: blocks per row
    int lean_threads = 0;   // block_per_row, the lean blocks: threads per block (kLeanRowThreads,
                            // kLeanMidRowThreads or kLeanWideRowThreads)
    int tile_threads = 0;   // block_per_row, split 1: the tile blocks' threads per block
                            // (kTileRowThreads, or the short tiles' 64, 128 or 256) in place of the
                            // lean blocks; 0 when not planned. The launcher takes the lean blocks
                            // where the input does not start on 16 bytes.
    int tile_packs = 0;     // the tile blocks' packs per thread: kTileRowPacks, or kShortTilePacks
                            // or kShortTilePacks8 for the short tiles (the last tile's loads in
                            // flight at once)
    std::size_t grid = 0;   // blocks to launch (> 0 whenever rows > 0)
};

// The plan for rows x cols (rows > 0). `partial_slots` and `ticket_slots` are the per-stream
// scratch capacities; a split plan never exceeds them. `split_wave_blocks`: blocks of the split
// kernel resident at once (resident_blocks_of); a split plan fills at most that one wave. 0: the
// device's SMs times TuningPolicy::ReduceRows::kSplitTargetBlocksPerSm. `element_bytes`: the
// dtype's size (short rows: how many lanes span a sector). `input_on_packs`: the input starts on a
// 16-byte boundary (the tile blocks need it).
RowPlan plan_reduce_rows(std::size_t rows, std::size_t cols, const DeviceShape& device,
                         std::size_t partial_slots, std::size_t ticket_slots,
                         std::size_t split_wave_blocks = 0, std::size_t element_bytes = 4,
                         bool input_on_packs = true);

// A plan forcing `strategy` (tests and benchmarks use it to exercise each kernel on any shape).
// sub_warp: one lane per element (needs cols <= kSubWarpMaxWidth); a split is clamped to the
// scratch capacities.
RowPlan forced_row_plan(RowStrategy strategy, std::size_t rows, std::size_t cols,
                        std::size_t split, const DeviceShape& device, std::size_t partial_slots,
                        std::size_t ticket_slots);

// A sub-warp plan with `per_lane` elements per lane (a power of two) and the narrowest width that
// covers cols, for tests and benchmarks; logical_width 0 when no sub-warp kernel has that shape
// (sub_warp_kernel_exists).
RowPlan sub_warp_row_plan(std::size_t rows, std::size_t cols, int per_lane, const DeviceShape& device);

// A warp-per-row plan whose lanes keep `packs` packs in flight (TuningPolicy::ReduceRows::
// kWarpRowPacksPerThread or kWarpRowKiBRowPacks; any other value gives the first), for
// tests and benchmarks.
RowPlan warp_row_plan(std::size_t rows, int packs, const DeviceShape& device);

// A plan of the lean one-block-per-row kernel (TuningPolicy::ReduceRows::kLeanRow*) with blocks of
// `threads` (kLeanRowThreads, kLeanMidRowThreads or kLeanWideRowThreads; any other value gives the
// first), for tests and benchmarks.
RowPlan lean_row_plan(std::size_t rows, int threads);

// A plan of the tile blocks (TuningPolicy::ReduceRows::kTileRow*), the lean blocks of
// kLeanRowThreads where the launcher cannot take them, for tests and benchmarks.
RowPlan tile_row_plan(std::size_t rows);

// A plan of the short tiles (TuningPolicy::ReduceRows::kShortTile*), the lean blocks of
// kLeanMidRowThreads where the launcher cannot take them, for tests and benchmarks. `packs`
// kShortTilePacks: blocks of `threads` (kShortTileNarrowThreads, kShortTileMidThreads or
// kShortTileWideThreads; any other value gives the first); kShortTilePacks8: blocks of
// kShortTileMidThreads whatever `threads`; any other `packs` gives kShortTilePacks.
RowPlan short_tile_row_plan(std::size_t rows, int threads,
                            int packs = TuningPolicy::ReduceRows::kShortTilePacks);

// Whether the launcher has a sub-warp kernel of `width` lanes and `per_lane` elements per lane
// (TuningPolicy::ReduceRows).
bool sub_warp_kernel_exists(int width, int per_lane) noexcept;

const char* to_string(RowStrategy strategy) noexcept;

} // namespace gpucore::gpu

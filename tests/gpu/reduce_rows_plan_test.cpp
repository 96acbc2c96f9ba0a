// SPDX-License-Identifier: Apache-2.0
// The reduce_rows planner (host only, runs without a GPU): which strategy each classic shape gets,
// and that split plans stay within the scratch.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "grid_limits.hpp"
#include "reduce_rows_plan.hpp"
#include "tuning_policy.hpp"

namespace {

using gpucore::gpu::DeviceShape;
using gpucore::gpu::plan_reduce_rows;
using gpucore::gpu::RowPlan;
using gpucore::gpu::RowStrategy;
using gpucore::gpu::TuningPolicy;

const DeviceShape kH100{132, 32, 2048};
constexpr std::size_t kPartials = TuningPolicy::Scratch::kPartialSlots;
constexpr std::size_t kTickets = TuningPolicy::Scratch::kTicketSlots;

TEST(ReduceRowsPlan, ShortRowsShareWarps) {
    // f32 (the default element size): a lane per element up to 4 columns, then 4 lanes.
    const RowPlan p16 = plan_reduce_rows(1 << 20, 16, kH100, kPartials, kTickets);
    EXPECT_EQ(p16.strategy, RowStrategy::sub_warp);
    EXPECT_EQ(p16.logical_width, 4);
    EXPECT_EQ(p16.per_lane, 8);
    const RowPlan p17 = plan_reduce_rows(100, 17, kH100, kPartials, kTickets);
    EXPECT_EQ(p17.logical_width, 4);
    EXPECT_EQ(p17.per_lane, 8);
    EXPECT_EQ(plan_reduce_rows(100, 5, kH100, kPartials, kTickets).logical_width, 4);
    EXPECT_EQ(plan_reduce_rows(100, 5, kH100, kPartials, kTickets).per_lane, 2);
    EXPECT_EQ(plan_reduce_rows(100, 0, kH100, kPartials, kTickets).logical_width, 1);
    EXPECT_EQ(plan_reduce_rows(100, 1, kH100, kPartials, kTickets).logical_width, 1);
}

TEST(ReduceRowsPlan, ShortRowShapesByColumnsAndElementSize) {
    struct Want {
        std::size_t cols, element_bytes;
        int width, per_lane;
    };
    for (const Want& w : {Want{64, 4, 8, 8}, Want{33, 4, 8, 8}, Want{32, 4, 4, 8}, Want{7, 4, 4, 2},
                          Want{8, 4, 4, 2}, Want{9, 4, 4, 8}, Want{64, 8, 8, 8}, Want{32, 8, 4, 8},
                          Want{16, 8, 4, 8}, Want{7, 8, 4, 4}, Want{4, 8, 4, 1}, Want{64, 2, 8, 8},
                          Want{48, 2, 8, 8}, Want{32, 2, 4, 8}, Want{16, 2, 4, 4}, Want{8, 2, 4, 2},
                          Want{3, 2, 4, 1}, Want{2, 4, 2, 1}}) {
        const RowPlan p = plan_reduce_rows(1 << 20, w.cols, kH100, kPartials, kTickets, 0, w.element_bytes);
        EXPECT_EQ(p.strategy, RowStrategy::sub_warp) << w.cols << " x " << w.element_bytes << " bytes";
        EXPECT_EQ(p.logical_width, w.width) << w.cols << " x " << w.element_bytes << " bytes";
        EXPECT_EQ(p.per_lane, w.per_lane) << w.cols << " x " << w.element_bytes << " bytes";
        EXPECT_TRUE(gpucore::gpu::sub_warp_kernel_exists(p.logical_width, p.per_lane));
        EXPECT_GE(static_cast<std::size_t>(p.logical_width * p.per_lane), w.cols);
    }
    EXPECT_NE(plan_reduce_rows(1 << 20, 65, kH100, kPartials, kTickets).strategy, RowStrategy::sub_warp);
}

// Sub-warp grids hold at most the resident blocks (132 SMs x 8 blocks of 256 threads), except for
// 2^20 rows or more of 200 bytes or more: a block for every 32 rows (8 lanes, 1 row in flight).
TEST(ReduceRowsPlan, SubWarpGridIsWholeForManyRowsOf200BytesOrMore) {
    const auto grid = [](std::size_t rows, std::size_t cols, std::size_t bytes) {
        const RowPlan p = plan_reduce_rows(rows, cols, kH100, kPartials, kTickets, 0, bytes);
        EXPECT_EQ(p.strategy, RowStrategy::sub_warp) << rows << " x " << cols << " x " << bytes;
        return p.grid;
    };
    EXPECT_EQ(grid(1 << 22, 63, 4), (1u << 22) / 32);
    EXPECT_EQ(grid(1 << 20, 50, 4), (1u << 20) / 32);
    EXPECT_EQ(grid((1 << 20) + 1, 64, 4), (1u << 20) / 32 + 1);
    EXPECT_EQ(grid(1 << 22, 25, 8), (1u << 22) / 64);      // 4 lanes of 8: 64 rows per pass
    EXPECT_EQ(grid(1 << 22, 49, 4), 1056u);                // 196 bytes
    EXPECT_EQ(grid((1 << 20) - 1, 64, 4), 1056u);          // fewer rows
    EXPECT_EQ(grid(1 << 22, 64, 2), 1056u);                // 128 bytes
    EXPECT_EQ(grid(1 << 22, 24, 8), 1056u);                // 192 bytes
    EXPECT_EQ(grid(1000, 64, 4), 32u);                     // fewer rows than the resident blocks take
}

TEST(ReduceRowsPlan, SubWarpPlansForEveryElementsPerLane) {
    using gpucore::gpu::sub_warp_row_plan;
    const RowPlan one = sub_warp_row_plan(1000, 32, 1, kH100);
    EXPECT_EQ(one.logical_width, 32);
    EXPECT_EQ(one.per_lane, 1);
    const RowPlan four = sub_warp_row_plan(1000, 32, 4, kH100);
    EXPECT_EQ(four.logical_width, 8);
    EXPECT_EQ(four.per_lane, 4);
    EXPECT_EQ(sub_warp_row_plan(1000, 3, 8, kH100).logical_width, 4); // the narrowest strided kernel
    EXPECT_EQ(sub_warp_row_plan(1000, 64, 1, kH100).logical_width, 0); // no 64-lane sub-warp
    EXPECT_EQ(sub_warp_row_plan(1000, 64, 3, kH100).logical_width, 0); // not a power of two
}

TEST(ReduceRowsPlan, ManyMediumRowsGetAWarpEach) {
    EXPECT_EQ(plan_reduce_rows(100000, 1000, kH100, kPartials, kTickets).strategy,
              RowStrategy::warp_per_row);
}

// Rows under 8 KiB: a warp each once there are 4 rows per SM (528 here) up to 2048 columns, 8
// (1056) up to 16384; a block each below that.
// Longer rows that are not whole 16-byte packs keep a warp each, unless their elements are 8 bytes.
TEST(ReduceRowsPlan, ManyRowsUnder8KiBGetAWarpEach) {
    struct Case {
        std::size_t rows, cols, bytes;
        RowStrategy want;
    };
    const Case cases[] = {
        {1056, 2047, 4, RowStrategy::warp_per_row},  {1056, 4095, 2, RowStrategy::warp_per_row},
        {1056, 1023, 8, RowStrategy::warp_per_row},  {528, 2047, 4, RowStrategy::warp_per_row},
        {527, 2047, 4, RowStrategy::block_per_row},  {1056, 3000, 2, RowStrategy::warp_per_row},
        {1055, 3000, 2, RowStrategy::block_per_row}, {528, 2049, 2, RowStrategy::block_per_row},
        {3353, 5003, 4, RowStrategy::warp_per_row},  {3353, 5003, 2, RowStrategy::warp_per_row},
        {53654, 5003, 4, RowStrategy::warp_per_row}, {3353, 5003, 8, RowStrategy::block_per_row},
        {3353, 5004, 4, RowStrategy::block_per_row}};
    for (const Case& c : cases) {
        EXPECT_EQ(plan_reduce_rows(c.rows, c.cols, kH100, kPartials, kTickets, 0, c.bytes).strategy, c.want)
            << c.rows << " x " << c.cols << " x " << c.bytes;
    }
}

// Rows of 8 KiB and more, and rows that no warp rule takes, where no split rule applies: one lean
// block each (kLeanRowPacks), unsplit, whatever the element size.
TEST(ReduceRowsPlan, RowsOf8KiBAndMoreGetALeanBlockEach) {
    for (const auto& [rows, cols, bytes] : std::vector<std::tuple<std::size_t, std::size_t, std::size_t>>{
             {4096, 4096, 4}, {2048, 8192, 4}, {8192, 2048, 4}, {16384, 16384, 4}, {1 << 20, 2048, 4},
             {4096, 4096, 2}, {2048, 1024, 8}, {100000, 16385, 4}, {1000, 100003, 4}, {527, 2047, 4}}) {
        const RowPlan p = plan_reduce_rows(rows, cols, kH100, kPartials, kTickets, 0, bytes);
        EXPECT_EQ(p.strategy, RowStrategy::block_per_row) << rows << " x " << cols << " x " << bytes;
        EXPECT_EQ(p.split, 1u) << rows << " x " << cols << " x " << bytes;
        EXPECT_EQ(p.per_lane, TuningPolicy::ReduceRows::kLeanRowPacks) << rows << " x " << cols << " x " << bytes;
        EXPECT_EQ(p.grid, rows) << rows << " x " << cols << " x " << bytes;
    }
    EXPECT_EQ(gpucore::gpu::lean_row_plan(77, 128).per_lane, TuningPolicy::ReduceRows::kLeanRowPacks);
    EXPECT_EQ(gpucore::gpu::lean_row_plan(77, 128).grid, 77u);
    EXPECT_EQ(gpucore::gpu::lean_row_plan(77, 64).lean_threads, 64);
    EXPECT_EQ(gpucore::gpu::lean_row_plan(77, 100).lean_threads, 128); // no kernel has 100
}

// Lean rows of 12 to 20 KiB take blocks of 64 threads, other lean rows blocks of 128.
TEST(ReduceRowsPlan, LeanRowsOf12To20KiBTakeHalfSizeBlocks) {
    const auto threads = [](std::size_t rows, std::size_t cols, std::size_t bytes) {
        const RowPlan p = plan_reduce_rows(rows, cols, kH100, kPartials, kTickets, 0, bytes);
        EXPECT_EQ(p.strategy, RowStrategy::block_per_row) << rows << " x " << cols << " x " << bytes;
        EXPECT_EQ(p.per_lane, TuningPolicy::ReduceRows::kLeanRowPacks) << rows << " x " << cols;
        return p.lean_threads;
    };
    EXPECT_EQ(threads(4096, 4096, 4), 64);   // 16 KiB
    EXPECT_EQ(threads(8192, 2048, 8), 64);   // 16 KiB
    EXPECT_EQ(threads(4096, 8192, 2), 64);   // 16 KiB
    EXPECT_EQ(threads(5461, 3072, 4), 64);   // 12 KiB
    EXPECT_EQ(threads(3276, 5120, 4), 64);   // 20 KiB
    EXPECT_EQ(threads(3276, 5124, 4), 128);  // just over 20 KiB
    EXPECT_EQ(threads(6553, 3068, 4), 128);  // just under 12 KiB
    EXPECT_EQ(threads(8192, 2048, 4), 128);  // 8 KiB
    EXPECT_EQ(threads(2048, 8192, 4), 128);  // 32 KiB
    EXPECT_EQ(threads(2048, 1 << 17, 4), 128);
    EXPECT_EQ(threads(3353, 2003, 8), 64);   // 16024 B of 8-byte elements, not whole packs
}

// Unsplit rows of whole packs of 4- or 8-byte elements, 16 KiB or longer, outside the few-long-rows
// rule: the tile blocks (the lean blocks stay planned for inputs off 16 bytes).
TEST(ReduceRowsPlan, UnsplitRowsOf16KiBOrMoreTakeTileBlocks) {
    const auto tile = [](std::size_t rows, std::size_t cols, std::size_t bytes, std::size_t wave = 0) {
        const RowPlan p = plan_reduce_rows(rows, cols, kH100, kPartials, kTickets, wave, bytes);
        if (p.tile_threads > 0) {
            EXPECT_EQ(p.strategy, RowStrategy::block_per_row) << rows << " x " << cols << " x " << bytes;
            EXPECT_EQ(p.split, 1u) << rows << " x " << cols << " x " << bytes;
            EXPECT_GT(p.lean_threads, 0) << rows << " x " << cols << " x " << bytes;
            EXPECT_EQ(p.grid, rows) << rows << " x " << cols << " x " << bytes;
        }
        return p.tile_threads;
    };
    constexpr int kTile = TuningPolicy::ReduceRows::kTileRowThreads;
    EXPECT_EQ(tile(4096, 4096, 4), kTile);      // 16 KiB
    EXPECT_EQ(tile(16384, 4096, 4), kTile);
    EXPECT_EQ(tile(2048, 8192, 4), kTile);      // 32 KiB
    EXPECT_EQ(tile(1024, 16384, 4), kTile);     // 64 KiB, fewer rows than a wave but unsplit
    EXPECT_EQ(tile(4096, 2048, 8), kTile);      // 16 KiB of 8-byte elements
    EXPECT_EQ(tile(3276, 5124, 4), kTile);      // 20496 B: whole packs
    EXPECT_EQ(tile(4096, 4092, 4), 0);          // just under 16 KiB
    EXPECT_EQ(tile(5461, 3072, 4), 0);          // 12 KiB
    EXPECT_EQ(tile(2048, 8193, 4), 0);          // not whole packs (a warp per row)
    EXPECT_EQ(tile(3353, 2003, 8), 0);          // not whole packs
    EXPECT_EQ(tile(4096, 8192, 2), 0);          // 2-byte elements
    EXPECT_EQ(tile(256, 1 << 16, 4, 132 * 3), 0); // few long rows: the wide lean blocks
    EXPECT_EQ(tile(8, std::size_t{1} << 26, 4), 0); // split
    EXPECT_EQ(tile(2000, std::size_t{1} << 33, 4), 0); // 2^31 packs a row: past 32-bit positions
    EXPECT_EQ(tile(2000, (std::size_t{1} << 33) - 4, 4), kTile);
    const RowPlan forced = gpucore::gpu::tile_row_plan(77);
    EXPECT_EQ(forced.tile_threads, kTile);
    EXPECT_EQ(forced.lean_threads, TuningPolicy::ReduceRows::kLeanRowThreads);
    EXPECT_EQ(forced.grid, 77u);
}

// Fewer lean rows than 4 per SM (528 on 132 SMs), of 64 KiB or more: blocks of 256 threads.
TEST(ReduceRowsPlan, FewLeanRowsOf64KiBOrMoreTakeWideBlocks) {
    const auto threads = [](std::size_t rows, std::size_t cols, std::size_t bytes) {
        const RowPlan p = plan_reduce_rows(rows, cols, kH100, kPartials, kTickets, 132 * 3, bytes);
        EXPECT_EQ(p.strategy, RowStrategy::block_per_row) << rows << " x " << cols << " x " << bytes;
        EXPECT_EQ(p.split, 1u) << rows << " x " << cols << " x " << bytes;
        EXPECT_EQ(p.per_lane, TuningPolicy::ReduceRows::kLeanRowPacks) << rows << " x " << cols;
        return p.lean_threads;
    };
    EXPECT_EQ(threads(256, 1 << 16, 4), 256);
    EXPECT_EQ(threads(527, 1 << 15, 4), 256);
    EXPECT_EQ(threads(512, 1 << 15, 2), 256);  // 64 KiB
    EXPECT_EQ(threads(264, 1 << 16, 8), 256);
    EXPECT_EQ(threads(528, 1 << 15, 4), 128);  // 4 rows per SM
    EXPECT_EQ(threads(512, 16380, 4), 128);    // just under 64 KiB
    EXPECT_EQ(threads(500, 4096, 4), 64);      // 16 KiB
}

// A warp per row keeps 4 packs per lane in flight on rows of 1, 2 or 4 KiB, and on every row of
// 8-byte elements from 1 KiB on; 2 on other rows.
TEST(ReduceRowsPlan, WarpRowsOfWholeKiBsKeepMorePacksInFlight) {
    const auto packs = [](std::size_t rows, std::size_t cols, std::size_t bytes) {
        const RowPlan p = plan_reduce_rows(rows, cols, kH100, kPartials, kTickets, 0, bytes);
        EXPECT_EQ(p.strategy, RowStrategy::warp_per_row) << rows << " x " << cols;
        return p.per_lane;
    };
    EXPECT_EQ(packs(1 << 16, 256, 4), 4);   // 1 KiB
    EXPECT_EQ(packs(1 << 16, 128, 8), 4);   // 1 KiB
    EXPECT_EQ(packs(1 << 16, 2048, 2), 4);  // 4 KiB
    EXPECT_EQ(packs(1 << 16, 1024, 4), 4);  // 4 KiB
    EXPECT_EQ(packs(1 << 16, 128, 4), 2);   // 512 B
    EXPECT_EQ(packs(1 << 16, 1000, 4), 2);  // not a power of two
    EXPECT_EQ(packs(1 << 16, 768, 4), 2);   // 3 KiB
    EXPECT_EQ(packs(1 << 16, 2047, 4), 2);  // just under 8 KiB
    EXPECT_EQ(packs(1 << 16, 1000, 8), 4);  // 8000 B of 8-byte elements
    EXPECT_EQ(packs(1 << 16, 100, 8), 2);   // 800 B
    EXPECT_EQ(warp_row_plan(100, 3, kH100).per_lane, 2); // no kernel keeps 3
}

TEST(ReduceRowsPlan, ManyLongRowsGetABlockEach) {
    const RowPlan p = plan_reduce_rows(2048, 262144, kH100, kPartials, kTickets);
    EXPECT_EQ(p.strategy, RowStrategy::block_per_row);
    EXPECT_EQ(p.split, 1u);
    EXPECT_EQ(p.grid, 2048u);
    EXPECT_EQ(p.per_lane, TuningPolicy::ReduceRows::kLeanRowPacks);
}

TEST(ReduceRowsPlan, FewLongRowsAreSplitWithinTheScratch) {
    const RowPlan p = plan_reduce_rows(8, std::size_t{1} << 26, kH100, kPartials, kTickets);
    EXPECT_EQ(p.strategy, RowStrategy::block_per_row);
    EXPECT_GT(p.split, 1u);
    EXPECT_LE(8 * p.split, kPartials);
    EXPECT_GE(p.grid, 132u * 4); // fills the GPU
    const RowPlan tiny_scratch = plan_reduce_rows(8, std::size_t{1} << 26, kH100, 16, kTickets);
    EXPECT_LE(8 * tiny_scratch.split, 16u);
}

// With the split kernel's real occupancy (3 blocks per SM: 396 resident), the split grid is one
// wave at most: 8 rows x 49 blocks = 392, never 400 (4 blocks alone in a second wave).
TEST(ReduceRowsPlan, SplitGridFitsOneWaveOfTheSplitKernel) {
    const std::size_t wave = 132 * 3;
    const RowPlan p = plan_reduce_rows(8, std::size_t{1} << 26, kH100, kPartials, kTickets, wave);
    EXPECT_EQ(p.split, 49u);
    EXPECT_EQ(p.grid, 392u);
    const RowPlan three = plan_reduce_rows(3, std::size_t{1} << 26, kH100, kPartials, kTickets, wave);
    EXPECT_EQ(three.grid, wave);
    // As many rows as the wave: one block each.
    EXPECT_EQ(plan_reduce_rows(wave, std::size_t{1} << 20, kH100, kPartials, kTickets, wave).split,
              1u);
}

// Fewer long rows than 2 per SM, each over 2^19 elements: split into pieces of 2^18, at most 4,
// even where one wave of the split kernel holds them all unsplit.
TEST(ReduceRowsPlan, LongRowsTooFewForTwoPerSmAreSplitIntoPieces) {
    const std::size_t wave = 132 * 3;
    EXPECT_EQ(plan_reduce_rows(256, std::size_t{1} << 20, kH100, kPartials, kTickets, wave).split, 4u);
    EXPECT_EQ(plan_reduce_rows(256, std::size_t{1} << 20, kH100, kPartials, kTickets, wave).grid, 1024u);
    EXPECT_EQ(plan_reduce_rows(263, std::size_t{1} << 19, kH100, kPartials, kTickets, wave).split, 2u);
    EXPECT_EQ(plan_reduce_rows(256, std::size_t{1} << 24, kH100, kPartials, kTickets, wave).split, 4u);
    // Shorter rows, or 2 rows per SM: one block each.
    EXPECT_EQ(plan_reduce_rows(256, std::size_t{1} << 16, kH100, kPartials, kTickets, wave).split, 1u);
    EXPECT_EQ(plan_reduce_rows(256, (std::size_t{1} << 19) - 1, kH100, kPartials, kTickets, wave).split, 1u);
    EXPECT_EQ(plan_reduce_rows(264, std::size_t{1} << 20, kH100, kPartials, kTickets, wave).split, 1u);
    // Too short to split: one lean block per row.
    EXPECT_EQ(plan_reduce_rows(256, std::size_t{1} << 16, kH100, kPartials, kTickets, wave).per_lane,
              TuningPolicy::ReduceRows::kLeanRowPacks);
    EXPECT_EQ(plan_reduce_rows(264, std::size_t{1} << 16, kH100, kPartials, kTickets, wave).per_lane,
              TuningPolicy::ReduceRows::kLeanRowPacks);
    // A split that fills the wave already stays (8 rows x 49 blocks, 128 rows x 3).
    EXPECT_EQ(plan_reduce_rows(128, std::size_t{1} << 21, kH100, kPartials, kTickets, wave).split, 3u);
    EXPECT_EQ(plan_reduce_rows(8, std::size_t{1} << 26, kH100, kPartials, kTickets, wave).split, 49u);
}

// The threads per block the plan's kernel launches with.
int block_threads(const RowPlan& p) {
    using Policy = TuningPolicy::ReduceRows;
    switch (p.strategy) {
    case RowStrategy::sub_warp: return Policy::kSubWarpThreads;
    case RowStrategy::warp_per_row: return Policy::kWarpRowThreads;
    case RowStrategy::block_per_row: break;
    }
    if (p.tile_threads > 0) return p.tile_threads;
    return p.lean_threads > 0 ? p.lean_threads : Policy::kBlockThreads;
}

// CUDA runs at most 2^31 - 1 blocks, HIP at most 2^32 - 1 work-items along x (grid_limits.hpp):
// more rows than either holds still get a grid both run, whose blocks stride over the rest.
TEST(ReduceRowsPlan, GridsOfEveryStrategyStayWithinEveryVendorsLaunchLimit) {
    constexpr std::size_t kWorkItems = std::numeric_limits<std::uint32_t>::max();
    for (const std::size_t rows : {std::size_t{1} << 33, std::size_t{1} << 40}) {
        for (const std::size_t cols : {1, 4, 16, 33, 64, 100, 1000, 5000, 1 << 14}) {
            for (const std::size_t element_bytes : {2, 4, 8}) {
                const RowPlan p = plan_reduce_rows(rows, cols, kH100, kPartials, kTickets, 0, element_bytes);
                SCOPED_TRACE(::testing::Message() << rows << " x " << cols << ", " << element_bytes << "-byte elements");
                EXPECT_GE(p.grid, 1u);
                EXPECT_LE(p.grid, static_cast<std::size_t>(INT_MAX));
                EXPECT_LE(p.grid * static_cast<std::size_t>(block_threads(p)), kWorkItems);
            }
        }
    }
    EXPECT_EQ(gpucore::gpu::capped_grid(0, 256), 1u);
    EXPECT_EQ(gpucore::gpu::capped_grid(1000, 256), 1000u);
    EXPECT_EQ(gpucore::gpu::capped_grid(std::size_t{1} << 40, 256), kWorkItems / 256);
    EXPECT_EQ(gpucore::gpu::capped_grid(std::size_t{1} << 40, 1), static_cast<unsigned int>(INT_MAX));
}

TEST(ReduceRowsPlan, ShortRowsNeverSplit) {
    const RowPlan p = plan_reduce_rows(3, 40, kH100, kPartials, kTickets);
    EXPECT_EQ(p.split, 1u);
    EXPECT_GE(p.grid, 1u);
}

} // namespace

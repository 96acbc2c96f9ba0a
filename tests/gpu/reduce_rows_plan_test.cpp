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
    EXPECT_EQ(plan_reduce_rows(100000, 500, kH100, kPartials, kTickets).strategy, RowStrategy::warp_per_row);
    EXPECT_EQ(plan_reduce_rows(100000, 1000, kH100, kPartials, kTickets, 0, 2).strategy, RowStrategy::warp_per_row);
}

// Rows that no tile or lean rule takes (up to 2 KiB; under 4 KiB outside the short tiles; 8 KiB and
// more of 2-byte elements, not whole packs): a warp each once there are 4 rows per SM (528 here) up
// to 2048 columns, 8 (1056) up to 16384; a block each below that. The short tiles take whole packs
// of 4- and 8-byte elements from an input on 16 bytes over 2 KiB, the lean blocks any row from
// 4 KiB, and rows of 4-byte elements that are not whole packs up to 20 KiB.
TEST(ReduceRowsPlan, RowsNoTileOrLeanRuleTakesGetAWarpEach) {
    struct Case {
        std::size_t rows, cols, bytes;
        bool on_packs;
        RowStrategy want;
    };
    const Case cases[] = {
        {1056, 2047, 2, true, RowStrategy::warp_per_row},  {528, 2047, 2, true, RowStrategy::warp_per_row},
        {527, 2047, 2, true, RowStrategy::block_per_row},  {1056, 512, 4, true, RowStrategy::warp_per_row},
        {1056, 752, 4, false, RowStrategy::warp_per_row},  {1056, 752, 4, true, RowStrategy::block_per_row},
        {1056, 1023, 4, true, RowStrategy::warp_per_row},  {1056, 1025, 4, true, RowStrategy::block_per_row},
        {1056, 258, 8, true, RowStrategy::block_per_row},  {1056, 258, 8, false, RowStrategy::warp_per_row},
        {1056, 750, 4, true, RowStrategy::warp_per_row},
        {1056, 2048, 2, true, RowStrategy::block_per_row}, {1056, 4095, 2, true, RowStrategy::block_per_row},
        {1056, 1023, 8, true, RowStrategy::block_per_row}, {1056, 5003, 2, true, RowStrategy::warp_per_row},
        {1055, 5003, 2, true, RowStrategy::block_per_row}, {3353, 5003, 4, true, RowStrategy::block_per_row},
        {3353, 5121, 4, true, RowStrategy::warp_per_row},  {3353, 5003, 8, true, RowStrategy::block_per_row},
        {3353, 5004, 4, true, RowStrategy::block_per_row}};
    for (const Case& c : cases) {
        EXPECT_EQ(plan_reduce_rows(c.rows, c.cols, kH100, kPartials, kTickets, 0, c.bytes, c.on_packs).strategy,
                  c.want)
            << c.rows << " x " << c.cols << " x " << c.bytes << (c.on_packs ? "" : ", input off 16 bytes");
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

// Lean rows of 4 to 20 KiB take blocks of 64 threads but those of exactly 8 KiB, rows of 128 KiB
// or more blocks of 256, other lean rows blocks of 128 (inputs off 16 bytes: no tiles).
TEST(ReduceRowsPlan, LeanRowsOf4To20KiBTakeHalfSizeBlocks) {
    const auto threads = [](std::size_t rows, std::size_t cols, std::size_t bytes) {
        const RowPlan p = plan_reduce_rows(rows, cols, kH100, kPartials, kTickets, 0, bytes, false);
        EXPECT_EQ(p.strategy, RowStrategy::block_per_row) << rows << " x " << cols << " x " << bytes;
        EXPECT_EQ(p.per_lane, TuningPolicy::ReduceRows::kLeanRowPacks) << rows << " x " << cols;
        EXPECT_EQ(p.tile_threads, 0) << rows << " x " << cols << " x " << bytes;
        return p.lean_threads;
    };
    EXPECT_EQ(threads(4096, 4096, 4), 64);   // 16 KiB
    EXPECT_EQ(threads(8192, 2048, 8), 64);   // 16 KiB
    EXPECT_EQ(threads(4096, 8192, 2), 64);   // 16 KiB
    EXPECT_EQ(threads(5461, 3072, 4), 64);   // 12 KiB
    EXPECT_EQ(threads(3276, 5120, 4), 64);   // 20 KiB
    EXPECT_EQ(threads(3276, 5124, 4), 128);  // just over 20 KiB
    EXPECT_EQ(threads(6553, 3068, 4), 64);   // just under 12 KiB
    EXPECT_EQ(threads(16384, 1024, 4), 64);  // 4 KiB
    EXPECT_EQ(threads(16384, 2048, 2), 64);  // 4 KiB
    EXPECT_EQ(threads(16384, 2049, 4), 64);  // just over 8 KiB
    EXPECT_EQ(threads(8192, 2048, 4), 128);  // 8 KiB
    EXPECT_EQ(threads(8192, 4096, 2), 128);  // 8 KiB
    EXPECT_EQ(threads(2048, 8192, 4), 128);  // 32 KiB
    EXPECT_EQ(threads(2048, 32764, 4), 128); // just under 128 KiB
    EXPECT_EQ(threads(2048, 32768, 4), 256); // 128 KiB
    EXPECT_EQ(threads(2048, 1 << 17, 4), 256);
    EXPECT_EQ(threads(3353, 2003, 8), 64);   // 16024 B of 8-byte elements, not whole packs
}

// Whole packs of 4- or 8-byte elements over 2 KiB and under 16 KiB (8-byte rows of exactly 8 KiB
// excepted), from an input on 16 bytes, many rows or few: the short tiles; 64 threads of 4 packs up
// to 3 KiB (5 KiB for 8-byte elements); above, 4-byte elements 128 threads of 4 packs up to 6 KiB
// and 256 beyond, 8-byte ones 128 threads of 2 packs.
TEST(ReduceRowsPlan, RowsOf2To16KiBTakeShortTiles) {
    const auto tile = [](std::size_t rows, std::size_t cols, std::size_t bytes, bool on_packs = true) {
        const RowPlan p = plan_reduce_rows(rows, cols, kH100, kPartials, kTickets, 0, bytes, on_packs);
        if (p.tile_packs == TuningPolicy::ReduceRows::kTileRowPacks) return 0; // the long tiles
        if (p.tile_threads > 0) {
            EXPECT_EQ(p.strategy, RowStrategy::block_per_row) << rows << " x " << cols << " x " << bytes;
            EXPECT_EQ(p.split, 1u) << rows << " x " << cols << " x " << bytes;
            EXPECT_EQ(p.tile_packs, bytes == 8 && p.tile_threads == 128 ? TuningPolicy::ReduceRows::kShortTilePacks8
                                                                        : TuningPolicy::ReduceRows::kShortTilePacks)
                << rows << " x " << cols << " x " << bytes;
            EXPECT_EQ(p.grid, rows) << rows << " x " << cols << " x " << bytes;
            EXPECT_GT(p.lean_threads, 0) << rows << " x " << cols << " x " << bytes;
        }
        return p.tile_threads;
    };
    EXPECT_EQ(tile(32768, 516, 4), 64);      // 2064 B
    EXPECT_EQ(tile(16, 516, 4), 64);         // few rows
    EXPECT_EQ(tile(32768, 768, 4), 64);      // 3 KiB
    EXPECT_EQ(tile(32768, 772, 4), 128);
    EXPECT_EQ(tile(32768, 1536, 4), 128);    // 6 KiB
    EXPECT_EQ(tile(32768, 1540, 4), 256);
    EXPECT_EQ(tile(32768, 2048, 4), 256);    // 8 KiB
    EXPECT_EQ(tile(32768, 4092, 4), 256);    // just under 16 KiB
    EXPECT_EQ(tile(32768, 260, 8), 64);      // 2080 B
    EXPECT_EQ(tile(32768, 640, 8), 64);      // 5 KiB
    EXPECT_EQ(tile(32768, 642, 8), 128);
    EXPECT_EQ(tile(32768, 1022, 8), 128);
    EXPECT_EQ(tile(32768, 1024, 8), 0);      // 8 KiB of 8-byte elements: the lean blocks
    EXPECT_EQ(tile(32768, 1026, 8), 128);
    EXPECT_EQ(tile(32768, 2046, 8), 128);    // just under 16 KiB
    EXPECT_EQ(tile(32768, 512, 4), 0);       // 2 KiB: a warp each
    EXPECT_EQ(tile(32768, 256, 8), 0);
    EXPECT_EQ(tile(32768, 2048, 8), 0);      // 16 KiB: the long tile blocks
    EXPECT_EQ(tile(32768, 1025, 4), 0);      // not whole packs
    EXPECT_EQ(tile(32768, 2048, 2), 0);      // 2-byte elements
    EXPECT_EQ(tile(32768, 1024, 4, false), 0); // input off 16 bytes
    const RowPlan forced = gpucore::gpu::short_tile_row_plan(77, 128);
    EXPECT_EQ(forced.tile_threads, 128);
    EXPECT_EQ(forced.tile_packs, TuningPolicy::ReduceRows::kShortTilePacks);
    EXPECT_EQ(forced.lean_threads, TuningPolicy::ReduceRows::kLeanMidRowThreads);
    EXPECT_EQ(forced.grid, 77u);
    EXPECT_EQ(gpucore::gpu::short_tile_row_plan(77, 100).tile_threads, 64); // no kernel has 100
    const RowPlan pairs = gpucore::gpu::short_tile_row_plan(77, 64, TuningPolicy::ReduceRows::kShortTilePacks8);
    EXPECT_EQ(pairs.tile_threads, 128); // the one shape of 2 packs
    EXPECT_EQ(pairs.tile_packs, TuningPolicy::ReduceRows::kShortTilePacks8);
    EXPECT_EQ(gpucore::gpu::short_tile_row_plan(77, 256, 3).tile_packs, TuningPolicy::ReduceRows::kShortTilePacks);
}

// Unsplit rows of whole packs of 4- or 8-byte elements, 16 KiB or longer but under 128 KiB, outside
// the few-long-rows rule: the tile blocks (the lean blocks stay planned for inputs off 16 bytes).
TEST(ReduceRowsPlan, UnsplitRowsOf16To128KiBTakeTileBlocks) {
    constexpr int kTile = TuningPolicy::ReduceRows::kTileRowThreads;
    const auto tile = [](std::size_t rows, std::size_t cols, std::size_t bytes, std::size_t wave = 0) {
        const RowPlan p = plan_reduce_rows(rows, cols, kH100, kPartials, kTickets, wave, bytes);
        if (p.tile_threads > 0) {
            EXPECT_EQ(p.strategy, RowStrategy::block_per_row) << rows << " x " << cols << " x " << bytes;
            EXPECT_EQ(p.split, 1u) << rows << " x " << cols << " x " << bytes;
            EXPECT_GT(p.lean_threads, 0) << rows << " x " << cols << " x " << bytes;
            EXPECT_EQ(p.grid, rows) << rows << " x " << cols << " x " << bytes;
        }
        return p.tile_packs == TuningPolicy::ReduceRows::kTileRowPacks ? p.tile_threads : 0;
    };
    EXPECT_EQ(tile(4096, 4096, 4), kTile);      // 16 KiB
    EXPECT_EQ(tile(16384, 4096, 4), kTile);
    EXPECT_EQ(tile(2048, 8192, 4), kTile);      // 32 KiB
    EXPECT_EQ(tile(1024, 16384, 4), kTile);     // 64 KiB, fewer rows than a wave but unsplit
    EXPECT_EQ(tile(4096, 2048, 8), kTile);      // 16 KiB of 8-byte elements
    EXPECT_EQ(tile(3276, 5124, 4), kTile);      // 20496 B: whole packs
    EXPECT_EQ(tile(4096, 4092, 4), 0);          // just under 16 KiB: the short tiles
    EXPECT_EQ(tile(2048, 32764, 4), kTile);     // just under 128 KiB
    EXPECT_EQ(tile(2048, 8193, 4), 0);          // not whole packs (a warp per row)
    EXPECT_EQ(tile(3353, 2003, 8), 0);          // not whole packs
    EXPECT_EQ(tile(4096, 8192, 2), 0);          // 2-byte elements
    EXPECT_EQ(tile(256, 1 << 16, 4, 132 * 3), 0); // few long rows: the wide lean blocks
    EXPECT_EQ(tile(8, std::size_t{1} << 26, 4), 0); // split
    EXPECT_EQ(tile(2048, 32768, 4), 0);         // 128 KiB: the wide lean blocks
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
    EXPECT_EQ(threads(528, 1 << 13, 8), 128);  // 4 rows per SM
    EXPECT_EQ(threads(528, 1 << 15, 4), 256);  // 4 rows per SM, but 128 KiB
    EXPECT_EQ(threads(512, 16380, 4), 128);    // just under 64 KiB
    EXPECT_EQ(threads(500, 4096, 4), 64);      // 16 KiB
}

// A warp per row keeps 4 packs per lane in flight on rows of 1, 2 or 4 KiB, on every row of 8-byte
// elements from 1 KiB on, on rows of 4-byte elements over 1 KiB up to 2 KiB and on rows of 2-byte
// ones over 1 KiB and under 1.5 KiB; 2 on other rows (those of 2 to 16 KiB that the short tiles
// take from an input on 16 bytes are given here off it).
TEST(ReduceRowsPlan, WarpRowsOf1To2KiBKeepMorePacksInFlight) {
    const auto packs = [](std::size_t rows, std::size_t cols, std::size_t bytes) {
        const RowPlan p = plan_reduce_rows(rows, cols, kH100, kPartials, kTickets, 0, bytes, false);
        EXPECT_EQ(p.strategy, RowStrategy::warp_per_row) << rows << " x " << cols;
        return p.per_lane;
    };
    EXPECT_EQ(packs(1 << 16, 256, 4), 4);   // 1 KiB
    EXPECT_EQ(packs(1 << 16, 128, 8), 4);   // 1 KiB
    EXPECT_EQ(packs(1 << 16, 1024, 2), 4);  // 2 KiB
    EXPECT_EQ(packs(1 << 16, 512, 4), 4);   // 2 KiB
    EXPECT_EQ(packs(1 << 16, 260, 4), 4);   // 1040 B
    EXPECT_EQ(packs(1 << 16, 450, 4), 4);   // 1800 B
    EXPECT_EQ(packs(1 << 16, 520, 2), 4);   // 1040 B
    EXPECT_EQ(packs(1 << 16, 767, 2), 4);   // 1534 B
    EXPECT_EQ(packs(1 << 16, 768, 2), 2);   // 1.5 KiB
    EXPECT_EQ(packs(1 << 16, 1000, 2), 2);  // 2000 B
    EXPECT_EQ(packs(1 << 16, 128, 4), 2);   // 512 B
    EXPECT_EQ(packs(1 << 16, 256, 2), 2);   // 512 B
    EXPECT_EQ(packs(1 << 16, 768, 4), 2);   // 3 KiB
    EXPECT_EQ(packs(1 << 16, 1023, 4), 2);  // just under 4 KiB
    EXPECT_EQ(packs(1 << 16, 400, 8), 4);   // 3200 B of 8-byte elements
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

// Few long rows stay unsplit, one wide lean block each, where they fill enough SMs: half of them
// (66 here) for rows up to 256 KiB, 3/4 (99) up to 512 KiB, all (132) up to 2 MiB, 5/4 (165)
// beyond. Fewer are split over a wave of the split kernel; where that wave holds them unsplit and
// there are fewer than 2 per SM, rows over 2^19 elements are split into pieces of 2^18, at most 4.
TEST(ReduceRowsPlan, FewLongRowsSplitUnlessTheyFillEnoughSms) {
    const auto split = [](std::size_t rows, std::size_t cols, std::size_t wave) {
        const RowPlan p = plan_reduce_rows(rows, cols, kH100, kPartials, kTickets, wave);
        EXPECT_EQ(p.strategy, RowStrategy::block_per_row) << rows << " x " << cols;
        EXPECT_EQ(p.grid, rows * p.split) << rows << " x " << cols;
        if (p.split == 1) {
            EXPECT_EQ(p.lean_threads, TuningPolicy::ReduceRows::kLeanWideRowThreads) << rows << " x " << cols;
        }
        return p.split;
    };
    constexpr std::size_t kWave = 132 * 3;
    EXPECT_EQ(split(66, 1 << 16, kWave), 1u);   // 256 KiB
    EXPECT_EQ(split(65, 1 << 16, kWave), 4u);   // 2^16 / (256 x 64) elements a thread
    EXPECT_EQ(split(99, 1 << 17, kWave), 1u);   // 512 KiB
    EXPECT_EQ(split(98, 1 << 17, kWave), 4u);   // kWave / 98
    EXPECT_EQ(split(132, 1 << 19, kWave), 1u);  // 2 MiB
    EXPECT_EQ(split(131, 1 << 19, kWave), 3u);
    EXPECT_EQ(split(165, 1 << 20, kWave), 1u);  // 4 MiB
    EXPECT_EQ(split(164, 1 << 20, kWave), 2u);
    EXPECT_EQ(split(256, 1 << 24, kWave), 1u);
    // The pieces: a wave of 132 holds 100 rows unsplit.
    EXPECT_EQ(split(100, 1 << 20, 132), 4u);
    EXPECT_EQ(split(100, 1 << 19, 132), 2u);
    EXPECT_EQ(split(100, (1 << 19) - 1, 132), 1u);
    // A split that fills the wave already stays (8 rows x 49 blocks).
    EXPECT_EQ(split(8, std::size_t{1} << 26, kWave), 49u);
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

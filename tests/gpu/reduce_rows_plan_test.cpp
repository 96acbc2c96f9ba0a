// SPDX-License-Identifier: Apache-2.0
// The reduce_rows planner (host only, runs without a GPU): which strategy each classic shape gets,
// and that split plans stay within the scratch.
#include <gtest/gtest.h>

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

TEST(ReduceRowsPlan, ShortRowsShareWarpsAtTheNextPowerOfTwoWidth) {
    const RowPlan p16 = plan_reduce_rows(1 << 20, 16, kH100, kPartials, kTickets);
    EXPECT_EQ(p16.strategy, RowStrategy::sub_warp);
    EXPECT_EQ(p16.logical_width, 16);
    EXPECT_EQ(plan_reduce_rows(100, 17, kH100, kPartials, kTickets).logical_width, 32);
    EXPECT_EQ(plan_reduce_rows(100, 0, kH100, kPartials, kTickets).logical_width, 1);
    EXPECT_EQ(plan_reduce_rows(100, 1, kH100, kPartials, kTickets).logical_width, 1);
}

TEST(ReduceRowsPlan, ManyMediumRowsGetAWarpEach) {
    EXPECT_EQ(plan_reduce_rows(100000, 1000, kH100, kPartials, kTickets).strategy,
              RowStrategy::warp_per_row);
}

TEST(ReduceRowsPlan, ManyLongRowsGetABlockEach) {
    const RowPlan p = plan_reduce_rows(2048, 262144, kH100, kPartials, kTickets);
    EXPECT_EQ(p.strategy, RowStrategy::block_per_row);
    EXPECT_EQ(p.split, 1u);
    EXPECT_EQ(p.grid, 2048u);
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

TEST(ReduceRowsPlan, ShortRowsNeverSplit) {
    const RowPlan p = plan_reduce_rows(3, 40, kH100, kPartials, kTickets);
    EXPECT_EQ(p.split, 1u);
    EXPECT_GE(p.grid, 1u);
}

} // namespace

// SPDX-License-Identifier: Apache-2.0
// reduce_rows through its launcher, with the planner's choice and with each strategy forced on
// shapes it would not normally get: rows of 0, 1, odd and power-of-two lengths, few long rows,
// many short ones, row starts off 16-byte alignment.
#include "gpu_test_support.cuh"
#include "reduce_rows_plan.hpp"

namespace gpu_test {
namespace {

using gpucore::gpu::RowPlan;
using gpucore::gpu::RowStrategy;
using gpucore::gpu::TuningPolicy;

template <class T>
class ReduceRows : public GpuTest {
protected:
    // nullptr plan: the planner decides.
    // in_offset: elements between the allocation's start and the input's.
    void check(std::size_t rows, std::size_t cols, gpucore_reduce_op op, const RowPlan* plan,
               std::size_t in_offset = 0) {
        SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", op " + op_name(op) +
                     ", " + (plan ? to_string(plan->strategy) : "planned") +
                     (plan ? " split " + std::to_string(plan->split) : std::string()) +
                     ", input " + std::to_string(in_offset) + " elements in");
        const std::vector<T> input = random_values<T>(rows * cols, op);
        DeviceArray<T> in(rows * cols + in_offset), out(rows + 1);
        ASSERT_TRUE(in.ok() && out.ok());
        in.upload(input, in_offset);
        out.poison();
        const std::vector<T> poisoned = out.download(rows + 1);
        const T* first = in.data() + in_offset;
        if (plan) {
            gpucore::gpu::launch_reduce_rows_planned(dtype_of<T>(), op, first, rows, cols,
                                                     out.data(), *plan, ctx_);
        } else {
            gpucore::gpu::launch_reduce_rows(dtype_of<T>(), op, first, rows, cols, out.data(),
                                             ctx_);
        }
        sync();
        const std::vector<T> got = out.download(rows + 1);
        for (std::size_t r = 0; r < rows; ++r) {
            const T* row = input.data() + r * cols;
            const double want = reference_reduce(row, cols, op);
            ASSERT_TRUE(close_to(got[r], want, allowed_error(row, cols, op, want))) << "row " << r;
        }
        EXPECT_EQ(0, std::memcmp(&got[rows], &poisoned[rows], sizeof(T))) << "out[rows] written";
    }

    RowPlan forced(RowStrategy strategy, std::size_t rows, std::size_t cols, std::size_t split) {
        return gpucore::gpu::forced_row_plan(strategy, rows, cols, split, ctx_.device,
                                             TuningPolicy::Scratch::kPartialSlots,
                                             TuningPolicy::Scratch::kTicketSlots);
    }
};

using Types = testing::Types<float, double, std::int32_t, std::uint32_t, gpucore::half,
                               gpucore::bfloat16>;
TYPED_TEST_SUITE(ReduceRows, Types);

struct Shape {
    std::size_t rows, cols;
};

TYPED_TEST(ReduceRows, PlannedShapes) {
    const Shape shapes[] = {{1, 0},   {7, 0},     {1, 1},     {1000, 1},  {999, 3},   {777, 16},
                            {513, 17}, {100, 32}, {1000, 33}, {50, 1000}, {4097, 100}, {3, 100003},
                            {8, 1 << 20}, {2, 2049}, {600, 5000}, {1, 1 << 22}, {1000, 256}};
    for (const Shape& s : shapes) {
        for (gpucore_reduce_op op : kAllOps) this->check(s.rows, s.cols, op, nullptr);
    }
}

TYPED_TEST(ReduceRows, SubWarpAtEveryWidth) {
    for (std::size_t cols = 0; cols <= static_cast<std::size_t>(TuningPolicy::ReduceRows::kSubWarpMaxWidth);
         ++cols) {
        const RowPlan plan = this->forced(RowStrategy::sub_warp, 3001, cols, 1);
        this->check(3001, cols, GPUCORE_REDUCE_SUM, &plan);
        this->check(3001, cols, GPUCORE_REDUCE_MIN, &plan);
    }
}

TYPED_TEST(ReduceRows, SubWarpWithEveryElementsPerLane) {
    for (int per_lane = 1; per_lane <= TuningPolicy::ReduceRows::kSubWarpMaxPerLane; per_lane *= 2) {
        for (std::size_t cols = 1; cols <= static_cast<std::size_t>(TuningPolicy::ReduceRows::kSubWarpMaxCols);
             ++cols) {
            const RowPlan plan = gpucore::gpu::sub_warp_row_plan(3001, cols, per_lane, this->ctx_.device);
            if (plan.logical_width == 0) continue;
            this->check(3001, cols, GPUCORE_REDUCE_SUM, &plan);
            this->check(3001, cols, GPUCORE_REDUCE_MAX, &plan);
        }
    }
}

TYPED_TEST(ReduceRows, WarpPerRowOnAnyShape) {
    for (const Shape& s : {Shape{1, 1}, Shape{5, 7}, Shape{333, 33}, Shape{64, 5000}, Shape{2, 70001},
                           Shape{1000, 256}, Shape{301, 513}, Shape{77, 2048}}) {
        // Both kernels: 2 packs per lane in flight, and 4 (the planner's choice on rows of whole KiBs).
        using Policy = TuningPolicy::ReduceRows;
        for (int packs : {Policy::kWarpRowPacksPerThread, Policy::kWarpRowKiBRowPacks}) {
            const RowPlan plan = gpucore::gpu::warp_row_plan(s.rows, packs, this->ctx_.device);
            ASSERT_EQ(plan.per_lane, packs);
            this->check(s.rows, s.cols, GPUCORE_REDUCE_SUM, &plan);
            this->check(s.rows, s.cols, GPUCORE_REDUCE_MAX, &plan);
        }
    }
}

TYPED_TEST(ReduceRows, SplitKernelWithOneBlockPerRow) {
    for (const Shape& s : {Shape{1, 1}, Shape{3, 31}, Shape{17, 4099}, Shape{5, 300007}}) {
        RowPlan plan = this->forced(RowStrategy::block_per_row, s.rows, s.cols, 1);
        plan.per_lane = TuningPolicy::ReduceRows::kSplitPacksPerThread;
        this->check(s.rows, s.cols, GPUCORE_REDUCE_SUM, &plan);
        this->check(s.rows, s.cols, GPUCORE_REDUCE_MIN, &plan);
    }
}

TYPED_TEST(ReduceRows, LeanBlocksOnAnyShape) {
    for (const Shape& s : {Shape{1, 1}, Shape{3, 31}, Shape{17, 4099}, Shape{5, 300007}, Shape{300, 2048},
                           Shape{77, 16385}, Shape{2, 70001}, Shape{9, 1023}}) {
        using Policy = TuningPolicy::ReduceRows;
        for (int threads : {Policy::kLeanRowThreads, Policy::kLeanMidRowThreads, Policy::kLeanWideRowThreads}) {
            const RowPlan plan = gpucore::gpu::lean_row_plan(s.rows, threads);
            ASSERT_EQ(plan.per_lane, Policy::kLeanRowPacks);
            ASSERT_EQ(plan.lean_threads, threads);
            for (gpucore_reduce_op op : kAllOps) this->check(s.rows, s.cols, op, &plan);
        }
    }
}

// The tile blocks: rows of whole tiles, of a tile and a part, of less than a tile, and rows the
// launcher must give to the lean blocks instead (not whole packs, input off 16 bytes, 2-byte
// elements).
TYPED_TEST(ReduceRows, TileBlocksOnAnyShape) {
    using Policy = TuningPolicy::ReduceRows;
    constexpr std::size_t kLanes = 16 / sizeof(TypeParam);
    constexpr std::size_t kTileCols = std::size_t{Policy::kTileRowThreads} * Policy::kTileRowPacks * kLanes;
    for (const Shape& s : {Shape{1, kLanes}, Shape{300, kTileCols}, Shape{9, 2 * kTileCols},
                           Shape{5, kTileCols + 77 * kLanes}, Shape{77, 3 * kTileCols - kLanes},
                           Shape{2000, 5 * kLanes}, Shape{3, 31}, Shape{17, 4099}, Shape{2, 70001}}) {
        const RowPlan plan = gpucore::gpu::tile_row_plan(s.rows);
        for (gpucore_reduce_op op : kAllOps) this->check(s.rows, s.cols, op, &plan);
        this->check(s.rows, s.cols, GPUCORE_REDUCE_SUM, &plan, 1);
    }
    // The planner's choice on rows of a tile and a part (16 KiB and more for 4- and 8-byte
    // elements), from 16 bytes in and from one element in.
    this->check(300, kTileCols + 77 * kLanes, GPUCORE_REDUCE_SUM, nullptr, kLanes);
    this->check(300, kTileCols + 77 * kLanes, GPUCORE_REDUCE_MAX, nullptr, 1);
}

// The short tiles (the last, partial tile's loads in flight at once) of every size: rows of whole
// tiles, of a tile and a part, of less than a tile, of fewer packs than threads, and rows the
// launcher must give to the lean blocks instead (not whole packs, input off 16 bytes, 2-byte
// elements); then the planner's choice on rows of 2 to 16 KiB from 16 bytes and one element in.
TYPED_TEST(ReduceRows, ShortTilesOnAnyShape) {
    using Policy = TuningPolicy::ReduceRows;
    constexpr std::size_t kLanes = 16 / sizeof(TypeParam);
    const std::pair<int, int> tile_shapes[] = {{Policy::kShortTileNarrowThreads, Policy::kShortTilePacks},
                                               {Policy::kShortTileMidThreads, Policy::kShortTilePacks},
                                               {Policy::kShortTileWideThreads, Policy::kShortTilePacks},
                                               {Policy::kShortTileMidThreads, Policy::kShortTilePacks8}};
    for (const auto& [threads, packs] : tile_shapes) {
        const std::size_t tile_cols = static_cast<std::size_t>(threads) * packs * kLanes;
        for (const Shape& s : {Shape{1, kLanes}, Shape{300, tile_cols}, Shape{9, 2 * tile_cols},
                               Shape{5, tile_cols + 77 * kLanes}, Shape{77, 3 * tile_cols - kLanes},
                               Shape{33, tile_cols - kLanes}, Shape{2000, (threads / 2 + 3) * kLanes},
                               Shape{3, 31}, Shape{17, 4099}}) {
            const RowPlan plan = gpucore::gpu::short_tile_row_plan(s.rows, threads, packs);
            ASSERT_EQ(plan.tile_threads, threads);
            ASSERT_EQ(plan.tile_packs, packs);
            for (gpucore_reduce_op op : kAllOps) this->check(s.rows, s.cols, op, &plan);
            this->check(s.rows, s.cols, GPUCORE_REDUCE_SUM, &plan, 1);
        }
    }
    for (const std::size_t row_bytes : {std::size_t{2064}, std::size_t{3088}, std::size_t{6160}, std::size_t{8176},
                                        std::size_t{12288}, std::size_t{16368}}) {
        const std::size_t cols = row_bytes / sizeof(TypeParam);
        this->check(1000, cols, GPUCORE_REDUCE_SUM, nullptr);
        this->check(1000, cols, GPUCORE_REDUCE_SUM, nullptr, kLanes);
        this->check(1000, cols, GPUCORE_REDUCE_MIN, nullptr, 1);
    }
}

TYPED_TEST(ReduceRows, BlocksPerRowWithAndWithoutSplit) {
    for (const Shape& s : {Shape{1, 1}, Shape{3, 31}, Shape{17, 4099}, Shape{5, 300007}}) {
        for (std::size_t split : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}}) {
            const RowPlan plan = this->forced(RowStrategy::block_per_row, s.rows, s.cols, split);
            // Twice: the per-row tickets must be back at zero after the first run.
            this->check(s.rows, s.cols, GPUCORE_REDUCE_SUM, &plan);
            this->check(s.rows, s.cols, GPUCORE_REDUCE_PROD, &plan);
        }
    }
}

} // namespace
} // namespace gpu_test

// SPDX-License-Identifier: Apache-2.0
// The ladder's kernels (benchmarks/ladder_*_kernels.cuh) run on the host through an emulation of
// the device features they use (emulated/), at shapes no block, tile or warp width divides, with
// the warp width of NVIDIA (32) and of AMD CDNA (64, a second build of this file), each output
// poisoned and checked against the host references the benchmark itself uses. This checks their
// indexing and lane exchanges where no GPU is at hand; their speed only a GPU can tell.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ladder_reference.hpp"
#include "ladder_rows_kernels.cuh"
#include "ladder_transpose_kernels.cuh"

namespace {

using namespace ladder;

std::vector<float> integers(std::size_t n, unsigned seed, unsigned mask) {
    std::mt19937 rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = static_cast<float>(rng() & mask);
    return v;
}

using Shape = std::pair<std::size_t, std::size_t>;

TEST(LadderKernels, TransposesPutEveryElementInPlace) {
    for (const auto& [rows, cols] : {Shape{70, 45}, Shape{33, 97}}) {
        SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
        const std::vector<float> in = integers(rows * cols, 1, 0xFFFF);
        const auto run = [&](auto kernel) {
            std::vector<float> out(in.size(), NAN);
            emulated::launch(transpose_grid(rows, cols), transpose_block(),
                             [&] { kernel(in.data(), out.data(), rows, cols); });
            return out;
        };
        EXPECT_EQ(run(copy_tiles_kernel), in);
        EXPECT_TRUE(is_transpose(in, run(transpose_naive_kernel), rows, cols)) << "naive";
        EXPECT_TRUE(is_transpose(in, run(transpose_shared_kernel<0>), rows, cols)) << "shared";
        EXPECT_TRUE(is_transpose(in, run(transpose_shared_kernel<1>), rows, cols)) << "padded";
    }
}

TEST(LadderKernels, ReductionsLeaveEveryBlocksPartial) {
    for (const std::size_t n : {std::size_t{2500}, std::size_t{700}}) {
        SCOPED_TRACE(n);
        const std::vector<float> input = integers(n, 2, 7);
        const std::size_t threads = ReduceShape::kThreads;
        const auto partials_of = [&](auto kernel, int per_thread, bool in_place) {
            std::vector<float> work = input, partials(reduce_grid(n, per_thread), NAN);
            emulated::launch(dim3(reduce_grid(n, per_thread)), dim3(ReduceShape::kThreads), [&] {
                if constexpr (std::is_invocable_v<decltype(kernel), float*, std::size_t, float*>) {
                    kernel(work.data(), n, partials.data());
                } else {
                    kernel(static_cast<const float*>(input.data()), n, partials.data());
                }
            });
            if (!in_place) {
                EXPECT_EQ(work, input) << "the input stays untouched";
            }
            return sums_match(partials, segment_sums(input, threads * per_thread));
        };
        EXPECT_TRUE(partials_of(reduce_neighbored_kernel, 1, true)) << "neighbored";
        EXPECT_TRUE(partials_of(reduce_interleaved_kernel, 1, true)) << "interleaved";
        EXPECT_TRUE(partials_of(reduce_unrolled_kernel<2>, 2, true)) << "unrolled x2";
        EXPECT_TRUE(partials_of(reduce_unrolled_kernel<4>, 4, true)) << "unrolled x4";
        EXPECT_TRUE(partials_of(reduce_shuffle_kernel, 4, false)) << "warp shuffle";
    }
}

TEST(LadderKernels, LastBlockFinishesTheSumAndRearmsItsTicket) {
    const std::size_t n = 2500;
    const std::vector<float> input = integers(n, 3, 7);
    const double want = sum_of(segment_sums(input, 1000));
    for (const unsigned grid : {1u, 3u}) {
        SCOPED_TRACE(grid);
        std::vector<float> partials(grid, NAN);
        unsigned tickets = 0;
        for (int launch = 0; launch < 2; ++launch) { // the second launch needs the ticket rearmed
            float total = NAN;
            emulated::launch(dim3(grid), dim3(ReduceShape::kLastBlockThreads), [&] {
                reduce_last_block_kernel(input.data(), n, partials.data(), &tickets, &total);
            });
            EXPECT_TRUE(sum_matches(total, want)) << total << " != " << want;
            EXPECT_EQ(tickets, 0u);
            EXPECT_TRUE(sums_match(partials, grid_stride_block_sums(input, ReduceShape::kLastBlockThreads, grid)));
        }
    }
}

TEST(LadderKernels, RowSumsOfEveryRow) {
    for (const auto& [rows, cols] : {Shape{5, 1003}, Shape{3, 17}}) {
        SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
        const std::vector<float> in = integers(rows * cols, 4, 7);
        const std::vector<double> want = segment_sums(in, cols);
        for (const unsigned grid : {static_cast<unsigned>(rows), 2u}) { // a block per row, or fewer
            const auto run = [&](auto kernel) {
                std::vector<float> out(rows, NAN);
                emulated::launch(dim3(grid), dim3(RowsShape::kThreads),
                                 [&] { kernel(in.data(), rows, cols, out.data()); });
                return sums_match(out, want);
            };
            EXPECT_TRUE(run(rows_shared_kernel)) << "v1, grid " << grid;
            EXPECT_TRUE(run(rows_shuffle_kernel)) << "v2, grid " << grid;
        }
    }
}

TEST(LadderKernels, TiledPartitionSumsOfEveryRow) {
    for (const auto& [rows, cols] : {Shape{37, 37}, Shape{100, 5}}) {
        SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
        const std::vector<float> in = integers(rows * cols, 5, 7);
        const std::vector<double> want = segment_sums(in, cols);
        const auto run = [&](auto kernel, std::size_t lanes) {
            const std::size_t per_block = RowsShape::kThreads / lanes;
            for (const std::size_t grid : {(rows + per_block - 1) / per_block, std::size_t{1}}) {
                std::vector<float> out(rows, NAN);
                emulated::launch(dim3(static_cast<unsigned>(grid)), dim3(RowsShape::kThreads),
                                 [&] { kernel(in.data(), rows, cols, out.data()); });
                EXPECT_TRUE(sums_match(out, want)) << lanes << " lanes, grid " << grid;
            }
        };
        run(rows_tiled_partition_kernel<8>, 8);
        run(rows_tiled_partition_kernel<16>, 16);
        run(rows_tiled_partition_kernel<0>, gpucore::gpu::kWarpSize); // the warp width
    }
}

} // namespace

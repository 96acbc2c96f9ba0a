// SPDX-License-Identifier: Apache-2.0
// reduce_rows, long rows: one lean or tile block (short tiles included) per row, or the split
// kernel's plan.split blocks per row (with a per-row ticket when there are several).
#include <cstdint>

#include "dtype_dispatch.cuh"
#include "kernels/reduce_rows_kernels.cuh"
#include "occupancy.hpp"
#include "reduce_rows_launchers.hpp"
#include "tuning_policy.hpp"

namespace gpucore::gpu {

std::size_t rows_split_wave_blocks(gpucore_dtype dtype, gpucore_reduce_op op,
                                   const LaunchContext& ctx) {
    using Policy = TuningPolicy::ReduceRows;
    std::size_t blocks = 0;
    dispatch_reduce(dtype, op, [&](auto type, auto functor) {
        using T = typename decltype(type)::type;
        using Op = decltype(functor);
        constexpr auto kernel =
            reduce_rows_block_kernel<T, Op, Policy::kBlockThreads, Policy::kSplitPacksPerThread, 1>;
        blocks = resident_blocks_of<kernel, Policy::kBlockThreads>(ctx.device);
    });
    return blocks;
}

namespace {

template <class T, class Op, int kThreads, int kMinBlocksPerSm>
void launch_lean(const T* in, std::size_t rows, std::size_t cols, T* out, unsigned int grid,
                 const LaunchContext& ctx) {
    launch_kernel(reduce_rows_lean_kernel<T, Op, kThreads, TuningPolicy::ReduceRows::kLeanRowPacks,
                                          kMinBlocksPerSm>,
                  grid, kThreads, 0, ctx.stream, in, rows, cols, out);
}

template <class T, class Op, int kThreads, int kPacks, bool kTailInFlight>
void launch_tiles(const T* in, std::size_t rows, std::size_t cols, T* out, unsigned int grid,
                  const LaunchContext& ctx) {
    launch_kernel(reduce_rows_tile_kernel<T, Op, kThreads, kPacks, kTailInFlight>, grid, kThreads, 0, ctx.stream, in,
                  rows, cols, out);
}

// The tile blocks need rows they can take (TuningPolicy::ReduceRows::tile_row_fits) from an input
// on a 16-byte boundary.
template <class T>
bool tile_blocks_fit(const T* in, std::size_t cols) {
    return TuningPolicy::ReduceRows::tile_row_fits(cols * sizeof(T), sizeof(T)) &&
           reinterpret_cast<std::uintptr_t>(in) % TuningPolicy::kPackBytes == 0;
}

} // namespace

void launch_rows_block(gpucore_dtype dtype, gpucore_reduce_op op, const void* in,
                       std::size_t rows, std::size_t cols, void* out, const RowPlan& plan,
                       const LaunchContext& ctx) {
    using Policy = TuningPolicy::ReduceRows;
    if (plan.split > 1 && (rows * plan.split > TuningPolicy::Scratch::kPartialSlots ||
                           rows > TuningPolicy::Scratch::kTicketSlots)) {
        throw GpuError(GPUCORE_ERROR_PLUGIN, "reduce_rows: split plan exceeds the scratch");
    }
    dispatch_reduce(dtype, op, [&](auto type, auto functor) {
        using T = typename decltype(type)::type;
        using Op = decltype(functor);
        const auto grid = static_cast<unsigned int>(plan.grid);
        const auto* typed_in = static_cast<const T*>(in);
        auto* partials = static_cast<accumulator_of_t<T>*>(ctx.scratch.partials);
        auto* typed_out = static_cast<T*>(out);
        if (plan.split == 1 && plan.tile_threads > 0 && tile_blocks_fit(typed_in, cols)) {
            if constexpr (sizeof(T) >= Policy::kTileRowMinElementBytes) {
                if (plan.tile_packs == Policy::kTileRowPacks) {
                    launch_tiles<T, Op, Policy::kTileRowThreads, Policy::kTileRowPacks, false>(typed_in, rows, cols,
                                                                                             typed_out, grid, ctx);
                } else if (plan.tile_packs == Policy::kShortTilePacks8) {
                    launch_tiles<T, Op, Policy::kShortTileMidThreads, Policy::kShortTilePacks8, true>(
                        typed_in, rows, cols, typed_out, grid, ctx);
                } else if (plan.tile_threads == Policy::kShortTileWideThreads) {
                    launch_tiles<T, Op, Policy::kShortTileWideThreads, Policy::kShortTilePacks, true>(
                        typed_in, rows, cols, typed_out, grid, ctx);
                } else if (plan.tile_threads == Policy::kShortTileMidThreads) {
                    launch_tiles<T, Op, Policy::kShortTileMidThreads, Policy::kShortTilePacks, true>(
                        typed_in, rows, cols, typed_out, grid, ctx);
                } else {
                    launch_tiles<T, Op, Policy::kShortTileNarrowThreads, Policy::kShortTilePacks, true>(
                        typed_in, rows, cols, typed_out, grid, ctx);
                }
            }
        } else if (plan.split == 1 && plan.per_lane == Policy::kLeanRowPacks) {
            if (plan.lean_threads == Policy::kLeanMidRowThreads) {
                launch_lean<T, Op, Policy::kLeanMidRowThreads, Policy::kLeanMidRowMinBlocksPerSm>(
                    typed_in, rows, cols, typed_out, grid, ctx);
            } else if (plan.lean_threads == Policy::kLeanWideRowThreads) {
                launch_lean<T, Op, Policy::kLeanWideRowThreads, Policy::kLeanWideRowMinBlocksPerSm>(
                    typed_in, rows, cols, typed_out, grid, ctx);
            } else {
                launch_lean<T, Op, Policy::kLeanRowThreads, Policy::kLeanRowMinBlocksPerSm>(
                    typed_in, rows, cols, typed_out, grid, ctx);
            }
        } else {
            launch_kernel(
                reduce_rows_block_kernel<T, Op, Policy::kBlockThreads, Policy::kSplitPacksPerThread, 1>,
                grid, Policy::kBlockThreads, 0, ctx.stream, typed_in, rows, cols, plan.split,
                typed_out, partials, ctx.scratch.tickets);
        }
        GPUCORE_GPU_CHECK(last_launch_error());
    });
}

} // namespace gpucore::gpu

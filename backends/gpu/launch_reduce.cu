// SPDX-License-Identifier: Apache-2.0
// Launcher of the single-pass reduce.
#include <algorithm>

#include "dtype_dispatch.cuh"
#include "kernels/reduce_kernel.cuh"
#include "launch.hpp"
#include "op_slot.hpp"
#include "occupancy.hpp"
#include "tuning_policy.hpp"

namespace gpucore::gpu {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return a / b + (a % b != 0); }

// Blocks for n elements of `pack_count` lanes, or 0 when n is not small: one block while every
// thread has at most kMaxPacksPerThread packs (no partials to combine), then the fewest packs per
// thread (1, 2, 4, ...) that need at most kSmallGridBlocks blocks (the last block combines few
// partials, and each thread still has loads in flight).
std::size_t small_input_grid(std::size_t n, int pack_count) {
    using Policy = TuningPolicy::Reduce;
    const std::size_t packs = ceil_div(n, static_cast<std::size_t>(pack_count));
    const auto threads = static_cast<std::size_t>(Policy::kThreads);
    if (packs <= threads * Policy::kMaxPacksPerThread) return 1;
    for (std::size_t per_thread = 1; per_thread <= Policy::kMaxPacksPerThread; per_thread *= 2) {
        const std::size_t blocks = ceil_div(packs, threads * per_thread);
        if (blocks <= Policy::kSmallGridBlocks) return blocks;
    }
    return 0;
}

} // namespace

void launch_reduce(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, std::size_t n,
                   void* out, const LaunchContext& ctx) {
    using Policy = TuningPolicy::Reduce;
    dispatch_reduce(dtype, op, [&](auto type, auto functor) {
        using T = typename decltype(type)::type;
        using Op = decltype(functor);
        using Acc = accumulator_of_t<T>;
        static_assert(sizeof(Acc) <= 8, "partials use 8-byte scratch slots");
        constexpr int kPacks = Policy::packs_per_thread<T>();
        constexpr auto kernel =
            reduce_single_pass_kernel<T, Op, Policy::kThreads, kPacks, Policy::min_blocks_per_sm<T>()>;
        std::size_t grid = small_input_grid(n, Pack<T>::kCount);
        if (grid == 1) { // at most kThreads * kMaxPacksPerThread packs: 32-bit positions
            const auto small_n = static_cast<unsigned int>(n);
            if (ceil_div(n, Pack<T>::kCount) <= static_cast<std::size_t>(Policy::kOneBlockThreads) * Policy::kOneBlockPacks) {
                launch_kernel(reduce_one_block_kernel<T, Op, Policy::kOneBlockThreads, Policy::kOneBlockPacks>, 1u,
                              Policy::kOneBlockThreads, 0, ctx.stream, static_cast<const T*>(in), small_n,
                              static_cast<T*>(out));
            } else {
                launch_kernel(reduce_one_block_kernel<T, Op, Policy::kOneBlockWideThreads, Policy::kOneBlockWidePacks>,
                              1u, Policy::kOneBlockWideThreads, 0, ctx.stream, static_cast<const T*>(in), small_n,
                              static_cast<T*>(out));
            }
            GPUCORE_GPU_CHECK(last_launch_error());
            return;
        }
        if (grid == 0) { // large: kPacks packs per thread, at most one full wave
            const std::size_t per_block = static_cast<std::size_t>(Policy::kThreads) * kPacks * Pack<T>::kCount;
            grid = std::min({ceil_div(n, per_block),
                             resident_blocks_of<kernel, Policy::kThreads>(ctx.device),
                             static_cast<std::size_t>(Policy::kMaxBlocks),
                             TuningPolicy::Scratch::kPartialSlots});
        }
        launch_kernel(kernel, static_cast<unsigned int>(grid), Policy::kThreads, 0, ctx.stream,
                static_cast<const T*>(in), n, static_cast<T*>(out),
                static_cast<Acc*>(ctx.scratch.partials), ctx.scratch.tickets);
        GPUCORE_GPU_CHECK(last_launch_error());
    });
}

namespace {

gpucore_status reduce_slot(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, size_t n,
                           void* out, gpucore_stream stream, gpucore_message* msg) {
    return enqueue_op(stream, msg, [&](const LaunchContext& ctx) {
        launch_reduce(dtype, op, in, n, out, ctx);
    });
}

} // namespace

void fill_reduce_slots(gpucore_plugin_api& table) noexcept { table.reduce = reduce_slot; }

} // namespace gpucore::gpu

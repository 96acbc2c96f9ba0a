// SPDX-License-Identifier: Apache-2.0
// reduce_rows: plan the shape, then launch the chosen kernel.
#include <cstdint>

#include "gpu_error.hpp"
#include "gpucore/element_types.hpp"
#include "launch.hpp"
#include "op_slot.hpp"
#include "reduce_rows_launchers.hpp"
#include "tuning_policy.hpp"

namespace gpucore::gpu {

void launch_reduce_rows(gpucore_dtype dtype, gpucore_reduce_op op, const void* in,
                        std::size_t rows, std::size_t cols, void* out, const LaunchContext& ctx) {
    if (rows == 0) return;
    const bool input_on_packs = reinterpret_cast<std::uintptr_t>(in) % TuningPolicy::kPackBytes == 0;
    const RowPlan plan = plan_reduce_rows(rows, cols, ctx.device, TuningPolicy::Scratch::kPartialSlots,
                                          TuningPolicy::Scratch::kTicketSlots, rows_split_wave_blocks(dtype, op, ctx),
                                          element_size(dtype), input_on_packs);
    launch_reduce_rows_planned(dtype, op, in, rows, cols, out, plan, ctx);
}

void launch_reduce_rows_planned(gpucore_dtype dtype, gpucore_reduce_op op, const void* in,
                                std::size_t rows, std::size_t cols, void* out,
                                const RowPlan& plan, const LaunchContext& ctx) {
    if (rows == 0) return;
    switch (plan.strategy) {
    case RowStrategy::sub_warp:
        launch_rows_sub_warp(dtype, op, in, rows, cols, out, plan, ctx);
        return;
    case RowStrategy::warp_per_row:
        launch_rows_warp(dtype, op, in, rows, cols, out, plan, ctx);
        return;
    case RowStrategy::block_per_row:
        launch_rows_block(dtype, op, in, rows, cols, out, plan, ctx);
        return;
    }
    throw GpuError(GPUCORE_ERROR_PLUGIN, "reduce_rows: unknown strategy");
}

namespace {

gpucore_status reduce_rows_slot(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, size_t rows,
                                size_t cols, void* out, gpucore_stream stream, gpucore_message* msg) {
    return enqueue_op(stream, msg, [&](const LaunchContext& ctx) {
        launch_reduce_rows(dtype, op, in, rows, cols, out, ctx);
    });
}

} // namespace

void fill_reduce_rows_slots(gpucore_plugin_api& table) noexcept { table.reduce_rows = reduce_rows_slot; }

} // namespace gpucore::gpu

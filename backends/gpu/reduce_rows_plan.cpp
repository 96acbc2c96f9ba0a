// SPDX-License-Identifier: Apache-2.0
#include "reduce_rows_plan.hpp"

#include <algorithm>

#include "grid_limits.hpp"
#include "tuning_policy.hpp"

namespace gpucore::gpu {
namespace {

using Policy = TuningPolicy::ReduceRows;

std::size_t ceil_div(std::size_t a, std::size_t b) { return a / b + (a % b != 0); }

int next_power_of_two(std::size_t n) {
    int width = 1;
    while (static_cast<std::size_t>(width) < n) width *= 2;
    return width;
}

// The block-per-row plans launch the split kernel's blocks, the lean ones of any of their sizes or
// the tile ones (short or not).
constexpr int kBlockPlanMaxThreads =
    std::max({Policy::kBlockThreads, Policy::kLeanRowThreads, Policy::kLeanMidRowThreads, Policy::kLeanWideRowThreads,
              Policy::kTileRowThreads, Policy::kShortTileWideThreads});

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// whole_grid: a block for every rows_per_block_pass rows; otherwise at most the resident blocks.
RowPlan sub_warp_plan(std::size_t rows, int width, int per_lane, const DeviceShape& device,
                      bool whole_grid = false) {
    RowPlan plan;
    plan.strategy = RowStrategy::sub_warp;
    plan.logical_width = width;
    plan.per_lane = per_lane;
    const std::size_t rows_per_block_pass =
        static_cast<std::size_t>(Policy::kSubWarpThreads / width) *
        static_cast<std::size_t>(Policy::sub_warp_rows_in_flight(per_lane));
    const std::size_t blocks = ceil_div(rows, rows_per_block_pass);
    plan.grid = capped_grid(whole_grid ? blocks : std::min(blocks, resident_blocks(device, Policy::kSubWarpThreads)),
                           Policy::kSubWarpThreads);
    return plan;
}

// The planner's sub-warp shape for rows of `cols` elements of `element_bytes` each (see
// TuningPolicy::ReduceRows). False when the rows are too long for a sub-warp.
bool planned_sub_warp_shape(std::size_t cols, std::size_t element_bytes, int& width, int& per_lane) {
    if (cols > static_cast<std::size_t>(Policy::kSubWarpMaxCols)) return false;
    if (cols <= static_cast<std::size_t>(Policy::kSubWarpLanePerElementMaxCols)) {
        width = next_power_of_two(std::max<std::size_t>(cols, 1));
        per_lane = 1;
    } else if (cols <= static_cast<std::size_t>(Policy::kSubWarpNarrowMaxCols)) {
        width = Policy::kSubWarpNarrowWidth;
        per_lane = Policy::sub_warp_narrow_per_lane(cols, element_bytes);
    } else {
        width = Policy::kSubWarpWideWidth;
        per_lane = Policy::kSubWarpMaxPerLane;
    }
    return sub_warp_kernel_exists(width, per_lane);
}

RowPlan warp_plan(std::size_t rows, int packs, const DeviceShape& device) {
    RowPlan plan;
    plan.strategy = RowStrategy::warp_per_row;
    plan.per_lane = packs == Policy::kWarpRowKiBRowPacks ? packs : Policy::kWarpRowPacksPerThread;
    const std::size_t warps_per_block =
        static_cast<std::size_t>(std::max(1, Policy::kWarpRowThreads / device.warp_size));
    plan.grid = capped_grid(std::min(ceil_div(rows, warps_per_block), resident_blocks(device, Policy::kWarpRowThreads)),
                           Policy::kWarpRowThreads);
    return plan;
}

RowPlan block_plan(std::size_t rows, std::size_t split, std::size_t partial_slots,
                   std::size_t ticket_slots) {
    if (rows > ticket_slots) split = 1;
    split = std::max<std::size_t>(1, std::min(split, partial_slots / std::max<std::size_t>(rows, 1)));
    RowPlan plan;
    plan.strategy = RowStrategy::block_per_row;
    plan.split = split;
    plan.grid = capped_grid(rows * split, kBlockPlanMaxThreads);
    return plan;
}

} // namespace

RowPlan plan_reduce_rows(std::size_t rows, std::size_t cols, const DeviceShape& device,
                         std::size_t partial_slots, std::size_t ticket_slots,
                         std::size_t split_wave_blocks, std::size_t element_bytes, bool input_on_packs) {
    int width = 0, per_lane = 1;
    if (planned_sub_warp_shape(cols, element_bytes, width, per_lane)) {
        return sub_warp_plan(rows, width, per_lane, device,
                             Policy::sub_warp_whole_grid(rows, cols * element_bytes));
    }
    // A warp per row needs enough rows to occupy the SMs; with few rows, blocks split them.
    const auto sms = static_cast<std::size_t>(device.sm_count);
    const std::size_t row_bytes = cols * element_bytes;
    const bool whole_packs = row_bytes % static_cast<std::size_t>(TuningPolicy::kPackBytes) == 0;
    if (input_on_packs && Policy::short_tile_row(row_bytes, element_bytes)) {
        return short_tile_row_plan(rows, Policy::short_tile_threads(row_bytes, element_bytes),
                                   Policy::short_tile_packs(row_bytes, element_bytes));
    }
    const bool lean_row = Policy::lean_row(row_bytes, element_bytes, whole_packs);
    if (!lean_row &&
        ((cols <= Policy::kWarpRowMaxCols && rows >= sms * Policy::kWarpRowMinRowsPerSm) ||
         (cols <= Policy::kWarpRowLongMaxCols && rows >= sms * Policy::kWarpRowLongMinRowsPerSm))) {
        const bool deep = Policy::warp_row_deep(row_bytes, element_bytes);
        return warp_plan(rows, deep ? Policy::kWarpRowKiBRowPacks : Policy::kWarpRowPacksPerThread, device);
    }
    // Fewer rows than one wave of blocks: split each row over wave / rows blocks (rounded down,
    // so the split grid never starts a second, mostly idle wave).
    const std::size_t wave = split_wave_blocks > 0
                                 ? split_wave_blocks
                                 : static_cast<std::size_t>(device.sm_count) *
                                       Policy::kSplitTargetBlocksPerSm;
    std::size_t split = 1;
    const bool unsplit = Policy::unsplit_rows(rows, row_bytes, sms);
    if (rows < wave && !unsplit) {
        const std::size_t by_work = std::max<std::size_t>(
            1, cols / (static_cast<std::size_t>(Policy::kBlockThreads) *
                       Policy::kMinSplitElementsPerThread));
        split = std::min(std::max<std::size_t>(1, wave / rows), by_work);
    }
    // Rows that one wave holds unsplit, but too few for 2 blocks per SM: split long ones anyway.
    const bool few_rows = rows < sms * Policy::kLongRowSplitMaxRowsPerSm;
    if (few_rows && split == 1 && !unsplit) {
        split = std::max<std::size_t>(1, std::min(cols / Policy::kLongRowSplitElements, Policy::kLongRowMaxSplit));
    }
    RowPlan plan = block_plan(rows, split, partial_slots, ticket_slots);
    // Unsplit rows, few or many: the lean blocks, or the tile blocks where they are the faster.
    if (plan.split == 1) {
        plan.per_lane = Policy::kLeanRowPacks;
        plan.lean_threads = Policy::lean_row_threads(rows, row_bytes, sms);
        if (input_on_packs && plan.lean_threads != Policy::kLeanWideRowThreads &&
            Policy::tile_row(row_bytes, element_bytes)) {
            plan.tile_threads = Policy::kTileRowThreads;
            plan.tile_packs = Policy::kTileRowPacks;
        }
    }
    return plan;
}

RowPlan forced_row_plan(RowStrategy strategy, std::size_t rows, std::size_t cols,
                        std::size_t split, const DeviceShape& device, std::size_t partial_slots,
                        std::size_t ticket_slots) {
    switch (strategy) {
    case RowStrategy::sub_warp:
        return sub_warp_plan(rows, next_power_of_two(std::max<std::size_t>(cols, 1)), 1, device);
    case RowStrategy::warp_per_row: return warp_plan(rows, Policy::kWarpRowPacksPerThread, device);
    case RowStrategy::block_per_row: break;
    }
    return block_plan(rows, split, partial_slots, ticket_slots);
}

RowPlan sub_warp_row_plan(std::size_t rows, std::size_t cols, int per_lane, const DeviceShape& device) {
    RowPlan plan;
    plan.strategy = RowStrategy::sub_warp;
    if (!is_power_of_two(per_lane)) return plan;
    int width = next_power_of_two(ceil_div(std::max<std::size_t>(cols, 1), static_cast<std::size_t>(per_lane)));
    if (per_lane > 1) width = std::max(width, Policy::kSubWarpStridedMinWidth);
    if (!sub_warp_kernel_exists(width, per_lane)) return plan;
    return sub_warp_plan(rows, width, per_lane, device);
}

RowPlan warp_row_plan(std::size_t rows, int packs, const DeviceShape& device) {
    return warp_plan(rows, packs, device);
}

RowPlan lean_row_plan(std::size_t rows, int threads) {
    RowPlan plan;
    plan.strategy = RowStrategy::block_per_row;
    plan.per_lane = Policy::kLeanRowPacks;
    plan.lean_threads = threads == Policy::kLeanMidRowThreads || threads == Policy::kLeanWideRowThreads
                            ? threads
                            : Policy::kLeanRowThreads;
    plan.grid = capped_grid(rows, plan.lean_threads);
    return plan;
}

RowPlan tile_row_plan(std::size_t rows) {
    RowPlan plan = lean_row_plan(rows, Policy::kLeanRowThreads);
    plan.tile_threads = Policy::kTileRowThreads;
    plan.tile_packs = Policy::kTileRowPacks;
    plan.grid = capped_grid(rows, plan.tile_threads);
    return plan;
}

RowPlan short_tile_row_plan(std::size_t rows, int threads, int packs) {
    RowPlan plan = lean_row_plan(rows, Policy::kLeanMidRowThreads);
    if (packs == Policy::kShortTilePacks8) {
        plan.tile_threads = Policy::kShortTileMidThreads; // the one shape of 2 packs
    } else {
        plan.tile_threads = threads == Policy::kShortTileMidThreads || threads == Policy::kShortTileWideThreads
                                ? threads
                                : Policy::kShortTileNarrowThreads;
        packs = Policy::kShortTilePacks;
    }
    plan.tile_packs = packs;
    plan.grid = capped_grid(rows, plan.tile_threads);
    return plan;
}

bool sub_warp_kernel_exists(int width, int per_lane) noexcept {
    if (!is_power_of_two(width) || !is_power_of_two(per_lane)) return false;
    if (per_lane == 1) return width <= Policy::kSubWarpMaxWidth;
    return per_lane <= Policy::kSubWarpMaxPerLane && width >= Policy::kSubWarpStridedMinWidth &&
           width <= Policy::kSubWarpStridedMaxWidth;
}

const char* to_string(RowStrategy strategy) noexcept {
    switch (strategy) {
    case RowStrategy::sub_warp: return "sub_warp";
    case RowStrategy::warp_per_row: return "warp_per_row";
    case RowStrategy::block_per_row: return "block_per_row";
    }
    return "?";
}

} // namespace gpucore::gpu

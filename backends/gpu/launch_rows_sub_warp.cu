// SPDX-License-Identifier: Apache-2.0
// reduce_rows, short rows: logical sub-warps of width 1, 2, 4, ... kSubWarpMaxWidth with one
// element per lane, and of widths kSubWarpStridedMinWidth..kSubWarpStridedMaxWidth with 2, 4, ...
// kSubWarpMaxPerLane elements per lane (TuningPolicy::ReduceRows).
#include <string>

#include "dtype_dispatch.cuh"
#include "kernels/reduce_rows_kernels.cuh"
#include "reduce_rows_launchers.hpp"
#include "tuning_policy.hpp"

namespace gpucore::gpu {
namespace {

using Policy = TuningPolicy::ReduceRows;

template <int kPerLane>
constexpr int min_width() {
    return kPerLane == 1 ? 1 : Policy::kSubWarpStridedMinWidth;
}
template <int kPerLane>
constexpr int max_width() {
    return kPerLane == 1 ? Policy::kSubWarpMaxWidth : Policy::kSubWarpStridedMaxWidth;
}

// Launches the kernel of plan.logical_width lanes if it is Width or wider (at kPerLane elements
// per lane); false when none matches.
template <int kPerLane, int Width, class T, class Op>
bool launch_if_width(const RowPlan& plan, const T* in, std::size_t rows, std::size_t cols, T* out,
                     gpuStream_t stream) {
    if constexpr (Width <= max_width<kPerLane>()) {
        if (plan.logical_width == Width) {
            launch_kernel(reduce_rows_subwarp_kernel<T, Op, Width, kPerLane, Policy::kSubWarpThreads,
                                                     Policy::sub_warp_rows_in_flight(kPerLane)>,
                          static_cast<unsigned int>(plan.grid), Policy::kSubWarpThreads, 0, stream, in,
                          rows, cols, out);
            return true;
        }
        return launch_if_width<kPerLane, Width * 2, T, Op>(plan, in, rows, cols, out, stream);
    } else {
        return false;
    }
}

// The same over the elements per lane: 1, 2, 4, ... kSubWarpMaxPerLane.
template <int kPerLane, class T, class Op>
bool launch_if_shape(const RowPlan& plan, const T* in, std::size_t rows, std::size_t cols, T* out,
                     gpuStream_t stream) {
    if constexpr (kPerLane <= Policy::kSubWarpMaxPerLane) {
        if (plan.per_lane == kPerLane) {
            return launch_if_width<kPerLane, min_width<kPerLane>(), T, Op>(plan, in, rows, cols, out,
                                                                           stream);
        }
        return launch_if_shape<kPerLane * 2, T, Op>(plan, in, rows, cols, out, stream);
    } else {
        return false;
    }
}

} // namespace

void launch_rows_sub_warp(gpucore_dtype dtype, gpucore_reduce_op op, const void* in,
                          std::size_t rows, std::size_t cols, void* out, const RowPlan& plan,
                          const LaunchContext& ctx) {
    if (plan.logical_width < 1 || plan.per_lane < 1 ||
        cols > static_cast<std::size_t>(plan.logical_width) * static_cast<std::size_t>(plan.per_lane)) {
        throw GpuError(GPUCORE_ERROR_PLUGIN, "reduce_rows: sub-warp plan narrower than a row");
    }
    dispatch_reduce(dtype, op, [&](auto type, auto functor) {
        using T = typename decltype(type)::type;
        using Op = decltype(functor);
        if (!launch_if_shape<1, T, Op>(plan, static_cast<const T*>(in), rows, cols,
                                       static_cast<T*>(out), ctx.stream)) {
            throw GpuError(GPUCORE_ERROR_PLUGIN, "reduce_rows: no sub-warp kernel of width " +
                                                     std::to_string(plan.logical_width) + " with " +
                                                     std::to_string(plan.per_lane) + " elements per lane");
        }
        GPUCORE_GPU_CHECK(last_launch_error());
    });
}

} // namespace gpucore::gpu

// SPDX-License-Identifier: Apache-2.0
// reduce_rows, short rows: logical sub-warps of width 1, 2, 4, ... kSubWarpMaxWidth.
#include <string>

#include "dtype_dispatch.cuh"
#include "kernels/reduce_rows_kernels.cuh"
#include "reduce_rows_launchers.hpp"
#include "tuning_policy.hpp"

namespace gpucore::gpu {
namespace {

using Policy = TuningPolicy::ReduceRows;

template <int Width, class T, class Op>
bool launch_if_width(int width, const T* in, std::size_t rows, std::size_t cols, T* out,
                     unsigned int grid, gpuStream_t stream) {
    if constexpr (Width <= Policy::kSubWarpMaxWidth) {
        if (width == Width) {
            launch_kernel(reduce_rows_subwarp_kernel<T, Op, Width, Policy::kSubWarpThreads,
                                                     Policy::kSubWarpRowsInFlight>,
                          grid, Policy::kSubWarpThreads, 0, stream, in, rows, cols, out);
            return true;
        }
        return launch_if_width<Width * 2, T, Op>(width, in, rows, cols, out, grid, stream);
    } else {
        return false;
    }
}

} // namespace

void launch_rows_sub_warp(gpucore_dtype dtype, gpucore_reduce_op op, const void* in,
                          std::size_t rows, std::size_t cols, void* out, const RowPlan& plan,
                          const LaunchContext& ctx) {
    if (cols > static_cast<std::size_t>(plan.logical_width)) {
        throw GpuError(GPUCORE_ERROR_PLUGIN, "reduce_rows: sub-warp plan narrower than a row");
    }
    dispatch_reduce(dtype, op, [&](auto type, auto functor) {
        using T = typename decltype(type)::type;
        using Op = decltype(functor);
        if (!launch_if_width<1, T, Op>(plan.logical_width, static_cast<const T*>(in), rows, cols,
                                       static_cast<T*>(out),
                                       static_cast<unsigned int>(plan.grid), ctx.stream)) {
            throw GpuError(GPUCORE_ERROR_PLUGIN, "reduce_rows: no sub-warp kernel of width " +
                                                     std::to_string(plan.logical_width));
        }
        GPUCORE_GPU_CHECK(last_launch_error());
    });
}

} // namespace gpucore::gpu

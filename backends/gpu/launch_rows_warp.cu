// SPDX-License-Identifier: Apache-2.0
// reduce_rows, medium rows: one warp per row, its lanes keeping 2 or 4 packs in flight.
#include "dtype_dispatch.cuh"
#include "kernels/reduce_rows_kernels.cuh"
#include "reduce_rows_launchers.hpp"
#include "tuning_policy.hpp"

namespace gpucore::gpu {

void launch_rows_warp(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, std::size_t rows,
                      std::size_t cols, void* out, const RowPlan& plan, const LaunchContext& ctx) {
    using Policy = TuningPolicy::ReduceRows;
    dispatch_reduce(dtype, op, [&](auto type, auto functor) {
        using T = typename decltype(type)::type;
        using Op = decltype(functor);
        const auto launch = [&](auto kernel) {
            launch_kernel(kernel, static_cast<unsigned int>(plan.grid), Policy::kWarpRowThreads, 0, ctx.stream,
                          static_cast<const T*>(in), rows, cols, static_cast<T*>(out));
        };
        if (plan.per_lane == Policy::kWarpRowKiBRowPacks) {
            launch(reduce_rows_warp_kernel<T, Op, Policy::kWarpRowThreads, Policy::kWarpRowKiBRowPacks>);
        } else {
            launch(reduce_rows_warp_kernel<T, Op, Policy::kWarpRowThreads, Policy::kWarpRowPacksPerThread>);
        }
        GPUCORE_GPU_CHECK(last_launch_error());
    });
}

} // namespace gpucore::gpu

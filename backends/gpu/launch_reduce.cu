// Launcher of the single-pass reduce.
#include <algorithm>

#include "dtype_dispatch.cuh"
#include "kernels/reduce_kernel.cuh"
#include "launch.hpp"
#include "tuning_policy.hpp"

namespace gpucore::gpu {

void launch_reduce(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, std::size_t n,
                   void* out, const LaunchContext& ctx) {
    using Policy = TuningPolicy::Reduce;
    dispatch_reduce(dtype, op, [&](auto type, auto functor) {
        using T = typename decltype(type)::type;
        using Op = decltype(functor);
        static_assert(sizeof(T) <= 8, "partials use 8-byte scratch slots");
        const std::size_t per_block =
            static_cast<std::size_t>(Policy::kThreads) * Policy::kPacksPerThread * Pack<T>::kCount;
        std::size_t grid = n / per_block + (n % per_block != 0);
        grid = std::min({grid, resident_blocks(ctx.device, Policy::kThreads),
                         static_cast<std::size_t>(Policy::kMaxBlocks),
                         TuningPolicy::Scratch::kPartialSlots});
        grid = std::max<std::size_t>(grid, 1); // n == 0 still writes the identity
        reduce_single_pass_kernel<T, Op, Policy::kThreads, Policy::kPacksPerThread>
            <<<static_cast<unsigned int>(grid), Policy::kThreads, 0, ctx.stream>>>(
                static_cast<const T*>(in), n, static_cast<T*>(out),
                static_cast<T*>(ctx.scratch.partials), ctx.scratch.tickets);
        GPUCORE_GPU_CHECK(last_launch_error());
    });
}

} // namespace gpucore::gpu

// SPDX-License-Identifier: Apache-2.0
// warp_reduce at every logical width the hardware runs (1, 2, 4, ... the warp size): each lane
// must get the reduction of exactly its own group of Width lanes. Exercises the width-generic
// logic that 64-wide AMD wavefronts rely on, on the NVIDIA hardware we have.
#include "gpu_test_support.cuh"
#include "kernels/reduce_ops.cuh"
#include "kernels/warp_reduce.cuh"

namespace gpu_test {
namespace {

using gpucore::gpu::kWarpSize;

template <int Width, class T, class Op>
__global__ void warp_reduce_probe(const T* in, T* out) {
    const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = gpucore::gpu::warp_reduce<Width>(in[t], Op{});
}

class WarpReduce : public GpuTest {
protected:
    static constexpr unsigned int kBlocks = 3;
    static constexpr unsigned int kThreads = 256;
    static constexpr std::size_t kN = kBlocks * kThreads;

    // Runs the probe at `Width` and compares every lane with its group's reference.
    template <int Width, class T, class Op>
    void check(gpucore_reduce_op op, const std::vector<T>& input) {
        SCOPED_TRACE("width " + std::to_string(Width) + ", op " + op_name(op));
        DeviceArray<T> in(kN), out(kN);
        ASSERT_TRUE(in.ok() && out.ok());
        in.upload(input);
        out.poison();
        warp_reduce_probe<Width, T, Op><<<kBlocks, kThreads, 0, stream_>>>(in.data(), out.data());
        sync();
        const std::vector<T> got = out.download(kN);
        for (std::size_t lane = 0; lane < kN; ++lane) {
            const std::size_t first = lane / Width * Width;
            const double want = reference_reduce(input.data() + first, Width, op);
            ASSERT_TRUE(close_to(got[lane], want, allowed_error(input.data() + first, Width, op, want)))
                << "lane " << lane;
        }
    }

    template <int Width>
    void check_width() {
        if constexpr (Width <= kWarpSize) {
            check<Width, std::uint32_t, gpucore::gpu::SumOp>(GPUCORE_REDUCE_SUM,
                                                             random_values<std::uint32_t>(kN));
            check<Width, std::int32_t, gpucore::gpu::MinOp>(GPUCORE_REDUCE_MIN,
                                                            random_values<std::int32_t>(kN));
            check<Width, double, gpucore::gpu::SumOp>(GPUCORE_REDUCE_SUM, random_values<double>(kN));
            auto with_nan = random_values<float>(kN);
            with_nan[kN / 2 + 1] = std::numeric_limits<float>::quiet_NaN(); // one group only
            check<Width, float, gpucore::gpu::MaxOp>(GPUCORE_REDUCE_MAX, with_nan);
            check<Width, float, gpucore::gpu::MinOp>(GPUCORE_REDUCE_MIN, with_nan);
            check_width<Width * 2>();
        }
    }
};

TEST_F(WarpReduce, EveryLogicalWidthReducesExactlyItsGroup) {
    check_width<1>();
}

} // namespace
} // namespace gpu_test

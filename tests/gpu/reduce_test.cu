// SPDX-License-Identifier: Apache-2.0
// The single-pass reduce kernel through its launcher: every dtype x op, awkward lengths, inputs
// that start off 16-byte alignment, NaN, integer wrap-around, back-to-back launches on one stream
// (the ticket must be back at zero after each).
#include "gpu_test_support.cuh"

namespace gpu_test {
namespace {

template <class T>
class Reduce : public GpuTest {
protected:
    // Reduces input[offset..] (the first `offset` elements are padding) and checks out[0], and
    // that out[1] stayed poisoned.
    void check(const std::vector<T>& input, std::size_t offset, gpucore_reduce_op op) {
        const std::size_t n = input.size() - offset;
        SCOPED_TRACE("n " + std::to_string(n) + ", offset " + std::to_string(offset) + ", op " +
                     op_name(op));
        DeviceArray<T> in(input.size());
        DeviceArray<T> out(2);
        ASSERT_TRUE(in.ok() && out.ok());
        in.upload(input);
        out.poison();
        const std::vector<T> poisoned = out.download(2);
        gpucore::gpu::launch_reduce(dtype_of<T>(), op, in.data(offset), n, out.data(), ctx_);
        sync();
        const std::vector<T> got = out.download(2);
        const double want = reference_reduce(input.data() + offset, n, op);
        EXPECT_TRUE(close_to(got[0], want, allowed_error(input.data() + offset, n, op, want)));
        EXPECT_EQ(0, std::memcmp(&got[1], &poisoned[1], sizeof(T))) << "out[1] was written";
    }
};

using Types = testing::Types<float, double, std::int32_t, std::uint32_t, gpucore::half,
                               gpucore::bfloat16>;
TYPED_TEST_SUITE(Reduce, Types);

TYPED_TEST(Reduce, AwkwardLengthsAndOffsets) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3},
                          std::size_t{5}, std::size_t{31}, std::size_t{33}, std::size_t{1023},
                          std::size_t{4096}, std::size_t{4097}, std::size_t{8192}, std::size_t{8193},
                          std::size_t{16383}, std::size_t{16384}, std::size_t{16385}, std::size_t{65537},
                          std::size_t{262147}, std::size_t{1000003}}) {
        for (gpucore_reduce_op op : kAllOps) {
            for (std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
                this->check(random_values<TypeParam>(n + offset, op), offset, op);
            }
        }
    }
}

TYPED_TEST(Reduce, LargeInputUsesManyBlocksInOneLaunch) {
    const std::size_t n = (std::size_t{1} << 25) + 7;
    for (gpucore_reduce_op op : kAllOps) this->check(random_values<TypeParam>(n, op), 0, op);
}

TYPED_TEST(Reduce, BackToBackLaunchesReuseTheTicket) {
    const std::size_t n = 3000001;
    for (int round = 0; round < 3; ++round) {
        this->check(random_values<TypeParam>(n), 0, GPUCORE_REDUCE_SUM);
        this->check(random_values<TypeParam>(n), 0, GPUCORE_REDUCE_MAX);
    }
}

TYPED_TEST(Reduce, NanPropagatesThroughMinMaxAndSum) {
    if constexpr (gpucore::is_float_element_v<TypeParam>) {
        for (std::size_t n : {std::size_t{1}, std::size_t{100}, std::size_t{2000003}}) {
            for (std::size_t where : {std::size_t{0}, n / 2, n - 1}) {
                auto input = random_values<TypeParam>(n);
                input[where] = std::numeric_limits<TypeParam>::quiet_NaN();
                for (gpucore_reduce_op op : {GPUCORE_REDUCE_MIN, GPUCORE_REDUCE_MAX,
                                             GPUCORE_REDUCE_SUM}) {
                    this->check(input, 0, op);
                }
            }
        }
    } else {
        GTEST_SKIP() << "integers have no NaN";
    }
}

TYPED_TEST(Reduce, IntegerSumWrapsLikeUnsigned) {
    if constexpr (std::is_integral_v<TypeParam>) {
        std::vector<TypeParam> input(1000, std::numeric_limits<TypeParam>::max());
        this->check(input, 0, GPUCORE_REDUCE_SUM); // reference wraps in uint32
    } else {
        GTEST_SKIP() << "floats do not wrap";
    }
}

} // namespace
} // namespace gpu_test

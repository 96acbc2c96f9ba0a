// SPDX-License-Identifier: Apache-2.0
// Every device against the hand-computed results in known_values.hpp.
#include <gtest/gtest.h>

#include "cases.hpp"
#include "compare.hpp"
#include "device_runs.hpp"
#include "known_values.hpp"

namespace conformance {
namespace {

class KnownValues : public testing::TestWithParam<DeviceCase> {};

TEST_P(KnownValues, Reduce) {
    const gpucore::Device& device = GetParam().device;
    known::for_each_reduce_case([&](const auto& c) {
        using T = typename std::decay_t<decltype(c.in)>::value_type;
        SCOPED_TRACE(std::string(gpucore::to_string(gpucore::dtype_of<T>())) + " " + c.what);
        const T sentinel = sentinel_avoiding<T>(std::vector<T>{c.want});
        const std::vector<T> got = run_reduce(device, c.in, c.op, sentinel);
        EXPECT_TRUE(elements_match(got, std::vector<T>{c.want, sentinel, sentinel}, sentinel));
    });
}

TEST_P(KnownValues, ReduceRows) {
    const gpucore::Device& device = GetParam().device;
    known::for_each_reduce_rows_case([&](const auto& c) {
        using T = typename std::decay_t<decltype(c.in)>::value_type;
        SCOPED_TRACE(std::string(gpucore::to_string(gpucore::dtype_of<T>())) + " " + c.what);
        const T sentinel = sentinel_avoiding<T>(c.want);
        EXPECT_TRUE(elements_match(run_reduce_rows(device, c.in, c.rows, c.cols, c.op, sentinel),
                                   c.want, sentinel));
    });
}

TEST_P(KnownValues, Transpose) {
    const gpucore::Device& device = GetParam().device;
    known::for_each_transpose_case([&](const auto& c) {
        using T = typename std::decay_t<decltype(c.in)>::value_type;
        SCOPED_TRACE(std::string(gpucore::to_string(gpucore::dtype_of<T>())) + " " + c.what);
        const T sentinel = sentinel_avoiding<T>(c.want);
        EXPECT_TRUE(elements_match(run_transpose(device, c.in, c.rows, c.cols, sentinel), c.want,
                                   sentinel));
    });
}

TEST_P(KnownValues, VectorAdd) {
    const gpucore::Device& device = GetParam().device;
    known::for_each_vector_add_case([&](const auto& c) {
        using T = typename std::decay_t<decltype(c.a)>::value_type;
        SCOPED_TRACE(std::string(gpucore::to_string(gpucore::dtype_of<T>())) + " " + c.what);
        const T sentinel = sentinel_avoiding<T>(c.want);
        EXPECT_TRUE(elements_match(run_vector_add(device, c.a, c.b, sentinel), c.want, sentinel));
    });
}

INSTANTIATE_TEST_SUITE_P(Devices, KnownValues, testing::ValuesIn(device_cases()), CaseName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(KnownValues);

} // namespace
} // namespace conformance

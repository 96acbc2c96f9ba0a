// SPDX-License-Identifier: Apache-2.0
// reduce on every device x dtype x op x awkward length: exact patterns, real-valued patterns within
// a justified tolerance, extrema planted first / last / in the middle, NaN propagation, identities.
#include <gtest/gtest.h>

#include <limits>

#include "cases.hpp"
#include "compare.hpp"
#include "device_runs.hpp"
#include "random_inputs.hpp"
#include "reduce_expectations.hpp"

namespace conformance {
namespace {

class Reduce : public testing::TestWithParam<ReduceCase> {};
class ReduceNan : public testing::TestWithParam<ReduceCase> {};

std::string slot_position(std::size_t i) {
    return i == 0 ? std::string("out[0]") : "out[" + std::to_string(i) + "] (must stay untouched)";
}

template <class T>
void expect_reduce_matches(const gpucore::Device& device, gpucore::ReduceOp op, Pattern pattern,
                           const std::vector<T>& in) {
    const reference::Expected want = expected_reductions<T>(op, pattern, in, 1, in.size())[0];
    const T sentinel = sentinel_avoiding<T>(std::vector<double>{want.value});
    const std::vector<T> got = run_reduce(device, in, op, sentinel);
    const reference::Expected untouched{static_cast<double>(sentinel), 0.0};
    EXPECT_TRUE(elements_match(got, std::vector<reference::Expected>{want, untouched, untouched}, sentinel,
                               slot_position));
}

template <class T>
void check_reduce(const gpucore::Device& device, gpucore::ReduceOp op, std::size_t n) {
    CONFORMANCE_SEEDED_RNG(rng);
    for (Pattern pattern : reduce_patterns<T>(op)) {
        SCOPED_TRACE(std::string("input pattern ") + to_string(pattern));
        const auto in = random_values<T>(rng, pattern, n, n);
        if (!is_order_op(op) || n == 0) {
            expect_reduce_matches(device, op, pattern, in);
            continue;
        }
        for (std::size_t position : {std::size_t{0}, n - 1, random_index(rng, n)}) {
            SCOPED_TRACE("extremum planted at i=" + std::to_string(position));
            auto planted = in;
            planted[position] = planted_extremum<T>(op);
            expect_reduce_matches(device, op, pattern, planted);
        }
    }
}

// A NaN first, last or in the middle makes min/max NaN, even beside a planted extremum.
template <class T>
void check_reduce_nan(const gpucore::Device& device, gpucore::ReduceOp op, std::size_t n) {
    CONFORMANCE_SEEDED_RNG(rng);
    const auto in = random_values<T>(rng, Pattern::general, n, n);
    for (std::size_t position : {std::size_t{0}, n - 1, random_index(rng, n)}) {
        SCOPED_TRACE("NaN at i=" + std::to_string(position));
        auto poisoned = in;
        poisoned[(position + n / 2) % n] = planted_extremum<T>(op);
        poisoned[position] = std::numeric_limits<T>::quiet_NaN();
        expect_reduce_matches(device, op, Pattern::general, poisoned);
    }
}

TEST_P(Reduce, MatchesReference) {
    const ReduceCase& c = GetParam();
    with_dtype(c.dtype, [&](auto tag) { check_reduce<typename decltype(tag)::type>(c.device, c.op, c.n); });
}

TEST_P(ReduceNan, PropagatesNan) {
    const ReduceCase& c = GetParam();
    with_dtype(c.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_floating_point_v<T>) check_reduce_nan<T>(c.device, c.op, c.n);
    });
}

INSTANTIATE_TEST_SUITE_P(Devices, Reduce, testing::ValuesIn(reduce_cases(awkward_sizes())),
                         CaseName{});
INSTANTIATE_TEST_SUITE_P(Devices, ReduceNan, testing::ValuesIn(nan_reduce_cases(awkward_sizes())),
                         CaseName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Reduce);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReduceNan);

} // namespace
} // namespace conformance

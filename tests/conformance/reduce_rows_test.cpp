// SPDX-License-Identifier: Apache-2.0
// reduce_rows on every device x dtype x op x shape: degenerate (0xN, Nx0, 1xN, Nx1), many short
// rows, few long rows, a large odd matrix. Row r of the output is checked against the reference
// for row r alone, with the tolerance of a reduction of `cols` elements.
#include <gtest/gtest.h>

#include <limits>

#include "cases.hpp"
#include "compare.hpp"
#include "device_runs.hpp"
#include "random_inputs.hpp"
#include "reduce_expectations.hpp"

namespace conformance {
namespace {

class ReduceRows : public testing::TestWithParam<ReduceRowsCase> {};
class ReduceRowsNan : public testing::TestWithParam<ReduceRowsCase> {};

std::string row_position(std::size_t r) { return "row " + std::to_string(r); }

template <class T>
void expect_reduce_rows_matches(const gpucore::Device& device, gpucore::ReduceOp op,
                                Pattern pattern, const std::vector<T>& in, Shape shape) {
    const auto want = expected_reductions<T>(op, pattern, in, shape.rows, shape.cols);
    const T sentinel = sentinel_avoiding<T>(values_of(want));
    const auto got = run_reduce_rows(device, in, shape.rows, shape.cols, op, sentinel);
    EXPECT_TRUE(elements_match(got, want, sentinel, row_position));
}

// Column of row r's planted value: row 0 at its first element, the last row at its last, the
// others anywhere, so row boundaries are exercised from both sides.
std::size_t planted_column(Rng& rng, std::size_t r, Shape shape) {
    if (r == 0) return 0;
    if (r + 1 == shape.rows) return shape.cols - 1;
    return random_index(rng, shape.cols);
}

template <class T>
void check_reduce_rows(const gpucore::Device& device, gpucore::ReduceOp op, Shape shape) {
    CONFORMANCE_SEEDED_RNG(rng);
    for (Pattern pattern : reduce_patterns<T>(op)) {
        SCOPED_TRACE(std::string("input pattern ") + to_string(pattern));
        auto in = random_values<T>(rng, pattern, shape.rows * shape.cols, shape.cols);
        if (is_order_op(op) && shape.cols > 0)
            for (std::size_t r = 0; r < shape.rows; ++r)
                in[r * shape.cols + planted_column(rng, r, shape)] = planted_extremum<T>(op);
        expect_reduce_rows_matches(device, op, pattern, in, shape);
    }
}

// NaN in every third row (rows 1, 4, 7, ...) makes exactly those rows NaN; the others keep their
// planted extremum.
template <class T>
void check_reduce_rows_nan(const gpucore::Device& device, gpucore::ReduceOp op, Shape shape) {
    CONFORMANCE_SEEDED_RNG(rng);
    auto in = random_values<T>(rng, Pattern::general, shape.rows * shape.cols, shape.cols);
    for (std::size_t r = 0; r < shape.rows; ++r) {
        in[r * shape.cols + planted_column(rng, r, shape)] = planted_extremum<T>(op);
        if (r % 3 == 1 || shape.rows == 1)
            in[r * shape.cols + planted_column(rng, r == 1 ? 0 : r, shape)] =
                std::numeric_limits<T>::quiet_NaN();
    }
    expect_reduce_rows_matches(device, op, Pattern::general, in, shape);
}

TEST_P(ReduceRows, MatchesReference) {
    const ReduceRowsCase& c = GetParam();
    with_dtype(c.dtype, [&](auto tag) {
        check_reduce_rows<typename decltype(tag)::type>(c.device, c.op, c.shape);
    });
}

TEST_P(ReduceRowsNan, PropagatesNanPerRow) {
    const ReduceRowsCase& c = GetParam();
    with_dtype(c.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_floating_point_v<T>) check_reduce_rows_nan<T>(c.device, c.op, c.shape);
    });
}

INSTANTIATE_TEST_SUITE_P(Devices, ReduceRows,
                         testing::ValuesIn(reduce_rows_cases(reduce_rows_shapes())), CaseName{});
INSTANTIATE_TEST_SUITE_P(Devices, ReduceRowsNan,
                         testing::ValuesIn(nan_reduce_rows_cases(reduce_rows_shapes())), CaseName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReduceRows);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReduceRowsNan);

} // namespace
} // namespace conformance

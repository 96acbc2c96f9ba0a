// SPDX-License-Identifier: Apache-2.0
// transpose on every device, dtype and shape (empty, vectors, odd tiles, large non-square).
#include <gtest/gtest.h>

#include "cases.hpp"
#include "compare.hpp"
#include "device_runs.hpp"
#include "random_inputs.hpp"

namespace conformance {
namespace {

class Transpose : public testing::TestWithParam<ShapeCase> {};

template <class T>
void check_transpose(const gpucore::Device& device, Shape shape) {
    CONFORMANCE_SEEDED_RNG(rng);
    const std::size_t n = shape.rows * shape.cols;
    const auto in = random_values<T>(rng, Pattern::general, n, n);
    const auto want = reference::transpose(in, shape.rows, shape.cols);
    const T sentinel = sentinel_avoiding<T>(want);
    // Output is cols x rows: element i sits at row i / rows, column i % rows.
    const std::size_t out_cols = shape.rows;
    const PositionFormatter where = [out_cols](std::size_t i) {
        return "out row " + std::to_string(i / out_cols) + " col " + std::to_string(i % out_cols);
    };
    EXPECT_TRUE(elements_match(run_transpose(device, in, shape.rows, shape.cols, sentinel), want,
                               sentinel, where));
}

TEST_P(Transpose, MatchesReference) {
    const ShapeCase& c = GetParam();
    with_dtype(c.dtype, [&](auto tag) { check_transpose<typename decltype(tag)::type>(c.device, c.shape); });
}

INSTANTIATE_TEST_SUITE_P(Devices, Transpose, testing::ValuesIn(shape_cases(transpose_shapes())),
                         CaseName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Transpose);

} // namespace
} // namespace conformance

// SPDX-License-Identifier: Apache-2.0
// The CPU reference against the same hand-computed results, plus the properties the tolerances rely
// on (exact patterns really are exact). Runs without any device.
#include <gtest/gtest.h>

#include <cmath>

#include "compare.hpp"
#include "known_values.hpp"
#include "random_inputs.hpp"
#include "reference.hpp"
#include "tolerance.hpp"

namespace conformance {
namespace {

TEST(Reference, ReduceKnownValues) {
    known::for_each_reduce_case([](const auto& c) {
        SCOPED_TRACE(c.what);
        EXPECT_TRUE(same_value(c.want, reference::reduce(c.in.data(), c.in.size(), c.op)));
    });
}

TEST(Reference, ReduceRowsKnownValues) {
    known::for_each_reduce_rows_case([](const auto& c) {
        SCOPED_TRACE(c.what);
        const auto got = reference::reduce_rows(c.in, c.rows, c.cols, c.op);
        ASSERT_EQ(got.size(), c.want.size());
        for (std::size_t r = 0; r < got.size(); ++r) EXPECT_TRUE(same_value(c.want[r], got[r])) << "row " << r;
    });
}

TEST(Reference, TransposeKnownValues) {
    known::for_each_transpose_case([](const auto& c) {
        SCOPED_TRACE(c.what);
        EXPECT_EQ(reference::transpose(c.in, c.rows, c.cols), c.want);
    });
}

TEST(Reference, VectorAddKnownValues) {
    known::for_each_vector_add_case([](const auto& c) {
        SCOPED_TRACE(c.what);
        EXPECT_EQ(reference::vector_add(c.a, c.b), c.want);
    });
}

// The compensated reference recovers what a float accumulator loses: 1 + 1e-8 * 10^6 = 1.01.
TEST(Reference, FloatSumIsAccurate) {
    std::vector<float> x(1000001, 1e-8f);
    x[0] = 1.0f;
    const long double want = 1.0L + 1000000.0L * static_cast<long double>(1e-8f);
    EXPECT_NEAR(static_cast<double>(reference::reduce(x.data(), x.size(), gpucore::ReduceOp::sum)),
                static_cast<double>(want), 1e-12);
}

// exact_sum and exact_product inputs give the same float result in forward and reverse serial
// order (two of the many orders a backend may use), equal to the reference.
TEST(Reference, ExactPatternsAreOrderIndependent) {
    Rng rng(12345);
    for (std::size_t n : {std::size_t{1000003}, std::size_t{4097}}) {
        const auto xs = random_values<float>(rng, Pattern::exact_sum, n, n);
        float forward = 0, backward = 0;
        for (std::size_t i = 0; i < n; ++i) forward += xs[i];
        for (std::size_t i = n; i-- > 0;) backward += xs[i];
        EXPECT_EQ(forward, backward);
        EXPECT_EQ(static_cast<long double>(forward), reference::reduce(xs.data(), n, gpucore::ReduceOp::sum));

        const auto xp = random_values<float>(rng, Pattern::exact_product, n, n);
        float pf = 1, pb = 1;
        for (std::size_t i = 0; i < n; ++i) pf *= xp[i];
        for (std::size_t i = n; i-- > 0;) pb *= xp[i];
        EXPECT_EQ(pf, pb);
        EXPECT_EQ(static_cast<long double>(pf), reference::reduce(xp.data(), n, gpucore::ReduceOp::prod));
    }
}

// The sum tolerance is tight enough to reject one long serial float accumulator over 10^6
// positive values: otherwise the "tree-accumulated" requirement would be untested.
TEST(Reference, SumToleranceRejectsSerialFloatAccumulation) {
    Rng rng(777);
    const std::size_t n = 1000003;
    const auto x = random_values<float>(rng, Pattern::positive_reals, n, n);
    float serial = 0;
    for (float v : x) serial += v;
    const long double want = reference::reduce(x.data(), n, gpucore::ReduceOp::sum);
    const long double bound =
        tolerance::sum_bound<float>(n, reference::sum_of_magnitudes(x.data(), n), want);
    EXPECT_GT(std::fabs(static_cast<long double>(serial) - want), bound);
}

// Orders a correct backend may use: serial, k interleaved accumulators folded as a tree (SIMD
// lanes, GPU threads). The tolerances must accept every one of them, with margin.
template <class T>
T interleaved(const std::vector<T>& x, std::size_t k, gpucore::ReduceOp op) {
    std::vector<T> acc(k, op == gpucore::ReduceOp::sum ? T(0) : T(1));
    for (std::size_t i = 0; i < x.size(); ++i)
        acc[i % k] = op == gpucore::ReduceOp::sum ? acc[i % k] + x[i] : acc[i % k] * x[i];
    for (std::size_t width = k / 2; width > 0; width /= 2)
        for (std::size_t a = 0; a < width; ++a)
            acc[a] = op == gpucore::ReduceOp::sum ? acc[a] + acc[a + width] : acc[a] * acc[a + width];
    return acc[0];
}

TEST(Reference, ToleranceAcceptsEveryCorrectOrder) {
    Rng rng(4242);
    const std::size_t n = 1048576;
    for (Pattern pattern : {Pattern::positive_reals, Pattern::mixed_reals, Pattern::near_one}) {
        SCOPED_TRACE(to_string(pattern));
        const auto op = pattern == Pattern::near_one ? gpucore::ReduceOp::prod : gpucore::ReduceOp::sum;
        const auto x = random_values<float>(rng, pattern, n, n);
        const long double want = reference::reduce(x.data(), n, op);
        const long double bound = op == gpucore::ReduceOp::sum
                                      ? tolerance::sum_bound<float>(n, reference::sum_of_magnitudes(x.data(), n), want)
                                      : tolerance::prod_bound<float>(n, want);
        // A serial chain is only a valid order for products (sums must be tree-accumulated).
        if (op == gpucore::ReduceOp::prod) {
            EXPECT_LE(std::fabs(static_cast<long double>(interleaved(x, 1, op)) - want), bound / 2) << "serial";
        }
        for (std::size_t k : {std::size_t{64}, std::size_t{4096}, std::size_t{262144}})
            EXPECT_LE(std::fabs(static_cast<long double>(interleaved(x, k, op)) - want), bound / 2)
                << k << " accumulators";
    }
}

// ...and still reject a product that lost one factor (here: the middle one).
TEST(Reference, ProdToleranceRejectsADroppedFactor) {
    Rng rng(4243);
    const std::size_t n = 1048576;
    auto x = random_values<float>(rng, Pattern::near_one, n, n);
    const long double want = reference::reduce(x.data(), n, gpucore::ReduceOp::prod);
    x.erase(x.begin() + static_cast<std::ptrdiff_t>(n / 2));
    EXPECT_GT(std::fabs(static_cast<long double>(interleaved(x, 4096, gpucore::ReduceOp::prod)) - want),
              tolerance::prod_bound<float>(n, want));
}

// The wrapped integer product of odd factors is never 0 (the point of the pattern).
TEST(Reference, OddProductPatternStaysNonzero) {
    Rng rng(99);
    const auto x = random_values<std::uint32_t>(rng, Pattern::exact_product, 65537, 65537);
    EXPECT_NE(reference::reduce(x.data(), x.size(), gpucore::ReduceOp::prod), 0u);
}

} // namespace
} // namespace conformance

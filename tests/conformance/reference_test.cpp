// SPDX-License-Identifier: Apache-2.0
// The reference library (gpucore_reference) against the same hand-computed results, the rules that
// are easy to get wrong (NaN, rounding of 16-bit floats, infinities, exact comparison), and the
// properties the tolerances rely on (exact patterns really are exact). Runs without any device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "compare.hpp"
#include "gpucore_reference/verify.hpp"
#include "known_values.hpp"
#include "random_inputs.hpp"

namespace conformance {
namespace {

TEST(Reference, ReduceKnownValues) {
    known::for_each_reduce_case([](const auto& c) {
        SCOPED_TRACE(c.what);
        const reference::Expected got = reference::reduce(c.in.data(), c.in.size(), c.op);
        EXPECT_TRUE(same_value(c.want, got.value)) << got.value;
        if (!std::is_floating_point_v<typename decltype(c.in)::value_type> || c.op == gpucore::ReduceOp::min ||
            c.op == gpucore::ReduceOp::max) {
            EXPECT_EQ(got.tolerance, 0.0) << "integers, min and max are exact";
        }
    });
}

TEST(Reference, ReduceRowsKnownValues) {
    known::for_each_reduce_rows_case([](const auto& c) {
        SCOPED_TRACE(c.what);
        const auto got = reference::reduce_rows(c.in, c.rows, c.cols, c.op);
        ASSERT_EQ(got.size(), c.want.size());
        for (std::size_t r = 0; r < got.size(); ++r) EXPECT_TRUE(same_value(c.want[r], got[r].value)) << "row " << r;
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

// The compensated reference recovers what a float accumulator loses (1 + 1e-8 * 10^6 = 1.01) and
// rounds it once: the float nearest to the exact sum.
TEST(Reference, FloatSumIsCorrectlyRounded) {
    std::vector<float> x(1000001, 1e-8f);
    x[0] = 1.0f;
    const long double exact = 1.0L + 1000000.0L * static_cast<long double>(1e-8f);
    EXPECT_EQ(reference::reduce(x.data(), x.size(), gpucore::ReduceOp::sum).value,
              static_cast<double>(static_cast<float>(exact)));
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
        EXPECT_EQ(static_cast<double>(forward), reference::reduce(xs.data(), n, gpucore::ReduceOp::sum).value);

        const auto xp = random_values<float>(rng, Pattern::exact_product, n, n);
        float pf = 1, pb = 1;
        for (std::size_t i = 0; i < n; ++i) pf *= xp[i];
        for (std::size_t i = n; i-- > 0;) pb *= xp[i];
        EXPECT_EQ(pf, pb);
        EXPECT_EQ(static_cast<double>(pf), reference::reduce(xp.data(), n, gpucore::ReduceOp::prod).value);
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
    const reference::Expected want = reference::reduce(x.data(), n, gpucore::ReduceOp::sum);
    EXPECT_GT(std::fabs(static_cast<double>(serial) - want.value), want.tolerance);
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
        const reference::Expected e = reference::reduce(x.data(), n, op);
        const double want = e.value, bound = e.tolerance;
        // A serial chain is only a valid order for products (sums must be tree-accumulated).
        if (op == gpucore::ReduceOp::prod) {
            EXPECT_LE(std::fabs(static_cast<double>(interleaved(x, 1, op)) - want), bound / 2) << "serial";
        }
        for (std::size_t k : {std::size_t{64}, std::size_t{4096}, std::size_t{262144}})
            EXPECT_LE(std::fabs(static_cast<double>(interleaved(x, k, op)) - want), bound / 2)
                << k << " accumulators";
    }
}

// ...and still reject a product that lost one factor (here: the middle one).
TEST(Reference, ProdToleranceRejectsADroppedFactor) {
    Rng rng(4243);
    const std::size_t n = 1048576;
    auto x = random_values<float>(rng, Pattern::near_one, n, n);
    const reference::Expected want = reference::reduce(x.data(), n, gpucore::ReduceOp::prod);
    x.erase(x.begin() + static_cast<std::ptrdiff_t>(n / 2));
    EXPECT_GT(std::fabs(static_cast<double>(interleaved(x, 4096, gpucore::ReduceOp::prod)) - want.value),
              want.tolerance);
}

// The wrapped integer product of odd factors is never 0 (the point of the pattern).
TEST(Reference, OddProductPatternStaysNonzero) {
    Rng rng(99);
    const auto x = random_values<std::uint32_t>(rng, Pattern::exact_product, 65537, 65537);
    EXPECT_NE(reference::reduce(x.data(), x.size(), gpucore::ReduceOp::prod).value, 0.0);
}

// --- The rules where the command's, the suites' and the stress tests' own references disagreed. ---

// A NaN anywhere makes min and max NaN (the command's reference dropped it: std::min(acc, NaN)).
TEST(ReferenceRules, NanAnywhereGivesNanForMinAndMax) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const auto op : {gpucore::ReduceOp::min, gpucore::ReduceOp::max})
        for (const std::vector<float>& x : {std::vector<float>{nan, 1, 2}, std::vector<float>{1, nan, 2},
                                            std::vector<float>{1, 2, nan}})
            EXPECT_TRUE(std::isnan(reference::reduce(x.data(), x.size(), op).value)) << gpucore::to_string(op);
}

// A NaN result matches only a NaN (the command counted a NaN against a NaN as a mismatch).
TEST(ReferenceRules, NanMatchesOnlyNan) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_TRUE(reference::matches(nan, nan, 0));
    EXPECT_FALSE(reference::matches(nan, 1, inf));
    EXPECT_FALSE(reference::matches(1, nan, inf));
    EXPECT_TRUE(reference::matches(inf, inf, 0));
    EXPECT_FALSE(reference::matches(1e308, inf, inf)) << "an infinity matches only itself";
    EXPECT_FALSE(reference::matches(-inf, inf, inf));
    EXPECT_TRUE(reference::matches(1.0, 1.5, 0.5));
    EXPECT_FALSE(reference::matches(1.0, 1.5, 0.25));
    const float x[] = {3, std::numeric_limits<float>::quiet_NaN(), -1};
    EXPECT_TRUE(reference::verify_reduce(x, 3, std::numeric_limits<float>::quiet_NaN(), gpucore::ReduceOp::max).passed);
    EXPECT_FALSE(reference::verify_reduce(x, 3, 3.0f, gpucore::ReduceOp::max).passed);
}

// Sums with an infinity are what IEEE arithmetic gives (a compensated sum alone made them NaN).
TEST(ReferenceRules, SumsOfInfinitiesFollowIeee) {
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> up = {1, inf, 2}, both = {inf, 1, -inf};
    EXPECT_EQ(reference::reduce(up.data(), up.size(), gpucore::ReduceOp::sum).value, static_cast<double>(inf));
    EXPECT_TRUE(std::isnan(reference::reduce(both.data(), both.size(), gpucore::ReduceOp::sum).value));
    EXPECT_TRUE(reference::verify_reduce(up.data(), up.size(), inf, gpucore::ReduceOp::sum).passed);
}

// vector_add is the correctly rounded sum, bit for bit (the command allowed an ulp and a flushed
// subnormal).
TEST(ReferenceRules, VectorAddIsExact) {
    const std::vector<float> a = {1.0f, 3.0f}, b = {std::ldexp(1.0f, -30), 1e-3f};
    std::vector<float> c = {a[0] + b[0], a[1] + b[1]};
    EXPECT_TRUE(reference::verify_vector_add(a.data(), b.data(), c.data(), a.size()).passed);
    c[1] = std::nextafter(c[1], 10.0f);
    const auto v = reference::verify_vector_add(a.data(), b.data(), c.data(), a.size());
    EXPECT_FALSE(v.passed) << "one ulp off";
    EXPECT_EQ(v.first_mismatch, 1u);
    const float tiny = std::numeric_limits<float>::denorm_min();
    const std::vector<float> s = {tiny}, zero = {0.0f}, flushed = {0.0f};
    EXPECT_FALSE(reference::verify_vector_add(s.data(), zero.data(), flushed.data(), 1).passed)
        << "a subnormal sum flushed to zero";
}

// Moved data keeps every bit: -0 for +0 is a wrong transpose (the command compared values).
TEST(ReferenceRules, TransposeIsBitExact) {
    const std::vector<float> in = {0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f}; // 2 x 3
    std::vector<float> out = reference::transpose(in, 2, 3);
    EXPECT_EQ(out, (std::vector<float>{0, 3, 1, 4, 2, 5}));
    EXPECT_TRUE(reference::verify_transpose(in.data(), out.data(), 2, 3).passed);
    out[0] = -0.0f;
    EXPECT_FALSE(reference::verify_transpose(in.data(), out.data(), 2, 3).passed);
}

// half and bfloat16: vector_add and reductions round once to nearest, ties to even; a sum beyond
// the format's range is infinity (the suites and the command compared with the unrounded value).
TEST(ReferenceRules, SixteenBitFloatsRoundToNearestEven) {
    using gpucore::bfloat16;
    using gpucore::half;
    // half spacing is 2 in [2048, 4096): 2049 and 2051 are ties.
    EXPECT_EQ(static_cast<float>(reference::add(half(2048.0f), half(1.0f))), 2048.0f);
    EXPECT_EQ(static_cast<float>(reference::add(half(2050.0f), half(1.0f))), 2052.0f);
    // bfloat16 spacing is 2 in [256, 512).
    EXPECT_EQ(static_cast<float>(reference::add(bfloat16(256.0f), bfloat16(1.0f))), 256.0f);
    EXPECT_EQ(static_cast<float>(reference::add(bfloat16(258.0f), bfloat16(1.0f))), 260.0f);
    const std::vector<half> tie = {half(2048.0f), half(1.0f)};
    EXPECT_EQ(reference::reduce(tie.data(), tie.size(), gpucore::ReduceOp::sum).value, 2048.0);
    const std::vector<bfloat16> tie16 = {bfloat16(258.0f), bfloat16(1.0f)};
    EXPECT_EQ(reference::reduce(tie16.data(), tie16.size(), gpucore::ReduceOp::sum).value, 260.0);
    const std::vector<half> big = {half(65504.0f), half(32.0f)}; // 65536 rounds beyond 65504
    EXPECT_EQ(reference::reduce(big.data(), big.size(), gpucore::ReduceOp::sum).value,
              std::numeric_limits<double>::infinity());
    const half inf = std::numeric_limits<half>::infinity();
    EXPECT_TRUE(reference::verify_reduce(big.data(), big.size(), inf, gpucore::ReduceOp::sum).passed);
    const std::vector<half> nan_in = {half(1.0f), std::numeric_limits<half>::quiet_NaN()};
    EXPECT_TRUE(std::isnan(reference::reduce(nan_in.data(), 2, gpucore::ReduceOp::min).value));
}

// Integers wrap as unsigned arithmetic of their width, at every length.
TEST(ReferenceRules, IntegersWrapAtAwkwardLengths) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{33},
                                std::size_t{1023}, std::size_t{65537}}) {
        std::vector<std::uint32_t> u(n);
        std::vector<std::int32_t> i(n);
        std::uint64_t wide = 0;
        std::int64_t signed_wide = 0;
        for (std::size_t k = 0; k < n; ++k) {
            u[k] = 0xFFFFFFF0u - static_cast<std::uint32_t>(k);
            i[k] = k % 2 ? std::numeric_limits<std::int32_t>::max() - static_cast<std::int32_t>(k) : -7;
            wide += u[k];
            signed_wide += i[k];
        }
        EXPECT_EQ(reference::reduce(u.data(), n, gpucore::ReduceOp::sum).value,
                  static_cast<double>(static_cast<std::uint32_t>(wide)))
            << n;
        EXPECT_EQ(reference::reduce(i.data(), n, gpucore::ReduceOp::sum).value,
                  static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(
                      static_cast<std::uint64_t>(signed_wide)))))
            << n;
    }
}

// Float sums of small integers are exact at awkward lengths.
TEST(ReferenceRules, ExactFloatSumsAtAwkwardLengths) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{4097},
                                std::size_t{1000003}}) {
        std::vector<double> x(n);
        long long exact = 0;
        for (std::size_t k = 0; k < n; ++k) {
            x[k] = static_cast<double>(static_cast<long long>(k % 17) - 8);
            exact += static_cast<long long>(k % 17) - 8;
        }
        EXPECT_EQ(reference::reduce(x.data(), n, gpucore::ReduceOp::sum).value, static_cast<double>(exact)) << n;
    }
}

} // namespace
} // namespace conformance

// SPDX-License-Identifier: Apache-2.0
// Tests of the command's checker itself (the reference library's checks, as verify.hpp names them;
// random_fill, case_spec, operations): it must pass correct results and catch wrong ones, or `gpucore run`
// proves nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "case_spec.hpp"
#include "operation.hpp"
#include "random_fill.hpp"
#include "verify.hpp"

namespace gpucore::cli {
namespace {

template <class T>
std::vector<T> random_input(const char* op, ReduceOp rop, std::size_t rows, std::size_t cols,
                            std::uint64_t seed = 3) {
    CaseSpec spec;
    spec.op = &operation(op);
    spec.dtype = dtype_of<T>();
    spec.reduce_op = rop;
    spec.rows = rows;
    spec.cols = cols;
    std::vector<T> x(rows * cols);
    random_fill(x.data(), x.size(), seed, input_distribution(spec));
    return x;
}

// Pairwise float sum: what an accurate backend does.
float pairwise_sum(const float* x, std::size_t n) {
    if (n <= 8) {
        float s = 0;
        for (std::size_t i = 0; i < n; ++i) s += x[i];
        return s;
    }
    return pairwise_sum(x, n / 2) + pairwise_sum(x + n / 2, n - n / 2);
}

TEST(VectorAddCheck, PassesCorrectAndCatchesOneWrongElement) {
    const std::size_t n = 4097;
    const auto a = random_input<float>("vector_add", ReduceOp::sum, 1, n, 1);
    const auto b = random_input<float>("vector_add", ReduceOp::sum, 1, n, 2);
    std::vector<float> c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    EXPECT_TRUE(verify_vector_add(a.data(), b.data(), c.data(), n).passed);

    c[n - 1] = std::nextafter(std::nextafter(c[n - 1], 10.0f), 10.0f); // two ulps off
    const Verification v = verify_vector_add(a.data(), b.data(), c.data(), n);
    EXPECT_FALSE(v.passed);
    EXPECT_EQ(v.mismatches, 1u);
    EXPECT_EQ(v.first_mismatch, n - 1);
}

TEST(VectorAddCheck, PoisonAndIntegerOverflowWithoutWrapAreCaught) {
    const std::size_t n = 100;
    std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, 3.0f);
    c[17] = std::numeric_limits<float>::quiet_NaN();
    const Verification v = verify_vector_add(a.data(), b.data(), c.data(), n);
    EXPECT_FALSE(v.passed);
    EXPECT_EQ(v.first_mismatch, 17u);
    EXPECT_TRUE(std::isinf(v.max_error));

    std::vector<std::int32_t> x{2147483647, -5}, y{1, -2147483647}, wrapped{-2147483647 - 1, 2147483644};
    EXPECT_TRUE(verify_vector_add(x.data(), y.data(), wrapped.data(), 2).passed);
    std::vector<std::int32_t> saturated{2147483647, -2147483647 - 1};
    EXPECT_EQ(verify_vector_add(x.data(), y.data(), saturated.data(), 2).mismatches, 2u);
}

TEST(TransposeCheck, PassesCorrectAndCatchesASwap) {
    for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{33, 65}, {1, 100}, {100, 1}}) {
        const auto in = random_input<double>("transpose", ReduceOp::sum, rows, cols);
        std::vector<double> out(rows * cols);
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j) out[j * rows + i] = in[i * cols + j];
        EXPECT_TRUE(verify_transpose(in.data(), out.data(), rows, cols).passed);
        std::swap(out[3], out[out.size() - 2]);
        const Verification v = verify_transpose(in.data(), out.data(), rows, cols);
        EXPECT_EQ(v.mismatches, 2u) << rows << "x" << cols;
        EXPECT_EQ(v.first_mismatch, 3u);
    }
    // A copy instead of a transpose of a non-square matrix is wrong almost everywhere.
    const auto in = random_input<float>("transpose", ReduceOp::sum, 7, 9);
    EXPECT_FALSE(verify_transpose(in.data(), in.data(), 7, 9).passed);
}

TEST(ReduceCheck, AccurateFloatSumPassesAndALongSerialSumFails) {
    const std::size_t n = std::size_t{1} << 22;
    const auto x = random_input<float>("reduce", ReduceOp::sum, 1, n);
    EXPECT_TRUE(verify_reduce(x.data(), n, pairwise_sum(x.data(), n), ReduceOp::sum).passed);
    float serial = 0;
    for (float v : x) serial += v;
    EXPECT_FALSE(verify_reduce(x.data(), n, serial, ReduceOp::sum).passed)
        << "one serial float accumulator over 2^22 values is not an accurate sum";
}

TEST(ReduceCheck, ADroppedElementIsCaught) {
    const std::size_t n = 4097;
    const auto x = random_input<float>("reduce", ReduceOp::sum, 1, n);
    EXPECT_TRUE(verify_reduce(x.data(), n, pairwise_sum(x.data(), n), ReduceOp::sum).passed);
    EXPECT_FALSE(verify_reduce(x.data(), n, pairwise_sum(x.data(), n - 1), ReduceOp::sum).passed);
}

TEST(ReduceCheck, FloatProductsOfTheCommandsInputsAreExactInAnyOrder) {
    const std::size_t n = (std::size_t{1} << 20) + 7;
    const auto x = random_input<float>("reduce", ReduceOp::prod, 1, n);
    float forward = 1, backward = 1;
    for (std::size_t i = 0; i < n; ++i) forward *= x[i];
    for (std::size_t i = n; i-- > 0;) backward *= x[i];
    EXPECT_EQ(forward, backward);
    EXPECT_NE(forward, 0.0f);
    EXPECT_TRUE(std::isfinite(forward));
    const Verification v = verify_reduce(x.data(), n, forward, ReduceOp::prod);
    EXPECT_TRUE(v.passed);
    EXPECT_EQ(v.max_error, 0.0);
    // Leaving out the first element that is not 1 changes the product.
    std::size_t skip = 0;
    while (x[skip] == 1.0f) ++skip;
    float without = 1;
    for (std::size_t i = 0; i < n; ++i)
        if (i != skip) without *= x[i];
    EXPECT_FALSE(verify_reduce(x.data(), n, without, ReduceOp::prod).passed);
}

TEST(ReduceCheck, IntegersAreExactAndWrap) {
    const std::size_t n = 10007;
    const auto x = random_input<std::uint32_t>("reduce", ReduceOp::sum, 1, n);
    std::uint32_t wrapped = 0;
    std::uint64_t wide = 0;
    for (std::uint32_t v : x) {
        wrapped += v;
        wide += v;
    }
    ASSERT_GT(wide, 0xFFFFFFFFull) << "the inputs should overflow 32 bits";
    EXPECT_TRUE(verify_reduce(x.data(), n, wrapped, ReduceOp::sum).passed);
    EXPECT_FALSE(verify_reduce(x.data(), n, wrapped + 1u, ReduceOp::sum).passed);

    const auto odd = random_input<std::int32_t>("reduce", ReduceOp::prod, 1, n);
    std::uint32_t prod = 1;
    for (std::int32_t v : odd) prod *= static_cast<std::uint32_t>(v);
    EXPECT_NE(prod, 0u) << "products of odd values never collapse to 0";
    EXPECT_TRUE(verify_reduce(odd.data(), n, static_cast<std::int32_t>(prod), ReduceOp::prod).passed);
}

TEST(ReduceCheck, EmptyInputsExpectTheIdentity) {
    const float* none = nullptr;
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_TRUE(verify_reduce(none, 0, 0.0f, ReduceOp::sum).passed);
    EXPECT_TRUE(verify_reduce(none, 0, 1.0f, ReduceOp::prod).passed);
    EXPECT_TRUE(verify_reduce(none, 0, inf, ReduceOp::min).passed);
    EXPECT_TRUE(verify_reduce(none, 0, -inf, ReduceOp::max).passed);
    EXPECT_FALSE(verify_reduce(none, 0, 0.0f, ReduceOp::min).passed);
    EXPECT_FALSE(verify_reduce(none, 0, inf, ReduceOp::max).passed);
    const std::int32_t* no_ints = nullptr;
    EXPECT_TRUE(verify_reduce(no_ints, 0, std::numeric_limits<std::int32_t>::max(), ReduceOp::min).passed);
    EXPECT_TRUE(verify_reduce(no_ints, 0, std::numeric_limits<std::int32_t>::lowest(), ReduceOp::max).passed);
}

TEST(ReduceRowsCheck, OneWrongRowIsCaught) {
    const std::size_t rows = 37, cols = 513;
    const auto x = random_input<double>("reduce_rows", ReduceOp::max, rows, cols);
    std::vector<double> out(rows, -std::numeric_limits<double>::infinity());
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) out[r] = std::max(out[r], x[r * cols + c]);
    EXPECT_TRUE(verify_reduce_rows(x.data(), rows, cols, out.data(), ReduceOp::max).passed);
    out[20] = std::nextafter(out[20], 0.0);
    const Verification v = verify_reduce_rows(x.data(), rows, cols, out.data(), ReduceOp::max);
    EXPECT_EQ(v.mismatches, 1u);
    EXPECT_EQ(v.first_mismatch, 20u);
}

TEST(RandomFill, ReproducibleFromTheSeedAndDifferentAcrossSeeds) {
    const auto a = random_input<float>("vector_add", ReduceOp::sum, 1, 1000, 5);
    const auto b = random_input<float>("vector_add", ReduceOp::sum, 1, 1000, 5);
    const auto c = random_input<float>("vector_add", ReduceOp::sum, 1, 1000, 6);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    for (float v : a) {
        EXPECT_GE(v, -1.0f);
        EXPECT_LE(v, 1.0f);
    }
}

TEST(Counts, ParseDecimalAndPowersOfTwoAndRejectTheRest) {
    EXPECT_EQ(parse_count("0"), std::size_t{0});
    EXPECT_EQ(parse_count("4097"), std::size_t{4097});
    EXPECT_EQ(parse_count("2^26"), std::size_t{1} << 26);
    EXPECT_EQ(parse_count("1<<10"), std::size_t{1024});
    for (const char* bad : {"", "-1", "12a", "2^", "2^64", "2^x", "1e6", "99999999999999999999999"})
        EXPECT_FALSE(parse_count(bad).has_value()) << bad;
    EXPECT_EQ(count_text(std::size_t{1} << 26), "2^26");
    EXPECT_EQ(count_text(1000), "1000");
    EXPECT_FALSE(elements_fit(std::size_t{1} << 40, std::size_t{1} << 40, DType::f32));
    EXPECT_TRUE(elements_fit(8192, 8192, DType::f64));
}

TEST(ElementCheck, PassesWithinToleranceAndCatchesOneWrongElement) {
    const std::size_t n = 70000; // more than one block of the parallel comparison
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(2 * i) + 0.25f;
    const auto expected = [](std::size_t i) { return Expected{2.0 * static_cast<double>(i), 0.5}; };
    EXPECT_TRUE(verify_elements(out.data(), n, expected).passed);
    out[66000] += 1.0f;
    const Verification v = verify_elements(out.data(), n, expected);
    EXPECT_FALSE(v.passed);
    EXPECT_EQ(v.mismatches, 1u);
    EXPECT_EQ(v.first_mismatch, 66000u);
}

TEST(CaseSpec, BytesMovedCountReadsAndWrites) {
    CaseSpec add{&operation("vector_add"), DType::f32, ReduceOp::sum, 1, 1000};
    EXPECT_EQ(add.bytes_moved(), 12000.0);
    CaseSpec t{&operation("transpose"), DType::f64, ReduceOp::sum, 10, 20};
    EXPECT_EQ(t.bytes_moved(), 3200.0);
    CaseSpec r{&operation("reduce"), DType::u32, ReduceOp::sum, 1, 1000};
    EXPECT_EQ(r.bytes_moved(), 4004.0);
    CaseSpec rr{&operation("reduce_rows"), DType::i32, ReduceOp::sum, 10, 100};
    EXPECT_EQ(rr.bytes_moved(), 4040.0);
    EXPECT_EQ(rr.shape_text(), "10x100");
    EXPECT_EQ(rr.name(), "reduce_rows sum i32 10x100");
}

} // namespace
} // namespace gpucore::cli

// SPDX-License-Identifier: Apache-2.0
// The CPU backend's kernels through its table, against double-precision (floats) or exact wrapping
// (integers) references: random inputs, awkward sizes, poisoned outputs, NaN, identities.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu_kernels.hpp"
#include "gpucore/float16.hpp"
#include "cpu_parallel.hpp"
#include "cpu_test_support.hpp"

namespace gpucore::cpu::test {
namespace {

template <class T>
gpucore_dtype dtype_of() {
    return gpucore::dtype_id_of<T>();
}

const gpucore_reduce_op kOps[] = {GPUCORE_REDUCE_SUM, GPUCORE_REDUCE_MIN, GPUCORE_REDUCE_MAX,
                                  GPUCORE_REDUCE_PROD};

std::mt19937_64& rng() {
    static std::mt19937_64 engine(20240611);
    return engine;
}

// Products of many values stay finite and away from zero only for values close to 1.
template <class T>
T random_value(gpucore_reduce_op op) {
    if constexpr (std::is_floating_point_v<T>) {
        if (op == GPUCORE_REDUCE_PROD) return static_cast<T>(std::uniform_real_distribution<double>(0.999, 1.001)(rng()));
        return static_cast<T>(std::uniform_real_distribution<double>(-1.0, 1.0)(rng()));
    } else {
        return static_cast<T>(rng()()); // full range: sums and products wrap
    }
}

template <class T>
void poison(T* data, std::size_t count) {
    std::memset(static_cast<void*>(data), 0x5a, count * sizeof(T));
}

// ---- reduce ------------------------------------------------------------------------------------

// The reference: floats in double, NaN-propagating min/max; integers exactly, wrapping in uint32.
struct Reference {
    double value;       // floats
    std::uint32_t bits; // integers (the result's bit pattern)
    double magnitude;   // sum of |x| (floats): scales the sum's error bound
};

template <class T>
Reference reference(gpucore_reduce_op op, const T* x, std::size_t n) {
    Reference ref{0, 0, 0};
    if constexpr (std::is_floating_point_v<T>) {
        double acc = op == GPUCORE_REDUCE_SUM ? 0.0
                     : op == GPUCORE_REDUCE_PROD ? 1.0
                     : op == GPUCORE_REDUCE_MIN ? INFINITY
                                                : -INFINITY;
        bool nan = false;
        for (std::size_t i = 0; i < n; ++i) {
            const double v = x[i];
            nan = nan || std::isnan(v);
            ref.magnitude += std::fabs(v);
            if (op == GPUCORE_REDUCE_SUM) acc += v;
            else if (op == GPUCORE_REDUCE_PROD) acc *= v;
            else if (op == GPUCORE_REDUCE_MIN) acc = std::fmin(acc, v);
            else acc = std::fmax(acc, v);
        }
        ref.value = nan ? NAN : acc;
    } else {
        std::uint32_t acc = op == GPUCORE_REDUCE_PROD ? 1u : 0u;
        T extreme = op == GPUCORE_REDUCE_MIN ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t v = static_cast<std::uint32_t>(x[i]);
            if (op == GPUCORE_REDUCE_SUM) acc += v;
            else if (op == GPUCORE_REDUCE_PROD) acc *= v;
            else if (op == GPUCORE_REDUCE_MIN) extreme = std::min(extreme, x[i]);
            else extreme = std::max(extreme, x[i]);
        }
        ref.bits = (op == GPUCORE_REDUCE_SUM || op == GPUCORE_REDUCE_PROD) ? acc : static_cast<std::uint32_t>(extreme);
    }
    return ref;
}

// Checks one result. Sums: the blocked pairwise bound, (leaf chain + tree depth) * eps * sum|x|.
// Products: every multiplication's rounding enters the result, whatever the order: n * eps.
template <class T>
::testing::AssertionResult matches(gpucore_reduce_op op, T got, const Reference& ref, std::size_t n) {
    if constexpr (std::is_floating_point_v<T>) {
        const double eps = std::numeric_limits<T>::epsilon();
        const double g = static_cast<double>(got);
        bool ok;
        if (std::isnan(ref.value)) ok = std::isnan(g);
        else if (op == GPUCORE_REDUCE_MIN || op == GPUCORE_REDUCE_MAX) ok = g == ref.value;
        else if (op == GPUCORE_REDUCE_PROD) ok = std::fabs(g - ref.value) <= 2.0 * eps * static_cast<double>(n + 2) * std::fabs(ref.value);
        else ok = std::fabs(g - ref.value) <= 2.0 * eps * (32.0 + std::log2(static_cast<double>(n) + 2.0)) * ref.magnitude;
        if (ok) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "got " << g << ", reference " << ref.value;
    } else {
        if (static_cast<std::uint32_t>(got) == ref.bits) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "got " << got << ", reference bits " << ref.bits;
    }
}

enum class NanAt { nowhere, random, first, last };

template <class T>
void check_reduce_rows(gpucore_reduce_op op, std::size_t rows, std::size_t cols, NanAt nan_at = NanAt::nowhere,
                       bool through_reduce = false) {
    SCOPED_TRACE(::testing::Message() << "dtype " << dtype_of<T>() << " op " << op << " shape " << rows << "x" << cols);
    const std::size_t n = rows * cols;
    DeviceArray<T> in(n);
    DeviceArray<T> out(std::max<std::size_t>(rows, 1));
    for (std::size_t i = 0; i < n; ++i) in[i] = random_value<T>(op);
    if constexpr (std::is_floating_point_v<T>) {
        if (n > 0 && nan_at != NanAt::nowhere) {
            const std::size_t at = nan_at == NanAt::first ? 0 : nan_at == NanAt::last ? n - 1 : static_cast<std::size_t>(rng()() % n);
            in[at] = std::numeric_limits<T>::quiet_NaN();
        }
    }
    poison(out.data(), out.size());
    TableStream stream;
    gpucore_message msg{};
    if (through_reduce) {
        ASSERT_EQ(rows, 1u);
        ASSERT_EQ(table().reduce(dtype_of<T>(), op, in.data(), cols, out.data(), stream.get(), &msg), GPUCORE_OK) << msg.text;
    } else {
        ASSERT_EQ(table().reduce_rows(dtype_of<T>(), op, in.data(), rows, cols, out.data(), stream.get(), &msg), GPUCORE_OK) << msg.text;
    }
    stream.sync();
    for (std::size_t r = 0; r < rows; ++r) {
        ASSERT_TRUE(matches<T>(op, out[r], reference(op, in.data() + r * cols, cols), cols)) << "row " << r;
    }
}

template <class T>
class CpuReduce : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t>;
TYPED_TEST_SUITE(CpuReduce, ElementTypes);

TYPED_TEST(CpuReduce, WholeArraysOfAwkwardSizes) {
    // Around the leaf (1024), the chunk (65536) and the lane count; primes; one element; empty.
    const std::size_t sizes[] = {0, 1, 2, 31, 33, 1023, 1025, 4097, 65535, 65537, 131071, 200003, 1000003};
    for (gpucore_reduce_op op : kOps) {
        for (std::size_t n : sizes) check_reduce_rows<TypeParam>(op, 1, n, NanAt::nowhere, /*through_reduce=*/true);
    }
}

TYPED_TEST(CpuReduce, RowsOfEveryShape) {
    // Many short rows (parallel over rows), few long rows (parallel within rows), chunk edges.
    const std::size_t shapes[][2] = {{7, 0},     {1, 1},        {131071, 1}, {1000, 7},   {4096, 16},   {333, 8},  {77, 23}, {50, 37},
                                     {17, 1031}, {2, 65536},   {2, 65537},  {3, 200003}, {64, 70001},
                                     {5, 65536 * 3 + 5}};
    for (gpucore_reduce_op op : kOps) {
        for (const auto& shape : shapes) check_reduce_rows<TypeParam>(op, shape[0], shape[1]);
    }
}

TYPED_TEST(CpuReduce, NanPropagatesThroughMinAndMax) {
    if constexpr (std::is_floating_point_v<TypeParam>) {
        for (gpucore_reduce_op op : {GPUCORE_REDUCE_MIN, GPUCORE_REDUCE_MAX, GPUCORE_REDUCE_SUM}) {
            for (NanAt at : {NanAt::first, NanAt::last, NanAt::random}) {
                for (std::size_t n : {1ul, 33ul, 4097ul, 1000003ul}) check_reduce_rows<TypeParam>(op, 1, n, at);
                check_reduce_rows<TypeParam>(op, 5, 65536 * 3 + 5, at);
                check_reduce_rows<TypeParam>(op, 100, 33, at);
            }
        }
    } else {
        GTEST_SKIP() << "integers have no NaN";
    }
}

TEST(CpuReduceValues, EmptyInputGivesTheIdentity) {
    TableStream stream;
    gpucore_message msg{};
    DeviceArray<double> out(1);
    const auto reduce_empty = [&](gpucore_dtype dtype, gpucore_reduce_op op) {
        poison(out.data(), 1);
        EXPECT_EQ(table().reduce(dtype, op, out.data(), 0, out.data(), stream.get(), &msg), GPUCORE_OK);
        stream.sync();
    };
    const auto as_f32 = [&] { return *reinterpret_cast<float*>(out.data()); };
    const auto as_i32 = [&] { return *reinterpret_cast<std::int32_t*>(out.data()); };
    const auto as_u32 = [&] { return *reinterpret_cast<std::uint32_t*>(out.data()); };
    reduce_empty(GPUCORE_DTYPE_F32, GPUCORE_REDUCE_SUM);
    EXPECT_EQ(as_f32(), 0.0f);
    reduce_empty(GPUCORE_DTYPE_F32, GPUCORE_REDUCE_PROD);
    EXPECT_EQ(as_f32(), 1.0f);
    reduce_empty(GPUCORE_DTYPE_F32, GPUCORE_REDUCE_MIN);
    EXPECT_EQ(as_f32(), INFINITY);
    reduce_empty(GPUCORE_DTYPE_F32, GPUCORE_REDUCE_MAX);
    EXPECT_EQ(as_f32(), -INFINITY);
    reduce_empty(GPUCORE_DTYPE_F64, GPUCORE_REDUCE_MIN);
    EXPECT_EQ(out[0], INFINITY);
    reduce_empty(GPUCORE_DTYPE_I32, GPUCORE_REDUCE_MIN);
    EXPECT_EQ(as_i32(), INT32_MAX);
    reduce_empty(GPUCORE_DTYPE_I32, GPUCORE_REDUCE_MAX);
    EXPECT_EQ(as_i32(), INT32_MIN);
    reduce_empty(GPUCORE_DTYPE_U32, GPUCORE_REDUCE_MIN);
    EXPECT_EQ(as_u32(), UINT32_MAX);
    reduce_empty(GPUCORE_DTYPE_U32, GPUCORE_REDUCE_MAX);
    EXPECT_EQ(as_u32(), 0u);
    reduce_empty(GPUCORE_DTYPE_U32, GPUCORE_REDUCE_PROD);
    EXPECT_EQ(as_u32(), 1u);
}

TEST(CpuReduceValues, IntegerSumsAndProductsWrap) {
    TableStream stream;
    gpucore_message msg{};
    DeviceArray<std::int32_t> in(2);
    DeviceArray<std::int32_t> out(1);
    in[0] = INT32_MAX;
    in[1] = 1;
    ASSERT_EQ(table().reduce(GPUCORE_DTYPE_I32, GPUCORE_REDUCE_SUM, in.data(), 2, out.data(), stream.get(), &msg), GPUCORE_OK);
    stream.sync();
    EXPECT_EQ(out[0], INT32_MIN);
    in[0] = 65536;
    in[1] = 65536;
    ASSERT_EQ(table().reduce(GPUCORE_DTYPE_I32, GPUCORE_REDUCE_PROD, in.data(), 2, out.data(), stream.get(), &msg), GPUCORE_OK);
    stream.sync();
    EXPECT_EQ(out[0], 0);
}

TEST(CpuReduceValues, FloatSumIsNotOneSerialChain) {
    // 2^24 + 2^22 ones in f32: a serial float accumulator stalls at 2^24 (adding 1 no longer
    // changes it); a blocked tree gets the exact count.
    const std::size_t n = (std::size_t{1} << 24) + (std::size_t{1} << 22);
    DeviceArray<float> in(n);
    DeviceArray<float> out(1);
    for (std::size_t i = 0; i < n; ++i) in[i] = 1.0f;
    TableStream stream;
    gpucore_message msg{};
    ASSERT_EQ(table().reduce(GPUCORE_DTYPE_F32, GPUCORE_REDUCE_SUM, in.data(), n, out.data(), stream.get(), &msg), GPUCORE_OK);
    stream.sync();
    EXPECT_EQ(out[0], static_cast<float>(n));
}

TEST(CpuReduceValues, ResultDoesNotDependOnTheThreadCount) {
    const std::size_t n = 3000017;
    std::vector<float> x(n);
    for (float& v : x) v = random_value<float>(GPUCORE_REDUCE_SUM);
    float one = 0;
    float three = 0;
    set_max_threads(1);
    reduce_rows(GPUCORE_DTYPE_F32, GPUCORE_REDUCE_SUM, x.data(), 1, n, &one);
    set_max_threads(3);
    reduce_rows(GPUCORE_DTYPE_F32, GPUCORE_REDUCE_SUM, x.data(), 1, n, &three);
    set_max_threads(0);
    EXPECT_EQ(std::memcmp(&one, &three, sizeof(float)), 0) << one << " vs " << three;
}

// ---- vector_add --------------------------------------------------------------------------------

template <class T>
class CpuVectorAdd : public ::testing::Test {};
TYPED_TEST_SUITE(CpuVectorAdd, ElementTypes);

template <class T>
T wrapped_sum(T a, T b) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
    else return a + b; // one correctly rounded addition in T: the backend must match it bit for bit
}

TYPED_TEST(CpuVectorAdd, MatchesElementWiseReference) {
    // 3000017 elements take the streaming-store path (traffic above the LLC size on most hosts).
    for (std::size_t n : {1ul, 3ul, 31ul, 33ul, 1023ul, 4097ul, 65536ul * 4 + 3, 3000017ul}) {
        for (bool in_place : {false, true}) {
            SCOPED_TRACE(::testing::Message() << "n " << n << (in_place ? " in place" : ""));
            DeviceArray<TypeParam> a(n);
            DeviceArray<TypeParam> b(n);
            DeviceArray<TypeParam> c(n);
            std::vector<TypeParam> expected(n);
            for (std::size_t i = 0; i < n; ++i) {
                a[i] = random_value<TypeParam>(GPUCORE_REDUCE_SUM);
                b[i] = random_value<TypeParam>(GPUCORE_REDUCE_SUM);
                expected[i] = wrapped_sum(a[i], b[i]);
            }
            poison(c.data(), n);
            TypeParam* target = in_place ? a.data() : c.data();
            TableStream stream;
            gpucore_message msg{};
            ASSERT_EQ(table().vector_add(dtype_of<TypeParam>(), a.data(), b.data(), target, n, stream.get(), &msg), GPUCORE_OK);
            stream.sync();
            ASSERT_EQ(std::memcmp(target, expected.data(), n * sizeof(TypeParam)), 0);
        }
    }
}

// ---- transpose ---------------------------------------------------------------------------------

template <class T>
class CpuTranspose : public ::testing::Test {};
TYPED_TEST_SUITE(CpuTranspose, ElementTypes);

TYPED_TEST(CpuTranspose, EveryShape) {
    // Degenerate (1xN, Nx1), primes, exact tiles, one past a tile, non-square, tall and wide.
    const std::size_t shapes[][2] = {{1, 1},    {1, 1000},  {1000, 1},   {2, 3},     {31, 33},
                                     {32, 32},  {64, 64},   {65, 63},    {128, 64},  {997, 1009},
                                     {3, 100003}, {100003, 3}, {256, 4096}, {4096, 256}, {1023, 1025}};
    for (const auto& shape : shapes) {
        const std::size_t rows = shape[0];
        const std::size_t cols = shape[1];
        SCOPED_TRACE(::testing::Message() << rows << "x" << cols);
        DeviceArray<TypeParam> in(rows * cols);
        DeviceArray<TypeParam> out(rows * cols);
        for (std::size_t i = 0; i < rows * cols; ++i) in[i] = random_value<TypeParam>(GPUCORE_REDUCE_SUM);
        poison(out.data(), rows * cols);
        TableStream stream;
        gpucore_message msg{};
        ASSERT_EQ(table().transpose(dtype_of<TypeParam>(), in.data(), out.data(), rows, cols, stream.get(), &msg), GPUCORE_OK);
        stream.sync();
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t c = 0; c < cols; ++c) {
                ASSERT_EQ(std::memcmp(&out[c * rows + r], &in[r * cols + c], sizeof(TypeParam)), 0) << "at " << r << "," << c;
            }
        }
    }
}

// ---- both half conversions ---------------------------------------------------------------------

// One processor feature's kernels turned off for one scope; `set` is the feature's switch
// (cpu_parallel.hpp).
template <void (*set)(bool) noexcept>
class FeatureOff {
public:
    FeatureOff() { set(false); }
    ~FeatureOff() { set(true); }
    FeatureOff(const FeatureOff&) = delete;
    FeatureOff& operator=(const FeatureOff&) = delete;
};

// The portable half conversion (lane-wise integer operations) for one scope, on a processor whose
// kernels would otherwise use F16C.
using PortableHalf = FeatureOff<set_f16c_enabled>;

// Every 16-bit pattern (NaNs, infinities, subnormals, both zeros) in random order, then random ones.
std::vector<half> every_half_pattern(std::size_t n, std::mt19937& rng) {
    std::vector<half> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = half::from_bits(static_cast<std::uint16_t>(i < 65536 ? i : rng()));
    std::shuffle(x.begin(), x.end(), rng);
    return x;
}

// The bits of h, every NaN as one: which of several NaNs a sum returns depends on the operand order
// the compiler picked (x86 returns the first operand's); the contract promises a NaN, not which.
std::uint16_t canonical_bits(half h) {
    return (h.bits() & 0x7FFFu) > 0x7C00u ? std::uint16_t{0x7E00} : h.bits();
}

TEST(CpuHalf, PortableConversionGivesTheF16cResultsBitForBit) {
    if (!f16c_enabled()) GTEST_SKIP() << "no F16C path here: the portable conversion is the only one (tested by the conformance suite)";
    std::mt19937 rng(2024);
    for (std::size_t n : {1ul, 7ul, 33ul, 1000ul, 65537ul + 5, 3 * 65536ul + 77}) {
        SCOPED_TRACE(::testing::Message() << "n " << n);
        const std::vector<half> a = every_half_pattern(n, rng), b = every_half_pattern(n, rng);
        std::vector<half> with_f16c(n), portable(n);
        vector_add(GPUCORE_DTYPE_F16, a.data(), b.data(), with_f16c.data(), n);
        {
            PortableHalf scope;
            vector_add(GPUCORE_DTYPE_F16, a.data(), b.data(), portable.data(), n);
        }
        // NaN + NaN: which payload survives depends on the operand order each build's code picked
        // (an -O1 and an -O2 build differ), so NaNs compare as NaNs and every other value bit for bit.
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(canonical_bits(with_f16c[i]), canonical_bits(portable[i])) << "vector_add at " << i;
        }
        // Rows of 33 (short rows) and one row (chunks and partials); sums of small values, so that
        // not every result is NaN.
        std::vector<half> small(n);
        for (std::size_t i = 0; i < n; ++i) small[i] = half(std::ldexp(static_cast<float>(rng() % 2001) - 1000.0f, -10));
        for (const std::vector<half>* in : {&a, static_cast<const std::vector<half>*>(&small)}) {
            for (std::size_t cols : {std::size_t{33}, n}) {
                const std::size_t rows = n / cols;
                if (rows == 0) continue;
                for (gpucore_reduce_op op : {GPUCORE_REDUCE_SUM, GPUCORE_REDUCE_PROD, GPUCORE_REDUCE_MIN, GPUCORE_REDUCE_MAX}) {
                    std::vector<half> r_f16c(rows, half::from_bits(0x5555)), r_portable(rows, half::from_bits(0xAAAA));
                    reduce_rows(GPUCORE_DTYPE_F16, op, in->data(), rows, cols, r_f16c.data());
                    {
                        PortableHalf scope;
                        reduce_rows(GPUCORE_DTYPE_F16, op, in->data(), rows, cols, r_portable.data());
                    }
                    for (std::size_t r = 0; r < rows; ++r) {
                        ASSERT_EQ(canonical_bits(r_f16c[r]), canonical_bits(r_portable[r]))
                            << "reduce_rows op " << op << " cols " << cols << " row " << r;
                    }
                }
            }
        }
    }
}

// ---- 16-bit reductions: leaf and chunk edges, both vector widths ---------------------------------

// The AVX2 (and F16C) kernels for one scope, on a processor whose 16-bit reductions would otherwise
// use AVX-512.
using Avx2Only = FeatureOff<set_avx512_enabled>;

template <class T>
class CpuSixteenBitReduce : public ::testing::Test {};
using SixteenBitTypes = ::testing::Types<half, bfloat16>;
TYPED_TEST_SUITE(CpuSixteenBitReduce, SixteenBitTypes);

// 16-bit leaves hold 2048 elements and chunks 131072 (the bytes of float's): one element, a part
// block, both sides of each edge, rows spanning several chunks, short rows in groups.
const std::size_t kSixteenBitShapes[][2] = {{1, 1},      {1, 31},       {1, 2047},         {1, 2049}, {1, 131071},
                                            {1, 131073}, {2, 262143},   {3, 3 * 131072 + 5}, {9, 40961}, {1000, 33},
                                            {4096, 16},  {5, 65536 * 3}};

// Rows on which a sum's result depends on the order of its additions: values of T over a wide
// range of magnitudes in pairs v, -v at random places of a row, so that the exact sum is at most
// one value and a float sum leaves whichever small values the order of its additions did not
// absorb (another pairing of the partial sums gives another result, even after rounding to T).
// For products: 1 and its neighbours in T, so that long rows neither overflow nor underflow.
template <class T>
std::vector<T> order_sensitive_rows(std::size_t rows, std::size_t cols, gpucore_reduce_op op) {
    std::vector<T> x(rows * cols);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    const float step = static_cast<float>(std::numeric_limits<T>::epsilon());
    const int widest = std::is_same_v<T, half> ? 12 : 24; // half's largest finite value is 65504
    for (std::size_t r = 0; r < rows; ++r) {
        T* row = x.data() + r * cols;
        for (std::size_t c = 0; c < cols; ++c) {
            const float u = unit(rng());
            if (op == GPUCORE_REDUCE_PROD) row[c] = T(1.0f + u * step);
            else if (c % 2 == 1) row[c] = T(-static_cast<float>(row[c - 1]));
            else row[c] = T(std::ldexp(u, static_cast<int>(rng()() % static_cast<unsigned>(widest + 8)) - 8));
        }
        std::shuffle(row, row + cols, rng());
    }
    return x;
}

template <class T>
std::vector<T> reduce_rows_of(gpucore_reduce_op op, const std::vector<T>& x, std::size_t rows, std::size_t cols) {
    std::vector<T> out(rows, T::from_bits(0x5555));
    reduce_rows(dtype_of<T>(), op, x.data(), rows, cols, out.data());
    return out;
}

TYPED_TEST(CpuSixteenBitReduce, MatchesADoubleReferenceAtLeafAndChunkEdges) {
    using T = TypeParam;
    // Float partials (24-bit significands, blocked pairwise trees) and one rounding to T.
    const double float_eps = std::ldexp(1.0, -23);
    const double t_eps = static_cast<float>(std::numeric_limits<T>::epsilon());
    for (gpucore_reduce_op op : kOps) {
        for (const auto& shape : kSixteenBitShapes) {
            const std::size_t rows = shape[0], cols = shape[1];
            SCOPED_TRACE(::testing::Message() << "op " << op << " shape " << rows << "x" << cols);
            const std::vector<T> x = order_sensitive_rows<T>(rows, cols, op);
            const std::vector<T> got = reduce_rows_of(op, x, rows, cols);
            for (std::size_t r = 0; r < rows; ++r) {
                // The row widened to float (exact), then the float reference in double.
                const std::vector<float> row(x.begin() + static_cast<std::ptrdiff_t>(r * cols),
                                             x.begin() + static_cast<std::ptrdiff_t>((r + 1) * cols));
                const Reference ref = reference(op, row.data(), cols);
                const double value = ref.value, magnitude = ref.magnitude;
                const double g = static_cast<float>(got[r]);
                if (op == GPUCORE_REDUCE_MIN || op == GPUCORE_REDUCE_MAX) {
                    ASSERT_EQ(g, value) << "row " << r;
                    continue;
                }
                const double accumulated = op == GPUCORE_REDUCE_SUM
                                               ? 2.0 * float_eps * (64.0 + std::log2(static_cast<double>(cols) + 2.0)) * magnitude
                                               : 2.0 * float_eps * static_cast<double>(cols + 2) * std::fabs(value);
                ASSERT_LE(std::fabs(g - value), accumulated + t_eps * std::fabs(value)) << "row " << r << ": got " << g << ", reference " << value;
            }
        }
    }
}

TYPED_TEST(CpuSixteenBitReduce, Avx512GivesTheAvx2ResultsBitForBit) {
    using T = TypeParam;
    if (!avx512_enabled()) GTEST_SKIP() << "no AVX-512 path here: the AVX2 and portable kernels are the only ones";
    for (gpucore_reduce_op op : kOps) {
        for (const auto& shape : kSixteenBitShapes) {
            const std::size_t rows = shape[0], cols = shape[1];
            SCOPED_TRACE(::testing::Message() << "op " << op << " shape " << rows << "x" << cols);
            std::vector<T> x = order_sensitive_rows<T>(rows, cols, op);
            // A NaN in one row: it propagates on both paths.
            if (rows > 1) x[cols + cols / 2] = std::numeric_limits<T>::quiet_NaN();
            const std::vector<T> wide = reduce_rows_of(op, x, rows, cols);
            std::vector<T> narrow;
            {
                Avx2Only scope;
                narrow = reduce_rows_of(op, x, rows, cols);
            }
            for (std::size_t r = 0; r < rows; ++r) {
                const bool both_nan = wide[r] != wide[r] && narrow[r] != narrow[r];
                ASSERT_TRUE(both_nan || wide[r].bits() == narrow[r].bits())
                    << "row " << r << ": AVX-512 " << static_cast<float>(wide[r]) << ", AVX2 " << static_cast<float>(narrow[r]);
            }
        }
    }
}

// ---- both store paths --------------------------------------------------------------------------

// Forces the non-temporal store paths (normally taken only above the LLC size) for one scope.
class AlwaysStream {
public:
    AlwaysStream() : saved_(streaming_threshold_bytes()) { set_streaming_threshold_bytes(0); }
    ~AlwaysStream() { set_streaming_threshold_bytes(saved_); }
    AlwaysStream(const AlwaysStream&) = delete;
    AlwaysStream& operator=(const AlwaysStream&) = delete;

private:
    std::size_t saved_;
};

template <class T>
class CpuStreamingStores : public ::testing::Test {};
TYPED_TEST_SUITE(CpuStreamingStores, ElementTypes);

TYPED_TEST(CpuStreamingStores, VectorAddAtEveryAlignment) {
    AlwaysStream streaming;
    for (std::size_t n : {1ul, 3ul, 33ul, 4097ul, 65536ul * 4 + 3}) {
        for (std::size_t offset : {0ul, 1ul, 3ul}) { // output starting off a line or vector boundary
            SCOPED_TRACE(::testing::Message() << "n " << n << " offset " << offset);
            DeviceArray<TypeParam> a(n);
            DeviceArray<TypeParam> b(n);
            DeviceArray<TypeParam> c(n + offset);
            for (std::size_t i = 0; i < n; ++i) {
                a[i] = random_value<TypeParam>(GPUCORE_REDUCE_SUM);
                b[i] = random_value<TypeParam>(GPUCORE_REDUCE_SUM);
            }
            poison(c.data(), n + offset);
            TableStream stream;
            gpucore_message msg{};
            ASSERT_EQ(table().vector_add(dtype_of<TypeParam>(), a.data(), b.data(), c.data() + offset, n, stream.get(), &msg), GPUCORE_OK);
            stream.sync();
            for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(c[offset + i], wrapped_sum(a[i], b[i])) << i;
        }
    }
}

TYPED_TEST(CpuStreamingStores, TransposeOfOddWidths) {
    AlwaysStream streaming;
    // Output rows of an odd length start at every alignment; 64 x 64 and 128 x 192 are whole tiles.
    const std::size_t shapes[][2] = {{64, 64}, {128, 192}, {65, 63}, {130, 67}, {503, 301}, {997, 1009}};
    for (const auto& shape : shapes) {
        const std::size_t rows = shape[0];
        const std::size_t cols = shape[1];
        SCOPED_TRACE(::testing::Message() << rows << "x" << cols);
        DeviceArray<TypeParam> in(rows * cols);
        DeviceArray<TypeParam> out(rows * cols);
        for (std::size_t i = 0; i < rows * cols; ++i) in[i] = random_value<TypeParam>(GPUCORE_REDUCE_SUM);
        poison(out.data(), rows * cols);
        TableStream stream;
        gpucore_message msg{};
        ASSERT_EQ(table().transpose(dtype_of<TypeParam>(), in.data(), out.data(), rows, cols, stream.get(), &msg), GPUCORE_OK);
        stream.sync();
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t c = 0; c < cols; ++c) {
                ASSERT_EQ(std::memcmp(&out[c * rows + r], &in[r * cols + c], sizeof(TypeParam)), 0) << "at " << r << "," << c;
            }
        }
    }
}

// ---- copy and fill -----------------------------------------------------------------------------

TEST(CpuCopy, CopiesEveryKind) {
    const std::size_t n = (std::size_t{1} << 22) + 3;
    DeviceArray<unsigned char> a(n);
    DeviceArray<unsigned char> b(n);
    for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<unsigned char>(rng()());
    for (gpucore_copy_kind kind : {GPUCORE_COPY_HOST_TO_DEVICE, GPUCORE_COPY_DEVICE_TO_HOST, GPUCORE_COPY_DEVICE_TO_DEVICE}) {
        poison(b.data(), n);
        TableStream stream;
        gpucore_message msg{};
        ASSERT_EQ(table().copy(b.data(), a.data(), n, kind, stream.get(), &msg), GPUCORE_OK);
        EXPECT_EQ(table().copy(b.data(), a.data(), 0, kind, stream.get(), &msg), GPUCORE_OK);
        stream.sync();
        EXPECT_EQ(std::memcmp(a.data(), b.data(), n), 0);
    }
}

TEST(CpuFill, WritesThePatternOfEveryElementSize) {
    const std::size_t count = 300001;
    for (std::size_t size : {1ul, 2ul, 4ul, 8ul}) {
        for (std::size_t offset : {0ul, 1ul}) { // offset 1: a pointer not aligned to the element
            SCOPED_TRACE(::testing::Message() << "element size " << size << " offset " << offset);
            DeviceArray<unsigned char> buffer(count * size + 3 * size); // room for a guard byte after the offset
            poison(buffer.data(), buffer.size());
            std::uint64_t value = 0x0123456789abcdefull;
            const std::uint64_t original = value;
            TableStream stream;
            gpucore_message msg{};
            unsigned char* dst = buffer.data() + size + offset;
            ASSERT_EQ(table().fill(dst, &value, size, count, stream.get(), &msg), GPUCORE_OK);
            value = 0; // the slot must have read the value already
            stream.sync();
            for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(std::memcmp(dst + i * size, &original, size), 0) << i;
            EXPECT_EQ(dst[count * size], 0x5a) << "wrote past the end";
            EXPECT_EQ(dst[-1], 0x5a) << "wrote before the start";
        }
    }
}

// ---- more than 2^31 elements (opt-in: needs about 18 GiB of memory) ---------------------------

bool large_tests_enabled() {
    const char* flag = std::getenv("GPUCORE_TEST_LARGE");
    return flag != nullptr && std::string(flag) == "1";
}

TEST(CpuLarge, ReduceAndVectorAddBeyondTwoToThe31Elements) {
    if (!large_tests_enabled()) GTEST_SKIP() << "set GPUCORE_TEST_LARGE=1 (needs ~18 GiB)";
    const std::size_t n = (std::size_t{1} << 31) + 33;
    DeviceArray<std::uint32_t> a(n);
    for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<std::uint32_t>(i);
    TableStream stream;
    gpucore_message msg{};
    DeviceArray<std::uint32_t> out(2);
    ASSERT_EQ(table().reduce(GPUCORE_DTYPE_U32, GPUCORE_REDUCE_SUM, a.data(), n, out.data(), stream.get(), &msg), GPUCORE_OK);
    ASSERT_EQ(table().reduce(GPUCORE_DTYPE_U32, GPUCORE_REDUCE_MAX, a.data(), n, out.data() + 1, stream.get(), &msg), GPUCORE_OK);
    stream.sync();
    // sum of i for i < n, mod 2^32 (n * (n - 1) < 2^64 here)
    const std::uint64_t exact = static_cast<std::uint64_t>(n) * (n - 1) / 2;
    EXPECT_EQ(out[0], static_cast<std::uint32_t>(exact));
    EXPECT_EQ(out[1], static_cast<std::uint32_t>(n - 1));
    ASSERT_EQ(table().vector_add(GPUCORE_DTYPE_U32, a.data(), a.data(), a.data(), n, stream.get(), &msg), GPUCORE_OK);
    stream.sync();
    for (std::size_t i : {std::size_t{0}, std::size_t{1} << 31, n - 1}) EXPECT_EQ(a[i], static_cast<std::uint32_t>(2 * i));
}

TEST(CpuLarge, TransposeBeyondTwoToThe31Elements) {
    if (!large_tests_enabled()) GTEST_SKIP() << "set GPUCORE_TEST_LARGE=1 (needs ~18 GiB)";
    const std::size_t rows = 46349; // rows * cols = 2,148,229,801 > 2^31
    const std::size_t cols = 46349;
    DeviceArray<std::uint32_t> in(rows * cols);
    DeviceArray<std::uint32_t> out(rows * cols);
    for (std::size_t i = 0; i < rows * cols; ++i) in[i] = static_cast<std::uint32_t>(i * 2654435761u);
    TableStream stream;
    gpucore_message msg{};
    ASSERT_EQ(table().transpose(GPUCORE_DTYPE_U32, in.data(), out.data(), rows, cols, stream.get(), &msg), GPUCORE_OK);
    stream.sync();
    for (std::size_t r = 0; r < rows; r += 97) {
        for (std::size_t c = 0; c < cols; c += 89) ASSERT_EQ(out[c * rows + r], in[r * cols + c]);
        ASSERT_EQ(out[(cols - 1) * rows + r], in[r * cols + cols - 1]);
    }
}

} // namespace
} // namespace gpucore::cpu::test

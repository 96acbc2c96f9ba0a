// SPDX-License-Identifier: Apache-2.0
// half (f16) and bfloat16 (bf16) on every device: vector_add, transpose, reduce (every op, NaN
// rule) and reduce_rows, on random inputs at awkward sizes, outputs poisoned first, against the
// reference library: vector_add is correctly rounded (bit-exact); reductions accumulate in float
// and round once to T, within the library's tolerance for that.
// A backend that does not implement a 16-bit dtype must say not_supported; the project's own
// backends (cpu, and the GPU kernels: cuda, hip and their simt test builds) must implement both.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cases.hpp"
#include "conformance_devices.hpp"
#include "gpucore/gpucore.hpp"
#include "gpucore_reference/comparison.hpp"
#include "gpucore_reference/host_reference.hpp"

namespace conformance {
namespace {

using gpucore::ReduceOp;

std::vector<DtypeCase> float16_cases() {
    std::vector<DtypeCase> cases;
    for (const auto& device : conformance_devices())
        for (auto dtype : kFloat16Dtypes) cases.push_back({device, dtype});
    return cases;
}

// The backends this project builds: each implements f16 and bf16 in every op.
bool implements_float16(const gpucore::Device& device) {
    const std::string backend = device.backend_name();
    return backend == "cpu" || backend == "cuda" || backend == "hip" || backend == "test-wave64" ||
           backend == "test-wave32";
}

// Runs `body`; true when it ran, false when the backend said not_supported (allowed only for
// backends from outside this project).
template <class Body>
bool runs_or_is_not_supported(const gpucore::Device& device, Body&& body) {
    try {
        body();
        return true;
    } catch (const gpucore::Error& e) {
        if (e.code() != gpucore::ErrorCode::not_supported || implements_float16(device)) throw;
        return false;
    }
}

template <class T>
std::vector<T> uniform_values(std::mt19937& rng, std::size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<T> values(n);
    for (T& v : values) v = T(dist(rng));
    return values;
}

template <class T>
std::vector<T> download(const gpucore::Buffer<T>& buffer) {
    return buffer.to_vector();
}

template <class T>
void check_vector_add(const gpucore::Device& device, std::mt19937& rng) {
    for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{1000}, std::size_t{65537}}) {
        const auto a = uniform_values<T>(rng, n, -100.0f, 100.0f);
        const auto b = uniform_values<T>(rng, n, -1.0f, 1.0f);
        gpucore::Stream stream(device);
        gpucore::Buffer<T> da(device, n), db(device, n), dc(device, n);
        da.copy_from_host(a);
        db.copy_from_host(b);
        dc.fill(std::numeric_limits<T>::quiet_NaN());
        gpucore::vector_add(stream, da, db, dc);
        stream.synchronize();
        const auto c = download(dc);
        for (std::size_t i = 0; i < n; ++i) {
            const T want = gpucore::reference::add(a[i], b[i]);
            ASSERT_EQ(c[i].bits(), want.bits()) << "n " << n << " at " << i << ": " << static_cast<float>(a[i])
                                               << " + " << static_cast<float>(b[i]) << " gave " << static_cast<float>(c[i]);
        }
    }
}

template <class T>
void check_transpose(const gpucore::Device& device, std::mt19937& rng) {
    // Odd shapes, and shapes of whole 16-byte rows (8 elements): the GPU's vector and bulk-copy
    // kernels, with partial tiles at the edges; narrow sides with even long sides: the GPU's
    // narrow kernels moving 4-byte pairs; rows of whole sectors and even columns over 2^20
    // elements: the GPU's pair tiles, partial in both directions.
    for (Shape s : {Shape{1, 7}, Shape{3, 5}, Shape{33, 65}, Shape{64, 64}, Shape{136, 264},
                    Shape{1000, 777}, Shape{2, 4098}, Shape{4098, 2}, Shape{7, 10008}, Shape{10008, 7},
                    Shape{16, 2050}, Shape{2050, 16}, Shape{1040, 1026}}) {
        const std::size_t n = s.rows * s.cols;
        const auto in = uniform_values<T>(rng, n, -1000.0f, 1000.0f);
        gpucore::Stream stream(device);
        gpucore::Buffer<T> din(device, n), dout(device, n);
        din.copy_from_host(in);
        dout.fill(std::numeric_limits<T>::quiet_NaN());
        gpucore::transpose(stream, din, dout, s.rows, s.cols);
        stream.synchronize();
        const auto out = download(dout);
        for (std::size_t r = 0; r < s.rows; ++r)
            for (std::size_t c = 0; c < s.cols; ++c)
                ASSERT_EQ(out[c * s.rows + r].bits(), in[r * s.cols + c].bits()) << s.rows << "x" << s.cols;
    }
}

// One reduction against the reference library, within its tolerance; products of these inputs
// (powers of two) are exact in any order, so they are compared exactly.
template <class T>
void expect_reduced(ReduceOp op, const T* x, std::size_t n, T got, const std::string& where) {
    gpucore::reference::Expected want = gpucore::reference::reduce(x, n, op);
    if (op == ReduceOp::prod) want.tolerance = 0;
    const double value = static_cast<float>(got);
    EXPECT_TRUE(gpucore::reference::matches(value, want.value, want.tolerance))
        << where << ": got " << value << ", want " << want.value << " (tolerance " << want.tolerance << ")";
}

// Inputs per op: sums of values in [-1, 1); products of a few powers of two (exact); min/max of
// values spread over the range, with a NaN in some runs.
template <class T>
std::vector<T> reduce_inputs(std::mt19937& rng, ReduceOp op, std::size_t n, bool with_nan) {
    std::vector<T> x = uniform_values<T>(rng, n, -1.0f, 1.0f);
    if (op == ReduceOp::prod) {
        for (T& v : x) v = T(1.0f);
        std::uniform_int_distribution<std::size_t> at(0, n == 0 ? 0 : n - 1);
        for (int k = 0; k < 6 && n > 0; ++k) x[at(rng)] = T(k % 2 ? -2.0f : 0.5f);
    }
    if (op == ReduceOp::min || op == ReduceOp::max) {
        x = uniform_values<T>(rng, n, -60000.0f, 60000.0f);
        if (with_nan && n > 0) x[n / 2] = std::numeric_limits<T>::quiet_NaN();
    }
    return x;
}

template <class T>
void check_reduce(const gpucore::Device& device, std::mt19937& rng) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max, ReduceOp::prod}) {
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{4097}, std::size_t{1000003}}) {
            for (bool with_nan : {false, true}) {
                const auto x = reduce_inputs<T>(rng, op, n, with_nan);
                gpucore::Stream stream(device);
                gpucore::Buffer<T> din(device, n), dout(device, 1);
                if (n > 0) din.copy_from_host(x);
                dout.fill(T(-12345.0f));
                gpucore::reduce(stream, din, dout, op);
                stream.synchronize();
                expect_reduced<T>(op, x.data(), n, download(dout)[0],
                                  std::string(gpucore::to_string(op)) + " n " + std::to_string(n));
            }
        }
    }
}

template <class T>
void check_reduce_rows(const gpucore::Device& device, std::mt19937& rng) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max, ReduceOp::prod}) {
        for (Shape s : {Shape{3, 0}, Shape{1, 1}, Shape{1000, 16}, Shape{33, 65}, Shape{4, 70001}}) {
            const std::size_t n = s.rows * s.cols;
            std::vector<T> x(n);
            for (std::size_t r = 0; r < s.rows; ++r) {
                const auto row = reduce_inputs<T>(rng, op, s.cols, r % 3 == 1);
                std::copy(row.begin(), row.end(), x.begin() + static_cast<std::ptrdiff_t>(r * s.cols));
            }
            gpucore::Stream stream(device);
            gpucore::Buffer<T> din(device, n), dout(device, s.rows);
            if (n > 0) din.copy_from_host(x);
            dout.fill(T(-12345.0f));
            gpucore::reduce_rows(stream, din, dout, s.rows, s.cols, op);
            stream.synchronize();
            const auto out = download(dout);
            for (std::size_t r = 0; r < s.rows; ++r) {
                expect_reduced<T>(op, x.data() + r * s.cols, s.cols, out[r],
                                  std::string(gpucore::to_string(op)) + " " + std::to_string(s.rows) + "x" +
                                      std::to_string(s.cols) + " row " + std::to_string(r));
            }
        }
    }
}

class Float16 : public testing::TestWithParam<DtypeCase> {};

template <class Check>
void run_case(const DtypeCase& c, Check&& check) {
    std::mt19937 rng(static_cast<std::uint32_t>(std::hash<std::string>{}(case_name(c))));
    gpucore::visit(c.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (sizeof(T) == 2) {
            if (!runs_or_is_not_supported(c.device, [&] { check(T{}, rng); })) {
                GTEST_SKIP() << c.device.to_string() << " does not implement " << gpucore::to_string(c.dtype);
            }
        }
    });
}

TEST_P(Float16, VectorAddIsCorrectlyRounded) {
    run_case(GetParam(), [&](auto t, std::mt19937& rng) { check_vector_add<decltype(t)>(GetParam().device, rng); });
}
TEST_P(Float16, TransposeMovesEveryElement) {
    run_case(GetParam(), [&](auto t, std::mt19937& rng) { check_transpose<decltype(t)>(GetParam().device, rng); });
}
TEST_P(Float16, ReduceAccumulatesInFloat) {
    run_case(GetParam(), [&](auto t, std::mt19937& rng) { check_reduce<decltype(t)>(GetParam().device, rng); });
}
TEST_P(Float16, ReduceRowsAccumulatesInFloat) {
    run_case(GetParam(), [&](auto t, std::mt19937& rng) { check_reduce_rows<decltype(t)>(GetParam().device, rng); });
}

INSTANTIATE_TEST_SUITE_P(Devices, Float16, testing::ValuesIn(float16_cases()), CaseName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Float16);

} // namespace
} // namespace conformance

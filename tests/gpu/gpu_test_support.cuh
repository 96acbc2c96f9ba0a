// SPDX-License-Identifier: Apache-2.0
// Shared by the GPU kernel tests: a fixture that skips without a CUDA device and otherwise owns a
// stream and its scratch (like a plugin stream), device arrays with poisoning, random inputs and
// double-precision references.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "gpucore/element_types.hpp"
#include "launch.hpp"
#include "tuning_policy.hpp"

namespace gpu_test {

#define GPU_TEST_CHECK(call)                                                                      \
    do {                                                                                          \
        const cudaError_t gpu_test_err = (call);                                                  \
        ASSERT_EQ(gpu_test_err, cudaSuccess) << #call << ": " << cudaGetErrorString(gpu_test_err); \
    } while (0)

// A device allocation of n elements (+ `slack` spare ones, for misaligned views).
template <class T>
class DeviceArray {
public:
    explicit DeviceArray(std::size_t n, std::size_t slack = 0) : n_(n), capacity_(n + slack) {
        if (cudaMalloc(&ptr_, std::max<std::size_t>(capacity_, 1) * sizeof(T)) != cudaSuccess) {
            ptr_ = nullptr;
        }
    }
    ~DeviceArray() { cudaFree(ptr_); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;

    bool ok() const { return ptr_ != nullptr; }
    T* data(std::size_t offset = 0) { return ptr_ + offset; }
    std::size_t size() const { return n_; }

    void upload(const std::vector<T>& host, std::size_t offset = 0) {
        cudaMemcpy(ptr_ + offset, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
    }
    std::vector<T> download(std::size_t count, std::size_t offset = 0) const {
        std::vector<T> host(count);
        cudaMemcpy(host.data(), ptr_ + offset, count * sizeof(T), cudaMemcpyDeviceToHost);
        return host;
    }
    // Fills every byte with 0xA5: a value no kernel output here equals by chance, so an element a
    // kernel forgot to write is caught.
    void poison() { cudaMemset(ptr_, 0xA5, std::max<std::size_t>(capacity_, 1) * sizeof(T)); }

private:
    T* ptr_ = nullptr;
    std::size_t n_;
    std::size_t capacity_;
};

class GpuTest : public testing::Test {
protected:
    void SetUp() override {
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
            (void)cudaGetLastError();
            GTEST_SKIP() << "no CUDA device";
        }
        GPU_TEST_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        int value = 0;
        GPU_TEST_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 0));
        ctx_.device.sm_count = value;
        GPU_TEST_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 0));
        ctx_.device.warp_size = value;
        GPU_TEST_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
        ctx_.device.max_threads_per_sm = value;
        const std::size_t partial_bytes = gpucore::gpu::TuningPolicy::Scratch::kPartialSlots * 8;
        const std::size_t ticket_bytes =
            gpucore::gpu::TuningPolicy::Scratch::kTicketSlots * sizeof(unsigned int);
        GPU_TEST_CHECK(cudaMalloc(&scratch_, partial_bytes + ticket_bytes));
        GPU_TEST_CHECK(cudaMemset(scratch_, 0, partial_bytes + ticket_bytes));
        ctx_.stream = stream_;
        ctx_.scratch.partials = scratch_;
        ctx_.scratch.tickets =
            reinterpret_cast<unsigned int*>(static_cast<char*>(scratch_) + partial_bytes);
    }
    void TearDown() override {
        if (stream_ != nullptr) cudaStreamDestroy(stream_);
        cudaFree(scratch_);
    }
    // Waits for the stream and fails the test on any error it reports.
    void sync() {
        GPU_TEST_CHECK(cudaStreamSynchronize(stream_));
        GPU_TEST_CHECK(cudaGetLastError());
    }

    cudaStream_t stream_ = nullptr;
    void* scratch_ = nullptr;
    gpucore::gpu::LaunchContext ctx_;
};

template <class T>
constexpr gpucore_dtype dtype_of() {
    return gpucore::dtype_id_of<T>();
}

inline std::mt19937_64& rng() {
    static std::mt19937_64 engine(std::random_device{}());
    return engine;
}

// Random values: floats in [-1, 1), integers over their whole range (so sums and products wrap).
// Float products get +-1 with random signs and a few 2 and 0.5 at random places: exact in any
// order, so a missing or repeated element shows (a sign flips or a power of two moves), while
// real-valued float products drift far beyond any honest a-priori bound (rounding errors of
// products near 1 are not mean-zero: a float32 pairwise product of 2^25 values in
// [0.999, 1.001] is off by ~3%, checked with numpy).
template <class T>
std::vector<T> random_values(std::size_t n, gpucore_reduce_op op = GPUCORE_REDUCE_SUM) {
    std::vector<T> v(n);
    if constexpr (gpucore::is_float_element_v<T>) {
        if (op == GPUCORE_REDUCE_PROD) {
            std::bernoulli_distribution negative(0.5);
            for (auto& x : v) x = negative(rng()) ? T(-1) : T(1);
            if (n > 0) {
                std::uniform_int_distribution<std::size_t> where(0, n - 1);
                for (int k = 0; k < 8; ++k) {
                    v[where(rng())] = T(2);
                    v[where(rng())] = T(0.5);
                }
            }
            return v;
        }
        std::uniform_real_distribution<double> dist(-1.0, 1.0);
        for (auto& x : v) x = static_cast<T>(dist(rng()));
    } else {
        std::uniform_int_distribution<std::uint32_t> dist;
        for (auto& x : v) x = static_cast<T>(dist(rng()));
    }
    return v;
}

// Reference of op over [first, first + n): float sums in double (pairwise is unnecessary: double
// is exact enough for these sizes), integer sums/products in uint32 (wrap), min/max exact with
// NaN propagation.
template <class T>
double reference_reduce(const T* x, std::size_t n, gpucore_reduce_op op) {
    if constexpr (std::is_integral_v<T>) {
        if (op == GPUCORE_REDUCE_SUM || op == GPUCORE_REDUCE_PROD) {
            std::uint32_t acc = op == GPUCORE_REDUCE_SUM ? 0u : 1u;
            for (std::size_t i = 0; i < n; ++i) {
                const auto v = static_cast<std::uint32_t>(x[i]);
                acc = op == GPUCORE_REDUCE_SUM ? acc + v : acc * v;
            }
            return static_cast<double>(static_cast<T>(acc));
        }
    }
    double acc = 0;
    switch (op) {
    case GPUCORE_REDUCE_SUM: acc = 0; break;
    case GPUCORE_REDUCE_PROD: acc = 1; break;
    case GPUCORE_REDUCE_MIN:
        acc = gpucore::is_float_element_v<T> ? std::numeric_limits<double>::infinity()
                                             : static_cast<double>(std::numeric_limits<T>::max());
        break;
    case GPUCORE_REDUCE_MAX:
        acc = gpucore::is_float_element_v<T> ? -std::numeric_limits<double>::infinity()
                                             : static_cast<double>(std::numeric_limits<T>::lowest());
        break;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const double v = static_cast<double>(x[i]);
        if (std::isnan(acc)) break;
        switch (op) {
        case GPUCORE_REDUCE_SUM: acc += v; break;
        case GPUCORE_REDUCE_PROD: acc *= v; break;
        case GPUCORE_REDUCE_MIN: acc = std::isnan(v) || v < acc ? v : acc; break;
        case GPUCORE_REDUCE_MAX: acc = std::isnan(v) || v > acc ? v : acc; break;
        }
    }
    return acc;
}

// |got - want| allowed: exact for integers and min/max; for float sums a bound of (32 + log2 n)
// eps of the accumulator (float for half and bfloat16) times the sum of magnitudes (short
// per-thread chains, then a tree), plus one rounding of the result to T (and T's smallest normal,
// for a result that lands among T's subnormals); products as below.
template <class T>
double allowed_error(const T* x, std::size_t n, gpucore_reduce_op op, double want) {
    if constexpr (!gpucore::is_float_element_v<T>) {
        return 0;
    } else {
        if (op == GPUCORE_REDUCE_MIN || op == GPUCORE_REDUCE_MAX) return 0;
        const double eps = static_cast<double>(std::numeric_limits<gpucore::accumulator_t<T>>::epsilon());
        const double result_eps = static_cast<double>(std::numeric_limits<T>::epsilon());
        const double depth = 32 + std::log2(static_cast<double>(std::max<std::size_t>(n, 2)));
        if (op == GPUCORE_REDUCE_PROD) return 0; // exact inputs (see random_values)
        double magnitude = 0;
        for (std::size_t i = 0; i < n; ++i) magnitude += std::fabs(static_cast<double>(x[i]));
        const double smallest_normal = sizeof(T) == 2 ? static_cast<double>(std::numeric_limits<T>::min()) : 0.0;
        return depth * eps * magnitude + result_eps * std::fabs(want) + smallest_normal;
    }
}

template <class T>
::testing::AssertionResult close_to(T got, double want, double allowed) {
    const double g = static_cast<double>(got);
    if (std::isnan(want)) {
        if (std::isnan(g)) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "got " << g << ", want NaN";
    }
    if (g == want || std::fabs(g - want) <= allowed) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << g << ", want " << want << " (|diff| "
                                         << std::fabs(g - want) << " > " << allowed << ")";
}

inline const char* op_name(gpucore_reduce_op op) {
    switch (op) {
    case GPUCORE_REDUCE_SUM: return "sum";
    case GPUCORE_REDUCE_MIN: return "min";
    case GPUCORE_REDUCE_MAX: return "max";
    case GPUCORE_REDUCE_PROD: return "prod";
    }
    return "?";
}

constexpr gpucore_reduce_op kAllOps[] = {GPUCORE_REDUCE_SUM, GPUCORE_REDUCE_MIN, GPUCORE_REDUCE_MAX,
                                         GPUCORE_REDUCE_PROD};

} // namespace gpu_test

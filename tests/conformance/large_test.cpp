// SPDX-License-Identifier: Apache-2.0
// More than 2^31 elements (the index arithmetic must be size_t throughout), run only where the
// device has the memory. Suite names start with "Large" so quick runs and compute-sanitizer can
// leave them out with --gtest_filter=-*Large*; ctest labels them "conformance_large".
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cases.hpp"
#include "gpucore/gpucore.hpp"

namespace conformance {
namespace {

using u32 = std::uint32_t;

// 2^31 + 2^20 + 7: past the signed 32-bit range, not a power of two, odd tail.
constexpr std::size_t kLargeLength = (std::size_t{1} << 31) + (std::size_t{1} << 20) + 7;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

class LargeReduce : public testing::TestWithParam<DeviceCase> {};
class LargeVectorAdd : public testing::TestWithParam<DeviceCase> {};
class LargeTranspose : public testing::TestWithParam<DeviceCase> {};

// MemAvailable from /proc/meminfo in bytes (0 when unreadable).
std::uint64_t host_available_bytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key, unit;
    std::uint64_t kib = 0;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    return 0;
}

// Memory the test may plan on: the device's total; for the cpu backend (whose device memory is
// host RAM shared with everything else running) no more than what the host has available now.
std::uint64_t usable_memory_bytes(const gpucore::Device& device) {
    std::uint64_t total = device.properties().total_memory_bytes;
    if (device.backend_name() == "cpu") total = std::min(total, host_available_bytes());
    return total;
}

// Empty when `bytes` fit with a margin of 1/8 plus 1 GiB (runtime, other allocations); else why not.
std::string lacks_memory(const gpucore::Device& device, std::uint64_t bytes) {
    const std::uint64_t usable = usable_memory_bytes(device);
    const std::uint64_t needed = bytes + bytes / 8 + kGiB;
    if (needed <= usable) return {};
    std::ostringstream why;
    why << device.to_string() << " has " << usable / kGiB << " GiB usable, this test needs "
        << (needed + kGiB - 1) / kGiB << " GiB (" << bytes / kGiB << " GiB of buffers + margin)";
    return why.str();
}

// Host code may write into cpu-backend buffers and managed memory directly.
bool host_writable(const gpucore::Device& device, gpucore::MemoryKind kind) {
    return device.backend_name() == "cpu" || kind == gpucore::MemoryKind::managed;
}

// x[i] = i mod 2^32, written by all hardware threads.
void write_index_pattern(u32* x, std::size_t n) {
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t) {
        workers.emplace_back([=] {
            const std::size_t begin = n / threads * t;
            const std::size_t end = t + 1 == threads ? n : n / threads * (t + 1);
            for (std::size_t i = begin; i < end; ++i) x[i] = static_cast<u32>(i);
        });
    }
    for (auto& w : workers) w.join();
}

u32 reduce_value(gpucore::Stream& stream, const gpucore::Buffer<u32>& x, gpucore::ReduceOp op) {
    return gpucore::reduce(stream, x, op);
}

// x[i] = i: sum = n(n-1)/2 mod 2^32, min 0, max n-1 (the last element, past 2^31, must be seen).
TEST_P(LargeReduce, IndexPatternPast2To31) {
    const gpucore::Device& device = GetParam().device;
    const std::size_t n = kLargeLength;
    const gpucore::MemoryKind kind = device.backend_name() == "cpu" ? gpucore::MemoryKind::device
                                     : device.properties().supports_managed
                                         ? gpucore::MemoryKind::managed
                                         : gpucore::MemoryKind::device;
    if (!host_writable(device, kind))
        GTEST_SKIP() << device.to_string() << " has no host-writable memory for the pattern "
                     << "(SumOfOnesPast2To31 covers the size)";
    if (const auto why = lacks_memory(device, n * sizeof(u32)); !why.empty()) GTEST_SKIP() << why;

    gpucore::Buffer<u32> x(device, n, kind);
    write_index_pattern(x.data(), n);
    gpucore::Stream stream(device);
    const std::uint64_t n64 = n;
    EXPECT_EQ(reduce_value(stream, x, gpucore::ReduceOp::sum), static_cast<u32>(n64 * (n64 - 1) / 2));
    EXPECT_EQ(reduce_value(stream, x, gpucore::ReduceOp::min), 0u);
    EXPECT_EQ(reduce_value(stream, x, gpucore::ReduceOp::max), static_cast<u32>(n - 1));
}

// Device memory filled by the backend: sum of ones = n (< 2^32: no wrap), min = max = 1.
TEST_P(LargeReduce, SumOfOnesPast2To31) {
    const gpucore::Device& device = GetParam().device;
    const std::size_t n = kLargeLength;
    if (const auto why = lacks_memory(device, n * sizeof(u32)); !why.empty()) GTEST_SKIP() << why;
    gpucore::Buffer<u32> x(device, n);
    gpucore::Stream stream(device);
    x.fill_async(stream, 1u);
    EXPECT_EQ(reduce_value(stream, x, gpucore::ReduceOp::sum), static_cast<u32>(n));
    EXPECT_EQ(reduce_value(stream, x, gpucore::ReduceOp::min), 1u);
    EXPECT_EQ(reduce_value(stream, x, gpucore::ReduceOp::max), 1u);
}

// c = a + b over n > 2^31 elements with wrap: 0x80000001 + 0x80000002 = 3 (mod 2^32). c starts
// poisoned; min = max = 3 proves every element was written, the sum 3n mod 2^32 agrees.
TEST_P(LargeVectorAdd, WrappingAddPast2To31) {
    const gpucore::Device& device = GetParam().device;
    const std::size_t n = kLargeLength;
    if (const auto why = lacks_memory(device, 3 * n * sizeof(u32)); !why.empty())
        GTEST_SKIP() << why;
    gpucore::Buffer<u32> a(device, n), b(device, n), c(device, n);
    gpucore::Stream stream(device);
    a.fill_async(stream, 0x80000001u);
    b.fill_async(stream, 0x80000002u);
    c.fill_async(stream, 0xDEADBEEFu);
    gpucore::vector_add(stream, a, b, c);
    EXPECT_EQ(reduce_value(stream, c, gpucore::ReduceOp::min), 3u);
    EXPECT_EQ(reduce_value(stream, c, gpucore::ReduceOp::max), 3u);
    EXPECT_EQ(reduce_value(stream, c, gpucore::ReduceOp::sum),
              static_cast<u32>(3 * static_cast<std::uint64_t>(n)));
}

// (2^16 + 4) x (2^15 + 4) = 2^31 + 393232 elements: rows and columns stay below 2^31 while
// every flat index past 2^31 is hit, and both are multiples of 16 bytes (on sm_90 the bulk-copy
// kernel runs). in[i] = i, so out[c * rows + r] must be r * cols + c; checked element by element.
TEST_P(LargeTranspose, IndexPatternPast2To31) {
    const gpucore::Device& device = GetParam().device;
    const std::size_t rows = (std::size_t{1} << 16) + 4;
    const std::size_t cols = (std::size_t{1} << 15) + 4;
    const std::size_t n = rows * cols;
    const std::uint64_t device_bytes = 2 * n * sizeof(u32);
    const std::uint64_t host_bytes = n * sizeof(u32); // one host array, reused for the result
    // The cpu backend's device memory is host RAM: both must fit in it together.
    const bool shared_memory = device.backend_name() == "cpu";
    if (const auto why = lacks_memory(device, device_bytes + (shared_memory ? host_bytes : 0));
        !why.empty())
        GTEST_SKIP() << why;
    if (host_available_bytes() < host_bytes + host_bytes / 8 + kGiB)
        GTEST_SKIP() << "the host has too little memory for a " << host_bytes / kGiB
                     << " GiB host copy";
    std::vector<u32> host(n);
    write_index_pattern(host.data(), n);
    gpucore::Buffer<u32> in(device, n), out(device, n);
    gpucore::Stream stream(device);
    in.copy_from_host(host);
    out.fill_async(stream, 0xDEADBEEFu);
    gpucore::transpose(stream, in, out, rows, cols);
    stream.synchronize();
    out.copy_to_host(host.data(), n);
    std::size_t wrong = 0;
    for (std::size_t c = 0; c < cols; ++c) {
        for (std::size_t r = 0; r < rows; ++r) {
            wrong += host[c * rows + r] != static_cast<u32>(r * cols + c);
        }
    }
    EXPECT_EQ(wrong, 0u) << "elements not equal to their transposed index";
}

INSTANTIATE_TEST_SUITE_P(Devices, LargeReduce, testing::ValuesIn(device_cases()), CaseName{});
INSTANTIATE_TEST_SUITE_P(Devices, LargeVectorAdd, testing::ValuesIn(device_cases()), CaseName{});
INSTANTIATE_TEST_SUITE_P(Devices, LargeTranspose, testing::ValuesIn(device_cases()), CaseName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LargeReduce);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LargeVectorAdd);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LargeTranspose);

} // namespace
} // namespace conformance

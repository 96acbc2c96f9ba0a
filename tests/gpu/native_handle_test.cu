// SPDX-License-Identifier: Apache-2.0
// Stream::native_handle on the cuda backend, through the public API: the handle is the stream's own
// non-blocking cudaStream_t; kernels launched on it run in order with gpucore's work on the same
// stream; blocking calls wait for them; and blocking calls wait for every busy stream of the
// device. Skips where no CUDA device is present.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gpucore/gpucore.hpp"

namespace {

#define NATIVE_CHECK(call)                                                                        \
    do {                                                                                          \
        const cudaError_t native_err = (call);                                                    \
        ASSERT_EQ(native_err, cudaSuccess) << #call << ": " << cudaGetErrorString(native_err);    \
    } while (0)

gpucore::Device cuda_device_or_skip() {
    try {
        return gpucore::select_device("cuda");
    } catch (const gpucore::Error&) {
        return {};
    }
}

#define REQUIRE_CUDA_DEVICE(name)                                                                 \
    const gpucore::Device name = cuda_device_or_skip();                                           \
    if (!name.valid()) GTEST_SKIP() << "no cuda device"

// y[i] = 3 * x[i] + i (wrapping), after spinning for `spin_cycles` clock cycles, so that a reader
// that does not wait for the kernel sees the poison.
__global__ void spin_then_scale(const std::uint32_t* x, std::uint32_t* y, std::size_t n,
                                long long spin_cycles) {
    const long long start = clock64();
    while (clock64() - start < spin_cycles) {
    }
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
        y[i] = 3u * x[i] + static_cast<std::uint32_t>(i);
    }
}

// About 20 ms of spinning at the clock rates of current GPUs.
constexpr long long kSpinCycles = 40'000'000;

std::vector<std::uint32_t> random_words(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint32_t> v(n);
    for (auto& x : v) x = rng();
    return v;
}

TEST(CudaNativeHandle, IsTheStreamsOwnNonBlockingCudaStreamOnItsDevice) {
    REQUIRE_CUDA_DEVICE(device);
    gpucore::Stream first(device), second(device);
    auto* a = static_cast<cudaStream_t>(first.native_handle());
    auto* b = static_cast<cudaStream_t>(second.native_handle());
    ASSERT_NE(a, nullptr);
    EXPECT_NE(a, b);
    EXPECT_EQ(static_cast<cudaStream_t>(first.native_handle()), a) << "stable while the stream lives";
    unsigned flags = 0;
    NATIVE_CHECK(cudaStreamGetFlags(a, &flags));
    EXPECT_EQ(flags, static_cast<unsigned>(cudaStreamNonBlocking));
    NATIVE_CHECK(cudaStreamQuery(a));
    // Device::index() is the CUDA ordinal: the device that owns the stream's buffers.
    gpucore::Buffer<float> buffer(device, 16);
    cudaPointerAttributes attributes{};
    NATIVE_CHECK(cudaPointerGetAttributes(&attributes, buffer.data()));
    EXPECT_EQ(attributes.device, device.index());
    EXPECT_EQ(device.backend_name(), "cuda");
}

// gpucore op -> own kernel -> gpucore op on one stream, read back by a blocking call: no
// synchronize anywhere, the stream's order alone makes the result right.
TEST(CudaNativeHandle, OwnKernelRunsInOrderWithGpucoreWorkOnTheSameStream) {
    REQUIRE_CUDA_DEVICE(device);
    const std::size_t n = (std::size_t{1} << 22) + 7;
    const auto a = random_words(n, 1), b = random_words(n, 2);
    gpucore::Stream stream(device);
    gpucore::Buffer<std::uint32_t> da(device, n), db(device, n), x(device, n), y(device, n), z(device, n);
    da.copy_from_host(a);
    db.copy_from_host(b);
    y.fill(0xDEADBEEFu);
    z.fill(0xDEADBEEFu);
    gpucore::vector_add(stream, da, db, x); // x = a + b
    spin_then_scale<<<256, 256, 0, static_cast<cudaStream_t>(stream.native_handle())>>>(x.data(), y.data(), n,
                                                                                        kSpinCycles);
    NATIVE_CHECK(cudaGetLastError());
    gpucore::vector_add(stream, y, da, z); // z = 3(a + b) + i + a
    const std::vector<std::uint32_t> got = z.to_vector();
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t want = 3u * (a[i] + b[i]) + static_cast<std::uint32_t>(i) + a[i];
        ASSERT_EQ(got[i], want) << "at " << i;
    }
}

// A blocking read waits for a kernel the core never saw, launched on another stream's handle.
TEST(CudaNativeHandle, BlockingReadWaitsForOwnKernelOnAnotherStream) {
    REQUIRE_CUDA_DEVICE(device);
    const std::size_t n = 100003;
    const auto a = random_words(n, 3);
    gpucore::Stream stream(device);
    gpucore::Buffer<std::uint32_t> x(device, n), y(device, n);
    x.copy_from_host(a);
    y.fill(0xDEADBEEFu);
    spin_then_scale<<<64, 256, 0, static_cast<cudaStream_t>(stream.native_handle())>>>(x.data(), y.data(), n,
                                                                                       kSpinCycles);
    NATIVE_CHECK(cudaGetLastError());
    std::vector<std::uint32_t> got(n, 0u);
    y.copy_to_host(got.data(), got.size());
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 3u * a[i] + static_cast<std::uint32_t>(i)) << "at " << i;
}

// The issue's scenario on the GPU with several user streams, and a blocking write that must land
// after queued writes of the same buffer.
TEST(CudaBlockingOrder, ReadsAndWritesWaitForEveryBusyStream) {
    REQUIRE_CUDA_DEVICE(device);
    const std::size_t rows = 4099, cols = 3001;
    const auto in = random_words(rows * cols, 4);
    std::vector<std::uint32_t> want(cols, 0u);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) want[c] += in[r * cols + c];
    constexpr int kStreams = 3;
    std::vector<gpucore::Stream> streams;
    std::vector<gpucore::Buffer<std::uint32_t>> transposed, colsum;
    gpucore::Buffer<std::uint32_t> din(device, in.size());
    din.copy_from_host(in);
    for (int k = 0; k < kStreams; ++k) {
        streams.emplace_back(device);
        transposed.emplace_back(device, in.size());
        colsum.emplace_back(device, cols);
        colsum.back().fill(0xDEADBEEFu);
    }
    for (int k = 0; k < kStreams; ++k) {
        gpucore::transpose(streams[k], din, transposed[k], rows, cols);
        gpucore::reduce_rows(streams[k], transposed[k], colsum[k], cols, rows, gpucore::ReduceOp::sum);
    }
    for (int k = 0; k < kStreams; ++k) EXPECT_EQ(colsum[k].to_vector(), want) << "stream " << k;

    gpucore::Buffer<std::uint32_t> ones(device, in.size());
    ones.fill(1u);
    for (int k = 0; k < 4; ++k) gpucore::vector_add(streams[0], din, ones, din);
    din.fill(9u); // lands after the four additions
    EXPECT_EQ(gpucore::reduce(streams[1], din, gpucore::ReduceOp::max), 9u);
    EXPECT_EQ(gpucore::reduce(streams[1], din, gpucore::ReduceOp::min), 9u);
    for (auto& s : streams) s.synchronize();
}

} // namespace

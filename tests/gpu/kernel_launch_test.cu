// SPDX-License-Identifier: Apache-2.0
// launch_kernel, the plugin's one kernel launch (through the driver, with each kernel's function
// looked up once per thread and device): arguments of every kind arrive as the kernel declares
// them, launches from many threads all run, a launch the driver refuses is reported with the
// runtime's error and leaves no error behind, and dynamic shared memory past the default limit
// works once the kernel allows it.
#include <atomic>
#include <thread>

#include "gpu_error.hpp"
#include "gpu_test_support.cuh"

namespace gpu_test {
namespace {

struct alignas(16) Wide {
    double x;
    std::int64_t y;
};

struct Received {
    const float* pointer;
    int small;
    double real;
    Wide wide;
    unsigned char byte;
    std::uint64_t big;
};

// Writes what it received, so every argument's bytes are checked on the host.
__global__ void receive_kernel(Received* out, const float* pointer, int small, double real, Wide wide,
                               unsigned char byte, std::uint64_t big) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *out = Received{pointer, small, real, wide, byte, big};
}

__global__ void count_kernel(unsigned int* counter) {
    atomicAdd(counter, 1u);
}

// Each block sums its dynamic shared memory after filling it with its indices.
__global__ void shared_sum_kernel(std::uint64_t* out, unsigned int words) {
    extern __shared__ unsigned int stage[];
    for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) stage[i] = i;
    __syncthreads();
    if (threadIdx.x == 0) {
        std::uint64_t sum = 0;
        for (unsigned int i = 0; i < words; ++i) sum += stage[i];
        out[blockIdx.x] = sum;
    }
}

using KernelLaunch = GpuTest;
using gpucore::gpu::launch_kernel;
using gpucore::gpu::last_launch_error;

TEST_F(KernelLaunch, EveryArgumentArrivesAsTheKernelDeclaresIt) {
    DeviceArray<Received> out(1);
    ASSERT_TRUE(out.ok());
    std::mt19937_64 rng(7);
    for (int round = 0; round < 3; ++round) { // the first launch looks the function up, the rest reuse it
        out.poison();
        const auto* pointer = reinterpret_cast<const float*>(static_cast<std::uintptr_t>(rng() & ~std::uint64_t{3}));
        const int small = static_cast<int>(rng());
        const double real = std::ldexp(static_cast<double>(rng() >> 11), -30);
        const Wide wide{std::ldexp(static_cast<double>(rng() >> 11), -7), static_cast<std::int64_t>(rng())};
        const auto byte = static_cast<unsigned char>(rng());
        const std::uint64_t big = rng();
        // Converted as <<<>>> converts: a short to int, a float to double.
        launch_kernel(receive_kernel, 1, 32, 0, stream_, out.data(), pointer, static_cast<short>(small % 30000),
                      static_cast<float>(real), wide, byte, big);
        ASSERT_EQ(last_launch_error(), cudaSuccess);
        sync();
        const Received got = out.download(1)[0];
        EXPECT_EQ(got.pointer, pointer);
        EXPECT_EQ(got.small, static_cast<short>(small % 30000));
        EXPECT_EQ(got.real, static_cast<double>(static_cast<float>(real)));
        EXPECT_EQ(got.wide.x, wide.x);
        EXPECT_EQ(got.wide.y, wide.y);
        EXPECT_EQ(got.byte, byte);
        EXPECT_EQ(got.big, big);
    }
}

TEST_F(KernelLaunch, TheDriverPathIsAvailableOnThisMachine) {
#if !GPUCORE_GPU_IS_HIP && !GPUCORE_GPU_IS_SIMT
    EXPECT_NE(gpucore::kernel::cuda_launch::entry(), nullptr) << "cuLaunchKernel is not reachable through the runtime";
    EXPECT_NE(gpucore::kernel::cuda_launch::function_of(reinterpret_cast<const void*>(&count_kernel)), nullptr)
        << "the runtime gave no function for a kernel of this program";
#endif
}

TEST_F(KernelLaunch, LaunchesFromManyThreadsAllRun) {
    DeviceArray<unsigned int> counter(1);
    ASSERT_TRUE(counter.ok());
    GPU_TEST_CHECK(cudaMemset(counter.data(), 0, sizeof(unsigned int)));
    constexpr int kThreads = 8, kLaunches = 200, kBlocks = 3, kBlockThreads = 64;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
            cudaStream_t own = nullptr;
            if (cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) != cudaSuccess) {
                failures.fetch_add(1);
                return;
            }
            for (int i = 0; i < kLaunches; ++i) {
                launch_kernel(count_kernel, kBlocks, kBlockThreads, 0, own, counter.data());
                if (last_launch_error() != cudaSuccess) failures.fetch_add(1);
            }
            if (cudaStreamSynchronize(own) != cudaSuccess) failures.fetch_add(1);
            cudaStreamDestroy(own);
        });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(counter.download(1)[0], static_cast<unsigned int>(kThreads * kLaunches * kBlocks * kBlockThreads));
}

// The runtime names a refused configuration cudaErrorInvalidConfiguration or cudaErrorInvalidValue
// (its versions differ); either is the runtime's own error, never the driver's CUresult.
bool is_refused_configuration(cudaError_t err) {
    return err == cudaErrorInvalidConfiguration || err == cudaErrorInvalidValue;
}

TEST_F(KernelLaunch, ARefusedLaunchIsReportedWithTheRuntimesErrorAndLeavesNoneBehind) {
    DeviceArray<unsigned int> counter(1);
    ASSERT_TRUE(counter.ok());
    GPU_TEST_CHECK(cudaMemset(counter.data(), 0, sizeof(unsigned int)));
    launch_kernel(count_kernel, 1, 4096, 0, stream_, counter.data()); // more threads than a block has
    const cudaError_t too_many_threads = last_launch_error();
    EXPECT_TRUE(is_refused_configuration(too_many_threads)) << cudaGetErrorName(too_many_threads);
    EXPECT_EQ(last_launch_error(), cudaSuccess) << "a launch error is reported once";
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the runtime's error slot was left set";
    launch_kernel(count_kernel, 0, 32, 0, stream_, counter.data()); // an empty grid
    const cudaError_t empty_grid = last_launch_error();
    EXPECT_TRUE(is_refused_configuration(empty_grid)) << cudaGetErrorName(empty_grid);
    launch_kernel(count_kernel, 2, 32, 0, stream_, counter.data()); // the stream still works
    EXPECT_EQ(last_launch_error(), cudaSuccess);
    sync();
    EXPECT_EQ(counter.download(1)[0], 64u) << "a refused launch ran";
}

TEST_F(KernelLaunch, DynamicSharedMemoryPastTheDefaultLimitIsRefusedUntilTheKernelAllowsIt) {
    int optin = 0;
    GPU_TEST_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    const unsigned int words = 20000; // 80,000 bytes: past 48 KiB
    if (static_cast<std::size_t>(optin) < words * sizeof(unsigned int)) GTEST_SKIP() << "the device allows less";
    DeviceArray<std::uint64_t> sums(4);
    ASSERT_TRUE(sums.ok());
    sums.poison();
    const std::size_t bytes = words * sizeof(unsigned int);
    launch_kernel(shared_sum_kernel, 4, 256, bytes, stream_, sums.data(), words);
    const cudaError_t before_allowed = last_launch_error();
    EXPECT_TRUE(is_refused_configuration(before_allowed)) << "refused before the kernel allows it: "
                                                          << cudaGetErrorName(before_allowed);
    GPU_TEST_CHECK(cudaFuncSetAttribute(shared_sum_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(bytes)));
    launch_kernel(shared_sum_kernel, 4, 256, bytes, stream_, sums.data(), words);
    ASSERT_EQ(last_launch_error(), cudaSuccess);
    sync();
    const std::uint64_t want = std::uint64_t{words} * (words - 1) / 2;
    for (const std::uint64_t sum : sums.download(4)) EXPECT_EQ(sum, want);
}

} // namespace
} // namespace gpu_test

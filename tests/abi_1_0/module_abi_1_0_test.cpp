// SPDX-License-Identifier: Apache-2.0
// The module contract's promise, kept by a test: a kernel module built against module ABI 1.0
// (module_v1_0/, frozen) loads through gpucore::Module::load on the cpu backend, shows its kernels
// and parameters as it declared them, runs them exactly, and gets the core's launch checks.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gpucore/gpucore.hpp>

namespace {

gpucore::Device cpu_device() {
    for (const gpucore::Device& d : gpucore::devices()) {
        if (d.properties().backend == "cpu") return d;
    }
    throw std::runtime_error("no cpu device");
}

TEST(ModuleAbi10, LoadsWithItsKernels) {
    const gpucore::Module module = gpucore::Module::load(cpu_device(), "abi10_fixture");
    EXPECT_EQ(module.name(), "abi10_fixture");
    EXPECT_EQ(module.kind(), "cpu");
    EXPECT_EQ(module.file().filename().string(), "abi10_fixture.gpucore-cpu.so");
    EXPECT_EQ(module.kernel_names(), (std::vector<std::string>{"axpy_f64", "iota_u32"}));
    EXPECT_EQ(module.kernel("axpy_f64").parameter_count(), 4u);
    EXPECT_EQ(module.kernel("iota_u32").parameter_count(), 3u);
}

TEST(ModuleAbi10, RunsItsKernelsExactly) {
    const gpucore::Device device = cpu_device();
    const gpucore::Module module = gpucore::Module::load(device, "abi10_fixture");
    gpucore::Stream stream(device);
    // A size that leaves the last block partly empty.
    const std::uint64_t n = 1000 * 257 + 3;
    const std::uint32_t block = 257;
    const auto blocks = static_cast<std::uint32_t>((n + block - 1) / block);

    std::vector<double> x(n), y(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        x[i] = static_cast<double>(i % 1013);
        y[i] = -static_cast<double>(i % 977);
    }
    gpucore::Buffer<double> dx(device, n), dy(device, n);
    dx.copy_from_host(x);
    dy.copy_from_host(y);
    module.kernel("axpy_f64").launch(stream, {gpucore::Dim3(blocks), gpucore::Dim3(block)}, 3.0, dx, dy, n);

    gpucore::Buffer<std::uint32_t> out(device, n);
    module.kernel("iota_u32").launch(stream, {gpucore::Dim3(blocks), gpucore::Dim3(block)}, out, std::uint32_t{7}, n);
    stream.synchronize();

    const std::vector<double> got_y = dy.to_vector();
    const std::vector<std::uint32_t> got_out = out.to_vector();
    std::uint64_t wrong_y = 0, wrong_out = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        // Small integers: every value is exact in a double, so the result is too.
        if (got_y[i] != 3.0 * static_cast<double>(i % 1013) - static_cast<double>(i % 977)) ++wrong_y;
        if (got_out[i] != static_cast<std::uint32_t>(i * 7)) ++wrong_out;
    }
    EXPECT_EQ(wrong_y, 0u);
    EXPECT_EQ(wrong_out, 0u);
}

TEST(ModuleAbi10, LaunchesAreCheckedAgainstItsParameters) {
    const gpucore::Device device = cpu_device();
    const gpucore::Module module = gpucore::Module::load(device, "abi10_fixture");
    gpucore::Stream stream(device);
    gpucore::Buffer<float> wrong_type(device, 16);
    gpucore::Buffer<double> y(device, 16);
    const gpucore::Kernel axpy = module.kernel("axpy_f64");
    try {
        axpy.launch(stream, {gpucore::Dim3(1), gpucore::Dim3(16)}, 3.0, wrong_type, y, std::uint64_t{16});
        FAIL() << "a float buffer was accepted for a double parameter";
    } catch (const gpucore::Error& e) {
        EXPECT_EQ(e.code(), gpucore::ErrorCode::invalid_argument) << e.what();
    }
    try {
        axpy.launch(stream, {gpucore::Dim3(1), gpucore::Dim3(16)}, 3.0, y);
        FAIL() << "two arguments were accepted for four parameters";
    } catch (const gpucore::Error& e) {
        EXPECT_EQ(e.code(), gpucore::ErrorCode::invalid_argument) << e.what();
    }
}

} // namespace

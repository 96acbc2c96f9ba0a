// SPDX-License-Identifier: Apache-2.0
// The built libgpucore-hip.so as libgpucore sees it, run through the loader tests' probe (a child
// process per scenario, discovery as an application gets it: the plugin folder beside libgpucore).
// Without an AMD GPU (CI, our NVIDIA machines) the plugin must load, report 0 devices with HIP's
// own reason, and leave the application working on another backend; GPU_BACKEND=hip must be an
// error carrying that reason. On a machine with an AMD GPU these tests skip themselves: the
// conformance suite covers the device there.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "probe_runner.hpp"

namespace gpucore::test {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

const std::string kPluginFile = "/libgpucore-hip.so";

std::string describe(const ProbeResult& r) { return "probe output:\n" + r.output; }

ProbeResult probe(const std::string& gpu_backend) {
    ProbeOptions options; // no GPUCORE_PLUGIN_PATH: the plugin is found beside libgpucore
    if (!gpu_backend.empty()) options.environment.emplace("GPU_BACKEND", gpu_backend);
    return run_probe(options);
}

// HIP's reasons for "no usable device" (gpu_vendor.hpp, is_no_device_error): the error's name
// is part of the text the plugin reports.
const auto kHipNoDeviceReason = AnyOf(HasSubstr("hipErrorNoDevice"), HasSubstr("hipErrorInsufficientDriver"));

TEST(HipPlugin, IsDiscoveredLoadedAndReportsZeroDevicesWithHipsReason) {
    const ProbeResult r = probe("cpu");
    ASSERT_EQ(r.exit_status, 0) << describe(r);
    const auto candidate = r.candidate(kPluginFile);
    ASSERT_TRUE(candidate) << "libgpucore-hip.so was not a candidate; " << describe(r);
    EXPECT_EQ(candidate->outcome, "loaded") << describe(r);
    EXPECT_EQ(candidate->backend, "hip") << "the name comes from gpu_vendor.hpp; " << describe(r);
    const auto backend = r.backend("hip");
    ASSERT_TRUE(backend) << describe(r);
    EXPECT_EQ(backend->source, candidate->path);
    if (backend->device_count > 0) GTEST_SKIP() << "an AMD GPU is present: " << describe(r);

    EXPECT_FALSE(backend->usable);
    EXPECT_THAT(backend->reason, kHipNoDeviceReason) << describe(r);
    EXPECT_THAT(backend->reason, HasSubstr("hipGetDeviceCount")) << "the failing HIP call is named";
    EXPECT_THAT(candidate->reason, kHipNoDeviceReason) << "shown on the candidate too; " << describe(r);
    // The application is unaffected.
    EXPECT_EQ(r.selected, "cpu:0") << describe(r);
    EXPECT_EQ(r.run, "ok cpu:0") << describe(r);
}

TEST(HipPlugin, GpuBackendHipIsAnErrorCarryingHipsReason) {
    for (const std::string selection : {"hip", "hip:0"}) {
        SCOPED_TRACE(selection);
        const ProbeResult r = probe(selection);
        ASSERT_EQ(r.exit_status, 0) << describe(r);
        const auto backend = r.backend("hip");
        ASSERT_TRUE(backend) << describe(r);
        if (backend->device_count > 0) GTEST_SKIP() << "an AMD GPU is present: " << describe(r);
        EXPECT_EQ(r.selected, "") << "no silent fallback; " << describe(r);
        EXPECT_EQ(r.error_code, "backend_unavailable") << describe(r);
        EXPECT_THAT(r.error_text, HasSubstr("hip")) << describe(r);
        EXPECT_THAT(r.error_text, kHipNoDeviceReason) << describe(r);
    }
}

TEST(HipPlugin, AutoPassesOverHipWithoutADevice) {
    const ProbeResult r = probe(""); // GPU_BACKEND unset: auto
    ASSERT_EQ(r.exit_status, 0) << describe(r);
    const auto backend = r.backend("hip");
    ASSERT_TRUE(backend) << describe(r);
    if (backend->device_count > 0) GTEST_SKIP() << "an AMD GPU is present: " << describe(r);
    EXPECT_NE(r.selected, "") << describe(r);
    EXPECT_NE(r.selected.rfind("hip:", 0), 0u) << describe(r);
    EXPECT_EQ(r.run, "ok " + r.selected) << describe(r);
}

} // namespace
} // namespace gpucore::test

// SPDX-License-Identifier: Apache-2.0
// libgpucore-hip.so where the HIP runtime is not installed. The probe runs through
// without_hip_runtime.sh: a private mount namespace in which libamdhip64 is deleted from its
// folder (an overlay; the real system is untouched), so the dynamic loader cannot find the
// plugin's dependency, exactly as on a machine without libamdhip64. The candidate must be skipped
// naming the missing library, GPU_BACKEND=hip must say so, and the application must still work.
// Skipped, with the reason, where the namespace cannot be made (not root, no overlayfs).
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "probe_runner.hpp"

namespace gpucore::test {
namespace {

using ::testing::HasSubstr;

constexpr int kCannotHideStatus = 77; // without_hip_runtime.sh: the runtime could not be hidden

std::string describe(const ProbeResult& r) { return "probe output:\n" + r.output; }

ProbeResult probe_without_runtime(const std::string& gpu_backend) {
    ProbeOptions options;
    options.environment.emplace("GPU_BACKEND", gpu_backend);
    return run_probe(options);
}

TEST(HipRuntimeHidden, CandidateIsSkippedNamingTheMissingLibrary) {
    const ProbeResult r = probe_without_runtime("cpu");
    if (r.exit_status == kCannotHideStatus) GTEST_SKIP() << r.output;
    ASSERT_EQ(r.exit_status, 0) << describe(r);
    const auto candidate = r.candidate("/libgpucore-hip.so");
    ASSERT_TRUE(candidate) << describe(r);
    EXPECT_EQ(candidate->outcome, "skipped") << describe(r);
    EXPECT_EQ(candidate->backend, "hip") << describe(r);
    EXPECT_THAT(candidate->reason, HasSubstr("libamdhip64.so")) << describe(r);
    EXPECT_THAT(candidate->reason, HasSubstr("cannot open shared object file")) << describe(r);
    EXPECT_FALSE(r.backend("hip")) << "a plugin that did not load registers no backend; " << describe(r);
    EXPECT_EQ(r.selected, "cpu:0") << describe(r);
    EXPECT_EQ(r.run, "ok cpu:0") << describe(r);
}

TEST(HipRuntimeHidden, GpuBackendHipSaysWhichLibraryIsMissing) {
    const ProbeResult r = probe_without_runtime("hip");
    if (r.exit_status == kCannotHideStatus) GTEST_SKIP() << r.output;
    ASSERT_EQ(r.exit_status, 0) << describe(r);
    EXPECT_EQ(r.selected, "") << describe(r);
    EXPECT_EQ(r.error_code, "backend_unavailable") << describe(r);
    EXPECT_THAT(r.error_text, HasSubstr("libgpucore-hip.so")) << describe(r);
    EXPECT_THAT(r.error_text, HasSubstr("libamdhip64.so")) << describe(r);
}

} // namespace
} // namespace gpucore::test

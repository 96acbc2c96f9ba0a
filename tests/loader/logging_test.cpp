// SPDX-License-Identifier: Apache-2.0
// GPUCORE_LOG_LEVEL and the one logger: quiet by default, levels honoured, plugin messages routed
// through the core's logger. Child processes, because the level is read once per process.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "probe_runner.hpp"

namespace gpucore::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ProbeResult probe(std::map<std::string, std::string> environment) {
    ProbeOptions options;
    options.environment = std::move(environment);
    ProbeResult r = run_probe(options);
    EXPECT_EQ(r.exit_status, 0) << r.output;
    return r;
}

TEST(Logging, QuietByDefaultEvenWhenACandidateIsSkipped) {
    const ProbeResult r = probe({{"GPUCORE_PLUGIN_PATH", GPUCORE_FIXTURE_NULLENTRY_PATH}, {"GPU_BACKEND", "cpu"}});
    ASSERT_TRUE(r.candidate("libgpucore-fixture-nullentry.so")) << r.output;
    EXPECT_THAT(r.output, Not(HasSubstr("[gpucore]"))) << "the default level (warn) must keep this run silent";
}

TEST(Logging, DebugLevelShowsDiscoveryAndPluginMessagesThroughTheCoreLogger) {
    const ProbeResult r = probe({{"GPUCORE_PLUGIN_PATH", GPUCORE_TEMPLATE_PLUGIN_PATH}, {"GPUCORE_LOG_LEVEL", "debug"}});
    EXPECT_THAT(r.output, HasSubstr("[gpucore] [debug]")) << r.output;
    // Logged by the template plugin through the host services callback, tagged with its name.
    EXPECT_THAT(r.output, HasSubstr("[template] template backend initialised")) << r.output;
}

TEST(Logging, InfoLevelReportsSkippedCandidates) {
    const ProbeResult r = probe({{"GPUCORE_PLUGIN_PATH", GPUCORE_FIXTURE_NULLENTRY_PATH}, {"GPUCORE_LOG_LEVEL", "info"}});
    EXPECT_THAT(r.output, HasSubstr("[info] plugin candidate")) << r.output;
    EXPECT_THAT(r.output, HasSubstr("no licence for this machine")) << r.output;
    EXPECT_THAT(r.output, Not(HasSubstr("[debug]")));
}

TEST(Logging, OffSilencesEvenErrors) {
    const ProbeResult r = probe({{"GPU_BACKEND", "nosuch"}, {"GPUCORE_LOG_LEVEL", "off"}});
    EXPECT_EQ(r.error_code, "invalid_argument") << r.output;
    EXPECT_THAT(r.output, Not(HasSubstr("[gpucore]"))) << r.output;
}

TEST(Logging, UnknownLevelIsReportedAndWarnIsUsed) {
    const ProbeResult r = probe({{"GPUCORE_LOG_LEVEL", "loud"}, {"GPUCORE_PLUGIN_PATH", GPUCORE_FIXTURE_NULLENTRY_PATH}});
    EXPECT_THAT(r.output, HasSubstr("[warning] GPUCORE_LOG_LEVEL='loud' is not one of")) << r.output;
    // The skipped candidate is logged at info: not shown at warn.
    ASSERT_TRUE(r.candidate("libgpucore-fixture-nullentry.so")) << r.output;
    EXPECT_THAT(r.output, Not(HasSubstr("[info]"))) << r.output;
}

TEST(Logging, SelectionErrorsThrownToTheCallerAreNotLoggedAsErrors) {
    for (const char* selection : {"nosuch", "cuda:7", "cpu:99"}) {
        const ProbeResult r = probe({{"GPU_BACKEND", selection}});
        EXPECT_FALSE(r.error_code.empty()) << selection << "\n" << r.output;
        // The caller gets the Error (the probe prints it once); the log must not repeat it.
        EXPECT_THAT(r.output, Not(HasSubstr("[gpucore] [error]"))) << selection << "\n" << r.output;
        EXPECT_THAT(r.output, Not(HasSubstr("[gpucore] [warning]"))) << selection << "\n" << r.output;
    }
}

} // namespace
} // namespace gpucore::test

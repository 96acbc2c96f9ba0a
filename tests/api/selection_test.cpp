// SPDX-License-Identifier: Apache-2.0
// GPU_BACKEND / select_device: every accepted form, every rejected form, with the reasons.
#include <cstdlib>

#include "api_test_support.hpp"

namespace gpucore::test {
namespace {

using ::testing::HasSubstr;

// Restores GPU_BACKEND after a test changes it.
class GpuBackendVariable {
public:
    GpuBackendVariable() {
        if (const char* v = std::getenv("GPU_BACKEND")) saved_ = v, had_ = true;
    }
    ~GpuBackendVariable() {
        if (had_) ::setenv("GPU_BACKEND", saved_.c_str(), 1);
        else ::unsetenv("GPU_BACKEND");
    }
    void set(const char* value) { ::setenv("GPU_BACKEND", value, 1); }
    void unset() { ::unsetenv("GPU_BACKEND"); }

private:
    std::string saved_;
    bool had_ = false;
};

TEST(Selection, UnsetGpuBackendIsAutoTheFirstDeviceInSelectionOrder) {
    GpuBackendVariable var;
    var.unset();
    const auto all = devices();
    ASSERT_FALSE(all.empty());
    EXPECT_EQ(default_device(), all.front());
    EXPECT_EQ(default_device(), select_device("auto"));
    EXPECT_EQ(default_device(), select_device(""));
    // cpu is always last; the template plugin (loaded here) comes before it.
    EXPECT_EQ(all.back().backend_name(), "cpu");
    const auto first = all.front().backend_name();
    EXPECT_TRUE(first == "cuda" || first == "hip" || first == "template") << first;
}

TEST(Selection, NamedBackendAndIndex) {
    GpuBackendVariable var;
    var.set("cpu");
    EXPECT_EQ(default_device().to_string(), "cpu:0");
    var.set("cpu:0");
    EXPECT_EQ(default_device().to_string(), "cpu:0");
    EXPECT_EQ(select_device("template:0").to_string(), "template:0");
    EXPECT_EQ(select_device("cpu").properties().backend, "cpu");
}

TEST(Selection, IndexOutOfRangeSaysHowManyDevicesThereAre) {
    const Error e = expect_error([] { select_device("cpu:7"); }, ErrorCode::invalid_argument, "select_device",
                                 "cpu:7: backend cpu has 1 device(s)");
    EXPECT_EQ(e.backend(), "cpu");
    EXPECT_EQ(e.device(), 7);
}

TEST(Selection, GpuBackendErrorsNameTheVariable) {
    GpuBackendVariable var;
    var.set("cpu:7");
    expect_error([] { default_device(); }, ErrorCode::invalid_argument, "default_device (GPU_BACKEND)",
                 "cpu:7: backend cpu has 1 device(s)");
}

TEST(Selection, UnknownBackendListsTheAvailableOnes) {
    const Error e = expect_error([] { select_device("nosuch"); }, ErrorCode::invalid_argument, "select_device",
                                 "unknown backend 'nosuch'");
    EXPECT_THAT(e.cause(), HasSubstr("available backends: "));
    EXPECT_THAT(e.cause(), HasSubstr("template"));
    EXPECT_THAT(e.cause(), HasSubstr("cpu"));
}

TEST(Selection, CudaWithoutAGpuIsAnErrorThatSaysWhy) {
    for (const auto& b : backends()) {
        if (b.name == "cuda" && b.usable) GTEST_SKIP() << "a CUDA device is present";
    }
    const Error e = expect_error([] { select_device("cuda"); }, ErrorCode::backend_unavailable, "select_device",
                                 "cuda");
    // Either the plugin was not built/found (the message names the file it looked for), or it loaded
    // and reports why it has no device (the message names the plugin file and the runtime's reason).
    EXPECT_THAT(e.cause(), HasSubstr("libgpucore-cuda.so"));
    EXPECT_EQ(e.backend(), "cuda");
}

TEST(Selection, HipWithoutAGpuIsAnErrorThatSaysWhy) {
    for (const auto& b : backends()) {
        if (b.name == "hip" && b.usable) GTEST_SKIP() << "an AMD device is present";
    }
    const Error e =
        expect_error([] { select_device("hip:1"); }, ErrorCode::backend_unavailable, "select_device", "hip");
    EXPECT_THAT(e.cause(), HasSubstr("libgpucore-hip.so"));
}

TEST(Selection, MalformedSelectionsAreRejectedQuotingTheText) {
    const char* bad[] = {"cpu:",  "cpu:x",  ":1",   "cpu:-1", "cpu:99999999999", "CPU", "auto:0",
                         "cpu:0:1", " cpu", "cpu ", "cpu:+1", "cp u",  ":",      "cpu:0x1"};
    for (const char* text : bad) {
        SCOPED_TRACE(text);
        expect_error([&] { select_device(text); }, ErrorCode::invalid_argument, "select_device",
                     std::string("invalid backend selection '") + text + "'");
    }
}

TEST(Selection, LeadingZerosAreAnOrdinaryIndex) { EXPECT_EQ(select_device("cpu:00").to_string(), "cpu:0"); }

TEST(Selection, BackendsAndCandidatesAreListed) {
    const auto all = backends();
    ASSERT_GE(all.size(), 2u);
    EXPECT_EQ(all.back().name, "cpu");
    EXPECT_EQ(all.back().source, "built-in");
    EXPECT_TRUE(all.back().usable);
    EXPECT_EQ(all.back().device_count, 1);
    bool template_listed = false;
    for (const auto& c : plugin_candidates()) {
        if (c.backend == "template" && c.outcome == PluginCandidate::Outcome::loaded) template_listed = true;
    }
    EXPECT_TRUE(template_listed);
    EXPECT_STREQ(to_string(PluginCandidate::Outcome::skipped), "skipped");
}

TEST(Selection, DevicePropertiesAreFilled) {
    const Device cpu = cpu_device();
    const auto& p = cpu.properties();
    EXPECT_EQ(p.backend, "cpu");
    EXPECT_EQ(p.index, 0);
    EXPECT_FALSE(p.name.empty());
    EXPECT_GE(p.compute_units, 1u);
    EXPECT_EQ(template_device().properties().name, "template host device (plain loops)");
    EXPECT_NE(cpu, template_device());
}

} // namespace
} // namespace gpucore::test

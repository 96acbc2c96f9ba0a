// SPDX-License-Identifier: Apache-2.0
// A plugin that throws C++ exceptions across the C boundary, calls back into gpucore while it is
// being loaded, or reports an absurd device count (hostile_plugin.cpp). Each scenario runs the
// probe in a child process with a time limit: the process must finish normally, the failure must
// reach the caller as a gpucore::Error (never another exception, never terminate), the plugin must
// be marked unusable once with a reason naming its file, and discovery must run exactly once.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "probe_runner.hpp"

namespace gpucore::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string describe(const ProbeResult& r) { return "probe output:\n" + r.output; }

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t count = 0;
    for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++count;
    return count;
}

// The probe with only the hostile plugin on the path, debug logging (to count discovery runs) and
// `environment` added.
ProbeResult hostile_probe(std::map<std::string, std::string> environment, bool exercise) {
    ProbeOptions options;
    options.environment = std::move(environment);
    options.environment.emplace("GPUCORE_PLUGIN_PATH", GPUCORE_FIXTURE_HOSTILE_PATH);
    options.environment.emplace("GPUCORE_LOG_LEVEL", "debug");
    options.exercise = exercise;
    options.run_vector_add = !exercise;
    options.timeout_seconds = 30;
    ProbeResult r = run_probe(options);
    EXPECT_FALSE(r.timed_out) << describe(r);
    EXPECT_EQ(r.exit_status, 0) << describe(r);
    // Every candidate is logged once per discovery: more would mean discovery ran again.
    EXPECT_EQ(count_of(r.output, "plugin candidate "), r.candidates.size()) << describe(r);
    return r;
}

TEST(HostilePlugin, BehavesWhenAskedNothing) {
    // Proves the scenarios below fail for the reason they claim: the same file works.
    const ProbeResult r = hostile_probe({{"GPU_BACKEND", "hostile"}}, true);
    const auto c = r.candidate("libgpucore-fixture-hostile.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "loaded") << describe(r);
    for (const char* name : {"allocate", "fill", "stream", "event", "again"}) {
        EXPECT_EQ(r.steps.count(name) ? r.steps.at(name) : "", "ok ") << name << "\n" << describe(r);
    }
    EXPECT_EQ(r.steps.count("devices") ? r.steps.at("devices") : "", "ok 1") << describe(r);
}

TEST(HostilePlugin, ExceptionDuringLoadingSkipsThePluginOnceNamingItsFile) {
    for (const std::string where : {"entry", "init", "device_count", "device_properties"}) {
        SCOPED_TRACE(where);
        const ProbeResult r = hostile_probe({{"GPUCORE_HOSTILE_THROW", where}, {"GPU_BACKEND", "cpu"}}, false);
        EXPECT_EQ(r.run, "ok cpu:0") << describe(r); // the application is unaffected
        const auto c = r.candidate("libgpucore-fixture-hostile.so");
        ASSERT_TRUE(c) << describe(r);
        EXPECT_EQ(c->outcome, "skipped") << describe(r);
        EXPECT_THAT(c->reason, HasSubstr(where)) << describe(r);
        EXPECT_THAT(c->reason, HasSubstr("threw a C++ exception (hostile: " + where + " exploded)")) << describe(r);
        EXPECT_THAT(c->reason, HasSubstr(GPUCORE_FIXTURE_HOSTILE_PATH)) << describe(r);
        if (where != "entry") { // registered but unusable, with the same reason
            ASSERT_TRUE(r.backend("hostile")) << describe(r);
            EXPECT_FALSE(r.backend("hostile")->usable);
            EXPECT_THAT(r.backend("hostile")->reason, HasSubstr("hostile: " + where + " exploded")) << describe(r);
        }
    }
}

TEST(HostilePlugin, SelectingAPluginWhoseInitThrewExplainsWhy) {
    const ProbeResult r = hostile_probe({{"GPUCORE_HOSTILE_THROW", "init"}, {"GPU_BACKEND", "hostile"}}, false);
    EXPECT_EQ(r.error_code, "backend_unavailable") << describe(r);
    EXPECT_THAT(r.error_text, HasSubstr("hostile: init exploded")) << describe(r);
    EXPECT_THAT(r.error_text, HasSubstr(GPUCORE_FIXTURE_HOSTILE_PATH)) << describe(r);
}

TEST(HostilePlugin, ExceptionFromASlotIsAPluginErrorAndTheBackendStaysUnusable) {
    // step in which the slot first runs, for each throwing slot
    const std::pair<std::string, std::string> cases[] = {
        {"allocate", "allocate"}, {"fill", "fill"}, {"stream_create", "fill"}, // blocking fill: internal stream
        {"deallocate", "allocate"}, {"stream_destroy", "stream"},
        {"event_destroy", "stream"}}; // ~Stream destroys the event blocking calls record on the stream
    const char* order[] = {"allocate", "fill", "stream", "event", "again"};
    for (const auto& [slot, first_step] : cases) {
        SCOPED_TRACE(slot);
        const ProbeResult r = hostile_probe({{"GPUCORE_HOSTILE_THROW", slot}, {"GPU_BACKEND", "hostile"}}, true);
        ASSERT_EQ(r.selected, "hostile:0") << describe(r);
        bool reached = false;
        for (const char* name : order) {
            const std::string outcome = r.steps.count(name) ? r.steps.at(name) : "(missing)";
            if (name == first_step) {
                reached = true;
                const bool in_destructor = slot == "deallocate" || slot.find("_destroy") != std::string::npos;
                if (in_destructor) {
                    // A destructor never throws: the step itself completes; the failure is logged.
                    EXPECT_EQ(outcome, "ok ") << name << "\n" << describe(r);
                } else {
                    EXPECT_THAT(outcome, StartsWith("Error plugin_error")) << name << "\n" << describe(r);
                    EXPECT_THAT(outcome, HasSubstr("threw a C++ exception (hostile: " + slot + " exploded)"))
                        << describe(r);
                }
            } else if (reached) {
                // Every later call is refused without calling the plugin, naming its file and cause.
                EXPECT_THAT(outcome, StartsWith("Error plugin_error")) << name << "\n" << describe(r);
                EXPECT_THAT(outcome, HasSubstr(GPUCORE_FIXTURE_HOSTILE_PATH)) << name << "\n" << describe(r);
                EXPECT_THAT(outcome, HasSubstr("hostile: " + slot + " exploded")) << name << "\n" << describe(r);
            } else {
                EXPECT_EQ(outcome, "ok ") << name << "\n" << describe(r);
            }
        }
        EXPECT_EQ(r.steps.count("devices") ? r.steps.at("devices") : "", "ok 0")
            << "an unusable backend offers no device\n" << describe(r);
        EXPECT_EQ(count_of(r.output, "] [warning] backend hostile: unusable since"), 1u)
            << "marked unusable exactly once\n" << describe(r);
    }
}

TEST(HostilePlugin, CallingBackIntoGpucoreWhileBeingLoadedIsAnErrorNotADeadlock) {
    for (const std::string where : {"entry", "init", "device_count"}) {
        SCOPED_TRACE(where);
        const ProbeResult r = hostile_probe({{"GPUCORE_HOSTILE_REENTER", where}, {"GPU_BACKEND", "cpu"}}, false);
        ASSERT_FALSE(r.timed_out);
        EXPECT_EQ(r.run, "ok cpu:0") << describe(r);
        const auto c = r.candidate("libgpucore-fixture-hostile.so");
        ASSERT_TRUE(c) << describe(r);
        EXPECT_EQ(c->outcome, "skipped") << describe(r);
        EXPECT_THAT(c->reason, HasSubstr("called back into gpucore while it is loading plugins")) << describe(r);
    }
}

TEST(HostilePlugin, AbsurdDeviceCountIsRefusedBeforeAllocatingForIt) {
    for (const std::string count : {"2147483647", "4097", "-1"}) {
        SCOPED_TRACE(count);
        const ProbeResult r = hostile_probe({{"GPUCORE_HOSTILE_DEVICE_COUNT", count}, {"GPU_BACKEND", "cpu"}}, false);
        const auto c = r.candidate("libgpucore-fixture-hostile.so");
        ASSERT_TRUE(c) << describe(r);
        EXPECT_EQ(c->outcome, "skipped") << describe(r);
        EXPECT_THAT(c->reason, HasSubstr("device_count returned " + count + " devices, outside 0..4096")) << describe(r);
        EXPECT_LT(r.wall_seconds, 10.0) << describe(r);
    }
    // The largest accepted count works: 4096 devices, all listed.
    const ProbeResult r = hostile_probe({{"GPUCORE_HOSTILE_DEVICE_COUNT", "4096"}, {"GPU_BACKEND", "cpu"}}, false);
    ASSERT_TRUE(r.backend("hostile")) << describe(r);
    EXPECT_TRUE(r.backend("hostile")->usable) << describe(r);
    EXPECT_EQ(r.backend("hostile")->device_count, 4096) << describe(r);
}

TEST(HostilePlugin, HugeStringsFromThePluginAreBounded) {
    const ProbeResult r = hostile_probe({{"GPUCORE_HOSTILE_HUGE_STRINGS", "1"}, {"GPU_BACKEND", "hostile"}}, false);
    ASSERT_TRUE(r.backend("hostile")) << r.output.substr(0, 4000);
    EXPECT_EQ(r.backend("hostile")->version, std::string(255, 'v'));
    // The 1 MiB log message arrives cut, marked so.
    EXPECT_THAT(r.output, HasSubstr(std::string(4096, 'v') + " [cut]")) << r.output.substr(0, 4000);
    EXPECT_LT(r.output.size(), std::size_t{64} << 10) << r.output.substr(0, 4000);
    EXPECT_EQ(r.run, "ok hostile:0") << r.output.substr(0, 4000);
}

} // namespace
} // namespace gpucore::test

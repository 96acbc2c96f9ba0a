// SPDX-License-Identifier: Apache-2.0
// The plugin SDK's boundary plumbing (gpucore/plugin_support.hpp): every exception becomes a
// status and a bounded message; host services are copied no further than either side knows.
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "gpucore/plugin_support.hpp"

namespace {

using gpucore::plugin::guarded;

gpucore_message poisoned_message() {
    gpucore_message msg;
    std::memset(msg.text, 'x', sizeof msg.text);
    return msg;
}

TEST(PluginSupport, WriteMessageTruncatesAndTerminates) {
    gpucore_message msg = poisoned_message();
    const std::string long_text(5000, 'a');
    gpucore::plugin::write_message(&msg, long_text);
    EXPECT_EQ(std::strlen(msg.text), sizeof msg.text - 1);
    gpucore::plugin::write_message(&msg, "short");
    EXPECT_STREQ(msg.text, "short");
    gpucore::plugin::write_message(&msg, static_cast<const char*>(nullptr));
    EXPECT_STREQ(msg.text, "");
    gpucore::plugin::write_message(nullptr, "no crash");
}

TEST(PluginSupport, GuardedTurnsEveryExceptionIntoAStatusAndMessage) {
    gpucore_message msg = poisoned_message();
    EXPECT_EQ(guarded(&msg, [] {}), GPUCORE_OK);
    EXPECT_EQ(guarded(&msg, [] { return GPUCORE_ERROR_DEVICE; }), GPUCORE_ERROR_DEVICE);
    EXPECT_EQ(guarded(&msg, [] { throw std::bad_alloc(); }), GPUCORE_ERROR_OUT_OF_MEMORY);
    EXPECT_STREQ(msg.text, "out of memory (host memory exhausted)");
    EXPECT_EQ(guarded(&msg, [] { throw gpucore::plugin::StatusError(GPUCORE_ERROR_NOT_SUPPORTED, "no f64 here"); }),
              GPUCORE_ERROR_NOT_SUPPORTED);
    EXPECT_STREQ(msg.text, "no f64 here");
    EXPECT_EQ(guarded(&msg, [] { throw std::logic_error("bug"); }), GPUCORE_ERROR_PLUGIN);
    EXPECT_STREQ(msg.text, "internal error: bug");
    EXPECT_EQ(guarded(&msg, [] { throw 42; }), GPUCORE_ERROR_PLUGIN);
    EXPECT_STREQ(msg.text, "internal error: unknown exception");
}

TEST(PluginSupport, GuardedShowsEachFailureToTheHookAndSurvivesAThrowingHook) {
    gpucore_message msg = poisoned_message();
    gpucore_status seen = GPUCORE_OK;
    const auto status = guarded(
        &msg, [] { throw gpucore::plugin::StatusError(GPUCORE_ERROR_DEVICE, "lost"); },
        [&](gpucore_status s, const std::string& text) {
            seen = s;
            EXPECT_EQ(text, "lost");
            throw std::runtime_error("hook failed");
        });
    EXPECT_EQ(status, GPUCORE_ERROR_DEVICE);
    EXPECT_EQ(seen, GPUCORE_ERROR_DEVICE);
    EXPECT_STREQ(msg.text, "lost");
}

int g_logged = 0;
void count_log(void* user, gpucore_log_level, const char*) { g_logged += *static_cast<int*>(user); }

TEST(PluginSupport, HostServicesAreCopiedNoFurtherThanTheCoresStructSize) {
    int weight = 1;
    // A core whose struct ends after `log`: log_user and log_level must not be read from it.
    struct {
        gpucore_host_services services;
        unsigned char guard[64];
    } shorter;
    std::memset(&shorter, 0x5A, sizeof shorter);
    shorter.services.struct_size = static_cast<uint32_t>(offsetof(gpucore_host_services, log_user));
    shorter.services.log = count_log;
    gpucore::plugin::HostServices host;
    host.copy_from(&shorter.services);
    EXPECT_EQ(host.raw().log, &count_log);
    EXPECT_EQ(host.raw().log_user, nullptr);
    EXPECT_EQ(host.raw().log_level, GPUCORE_LOG_TRACE);

    gpucore_host_services full{sizeof(gpucore_host_services), count_log, &weight, GPUCORE_LOG_WARN};
    host.copy_from(&full);
    g_logged = 0;
    host.log(GPUCORE_LOG_DEBUG, "dropped");
    EXPECT_EQ(g_logged, 0);
    EXPECT_FALSE(host.enabled(GPUCORE_LOG_INFO));
    host.log(GPUCORE_LOG_ERROR, std::string("shown"));
    EXPECT_EQ(g_logged, 1);
    host.copy_from(nullptr);
    host.log(GPUCORE_LOG_ERROR, "no logger: no crash");
    EXPECT_EQ(g_logged, 1);
}

} // namespace

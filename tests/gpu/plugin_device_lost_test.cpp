// SPDX-License-Identifier: Apache-2.0
// A kernel fault (illegal address) is sticky: the CUDA context is lost. The plugin must report it
// as a device error at the next synchronizing call, and every later call on the device must say
// the device is unusable (never crash, never pretend it works). Its own process: the fault kills
// the context for everything else in it.
#include <cstring>

#include "plugin_table_support.hpp"

namespace plugin_test {
namespace {

TEST(CudaPluginDeviceLost, IllegalAddressMarksTheDeviceUnusable) {
    const gpucore_plugin_api* api = plugin().api;
    ASSERT_NE(api, nullptr) << plugin().error;
    if (plugin().devices == 0) GTEST_SKIP() << "0 CUDA devices: " << plugin().no_device_reason;

    gpucore_stream s = nullptr;
    PLUGIN_OK(api->stream_create(0, &s, &plugin_msg));
    // An address no allocation covers: the kernel faults when it runs.
    auto* bogus = reinterpret_cast<float*>(std::uintptr_t{0x100});
    gpucore_message msg{};
    const gpucore_status launched =
        api->vector_add(GPUCORE_DTYPE_F32, bogus, bogus, bogus, 1 << 20, s, &msg);
    EXPECT_EQ(launched, GPUCORE_OK) << msg.text; // the fault happens asynchronously
    msg = {};
    EXPECT_EQ(api->stream_synchronize(s, &msg), GPUCORE_ERROR_DEVICE);
    EXPECT_NE(std::strstr(msg.text, "cudaErrorIllegalAddress"), nullptr) << msg.text;

    void* p = nullptr;
    msg = {};
    EXPECT_EQ(api->allocate(0, GPUCORE_MEMORY_DEVICE, 1024, &p, &msg), GPUCORE_ERROR_DEVICE);
    EXPECT_NE(std::strstr(msg.text, "unusable"), nullptr) << msg.text;
    msg = {};
    gpucore_stream s2 = nullptr;
    EXPECT_EQ(api->stream_create(0, &s2, &msg), GPUCORE_ERROR_DEVICE);
    EXPECT_NE(std::strstr(msg.text, "unusable"), nullptr) << msg.text;
    msg = {};
    EXPECT_EQ(api->reduce(GPUCORE_DTYPE_F32, GPUCORE_REDUCE_SUM, bogus, 10, bogus, s, &msg),
              GPUCORE_ERROR_DEVICE);
    msg = {};
    EXPECT_NE(api->stream_destroy(s, &msg), GPUCORE_OK); // reports the loss, frees the handle
}

} // namespace
} // namespace plugin_test

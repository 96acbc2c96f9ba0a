// SPDX-License-Identifier: Apache-2.0
// The test-only simt backends are loaded in this program (wave_main.cpp) and work when named, but
// GPU_BACKEND=auto never picks them: a CPU execution of GPU kernels must not pass for a GPU.
#include <gtest/gtest.h>

#include "gpucore/device.hpp"

namespace {

TEST(WaveSelection, AutoNeverPicksATestBackend) {
    bool loaded = false;
    for (const auto& device : gpucore::devices()) loaded |= device.backend_name() == "test-wave64";
    ASSERT_TRUE(loaded) << "the test-wave64 plugin did not load";
    const gpucore::Device picked = gpucore::select_device("auto");
    EXPECT_EQ(picked.backend_name().rfind("test-", 0), std::string::npos) << picked.to_string();
}

TEST(WaveSelection, NamedTestBackendsAreSelected) {
    EXPECT_EQ(gpucore::select_device("test-wave64").to_string(), "test-wave64:0");
    EXPECT_EQ(gpucore::select_device("test-wave32:0").properties().warp_size, 32u);
    EXPECT_EQ(gpucore::select_device("test-wave64").properties().warp_size, 64u);
}

} // namespace

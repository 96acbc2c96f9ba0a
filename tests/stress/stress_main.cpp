// SPDX-License-Identifier: Apache-2.0
// Puts this executable's plugins on GPUCORE_PLUGIN_PATH before gpucore's runtime starts (it starts
// once per process, at the first call; gtest enumerates the devices of parameterized suites during
// InitGoogleTest). A GPUCORE_PLUGIN_PATH already set by the caller wins.
#include <cstdlib>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
    ::setenv("GPUCORE_PLUGIN_PATH", GPUCORE_STRESS_PLUGIN_PATH, 0);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

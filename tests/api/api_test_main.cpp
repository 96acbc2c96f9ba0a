// SPDX-License-Identifier: Apache-2.0
// Points discovery at the build tree's test plugins (the template backend) before the runtime
// initialises, unless the caller chose a GPUCORE_PLUGIN_PATH.
#include <cstdlib>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
    ::setenv("GPUCORE_PLUGIN_PATH", GPUCORE_TEST_PLUGIN_DIR, 0);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

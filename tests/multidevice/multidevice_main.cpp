// SPDX-License-Identifier: Apache-2.0
// main() of gpucore_multidevice_tests: loads the build tree's test plugins (the template backend,
// the simt plugins with two devices each) before GoogleTest expands the device pairs, unless the
// caller chose GPUCORE_PLUGIN_PATH / GPUCORE_SIMT_DEVICE_COUNT.
#include <cstdlib>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
    ::setenv("GPUCORE_PLUGIN_PATH", GPUCORE_MULTIDEVICE_PLUGIN_PATH, 0);
    ::setenv("GPUCORE_SIMT_DEVICE_COUNT", "2", 0);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

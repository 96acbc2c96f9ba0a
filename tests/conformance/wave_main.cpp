// SPDX-License-Identifier: Apache-2.0
// main() of gpucore_conformance_wave: the conformance suite with the test-only simt plugins
// (test-wave64, test-wave32: the GPU kernels executed on the CPU with 64- and 32-lane warps)
// loaded from their build folder. The variable is set before GoogleTest expands the suites, which
// is when the device list is first read.
#include <cstdlib>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
    setenv("GPUCORE_PLUGIN_PATH", GPUCORE_WAVE_PLUGIN_DIR, 1);
    testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

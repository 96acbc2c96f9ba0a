// SPDX-License-Identifier: Apache-2.0
// gpucore-conformance --plugin FILE: loads that one plugin file and finds the backend it provides,
// so the suite runs on its devices only.
#pragma once

#include <string>

namespace conformance {

struct PluginUnderTest {
    std::string path;          // the file, absolute
    std::string backend;       // the backend name its table reports ("mine")
    std::string version;       // its table's version text
    int device_count = 0;
    std::string problem;       // why it cannot be tested (not loaded, 0 devices); empty when it can
};

// Adds `file` to GPUCORE_PLUGIN_PATH (in front of what the environment holds), starts gpucore's
// discovery and reads the file's outcome. Call before anything else uses gpucore in this process.
PluginUnderTest load_plugin_under_test(const std::string& file);

} // namespace conformance

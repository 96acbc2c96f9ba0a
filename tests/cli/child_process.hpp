// SPDX-License-Identifier: Apache-2.0
// Runs a program as a child process with a chosen environment and captures what it prints.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gpucore::cli_test {

struct ChildResult {
    int exit_code = -1; // the child's exit status; 128 + signal when a signal ended it
    std::string out;    // everything it wrote to stdout
    std::string err;    // everything it wrote to stderr
};

// Environment for a child: this process's environment without the gpucore variables
// (GPU_BACKEND, GPUCORE_PLUGIN_PATH, GPUCORE_LOG_LEVEL, GPUCORE_ALLOW_INSECURE_PLUGINS), plus
// `set` ("NAME", "value") pairs.
std::vector<std::string> child_environment(
    const std::vector<std::pair<std::string, std::string>>& set = {});

// Runs `program` with `args` (argv[1..]) and `environment`; waits for it. Throws
// std::runtime_error when it cannot be started.
ChildResult run_child(const std::string& program, const std::vector<std::string>& args,
                      const std::vector<std::string>& environment);

} // namespace gpucore::cli_test

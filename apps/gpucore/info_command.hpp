// SPDX-License-Identifier: Apache-2.0
// `gpucore info`: what this process can use: backends, every plugin candidate with its outcome,
// devices with their properties, and the device GPU_BACKEND selects.
#pragma once

#include <CLI/CLI.hpp>

namespace gpucore::cli {

struct InfoOptions {
    bool json = false;
};

extern const char* const info_usage;

CLI::App* add_info_command(CLI::App& app, InfoOptions& options);

// Prints the report and returns the exit code: exit_gpucore_error (with the Error's message on
// stderr) when the selection GPU_BACKEND names is unavailable, after printing everything else.
int info_command(const InfoOptions& options);

} // namespace gpucore::cli

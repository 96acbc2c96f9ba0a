// SPDX-License-Identifier: Apache-2.0
// `gpucore bench`: a sweep of sizes for every op and dtype on one device, each compared with a
// device-to-device copy of the same bytes measured in the same run (and, on the cpu backend,
// vector_add with a plain OpenMP loop).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace gpucore::cli {

struct BenchOptions {
    std::string device;    // empty: the default device
    std::string json_file; // empty: no JSON
    bool quick = false;
    std::size_t repeat = 0; // 0: 10, or 5 with --quick
    std::uint64_t seed = 1;
    std::vector<std::string> dtypes; // empty: every dtype
};

extern const char* const bench_usage;

CLI::App* add_bench_command(CLI::App& app, BenchOptions& options);

// Runs the sweep, prints the table (and writes the JSON file); returns exit_verification_failed
// when any case's result disagreed with the reference. A case whose dtype the backend answers
// not_supported is skipped and said (stderr, a line below the table, the JSON's "skipped"); when
// every case was skipped, nothing was measured: exit_gpucore_error, and no JSON file is written.
// Throws gpucore::Error, or UsageError when the JSON file cannot be written.
int bench_command(const BenchOptions& options);

} // namespace gpucore::cli

// SPDX-License-Identifier: Apache-2.0
// `gpucore run OP|all`: runs operations on one device with seeded random inputs, verifies each
// result against a double-precision CPU reference and prints time and effective bandwidth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace gpucore::cli {

struct RunOptions {
    std::string op;          // an op name or "all"
    std::string dtype = "f32";
    std::string n, rows, cols; // counts as typed; empty when not given
    std::string reduce_op;   // empty when not given (sum)
    std::string device;      // empty: the default device (GPU_BACKEND, else auto)
    std::size_t repeat = 10;
    std::uint64_t seed = 1;
    bool json = false;
};

// "gpucore run vector_add|...|all [--dtype DTYPE] ...": the line a usage error prints.
std::string run_usage();

// Registers the subcommand; its options are written into `options` when parsed.
CLI::App* add_run_command(CLI::App& app, RunOptions& options);

// Runs the parsed command and returns the exit code (exit_codes.hpp): 1 when any result fails
// verification. Throws UsageError for options that do not fit together and gpucore::Error when
// the device cannot be selected or the work fails.
int run_command(const RunOptions& options);

} // namespace gpucore::cli

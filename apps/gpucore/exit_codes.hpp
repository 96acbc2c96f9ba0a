// SPDX-License-Identifier: Apache-2.0
// The command's exit codes and the exception a command throws for a bad combination of options.
#pragma once

#include <stdexcept>
#include <string>

namespace gpucore::cli {

enum ExitCode : int {
    exit_success = 0,
    exit_verification_failed = 1, // an op's result disagreed with the CPU reference
    exit_usage = 2,               // unknown flag, bad value, bad combination of options
    exit_gpucore_error = 3,       // gpucore::Error: backend unavailable, out of memory, ...
    exit_output_error = 4,        // the results could not be written (full disk, closed pipe)
};

// Thrown by a command for options that parse but do not fit together ("--n with transpose");
// main prints it with the subcommand's usage line and exits with exit_usage.
class UsageError : public std::runtime_error {
public:
    explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

// Thrown when a run would not fit in the memory there is (checked before allocating, so a run
// larger than RAM is refused with the numbers instead of being killed); exit_gpucore_error.
class ResourceError : public std::runtime_error {
public:
    explicit ResourceError(const std::string& message) : std::runtime_error(message) {}
};

// Thrown when results cannot be written; main exits with exit_output_error.
class OutputError : public std::runtime_error {
public:
    explicit OutputError(const std::string& message) : std::runtime_error(message) {}
};

} // namespace gpucore::cli

// SPDX-License-Identifier: Apache-2.0
// The sweep `gpucore bench` runs: sizes for every op, each dtype, and the cases with speed targets.
// An operation without a plan of its own (bench_plan.cpp) gets default sizes for its layout.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "case_spec.hpp"

namespace gpucore::cli {

struct BenchCase {
    CaseSpec spec;
    // Non-empty for a case with a speed target, e.g. "CPU target: >= 1.0x a plain OpenMP loop";
    // printed below the table so a reader finds them.
    std::string target;
    // For a target that is a ratio to another case's GB/s: that case, timed in turn with this one
    // (the two cases' own rows are timed minutes apart, too far for a ratio on a shared machine).
    std::optional<CaseSpec> in_turn_with;
};

// quick: small sizes only (seconds on a 2-core CPU, no target cases). gpu: sizes for a device
// with tens of GiB and TB/s (up to 2^28 elements, transposes of 16384^2); otherwise sizes for a
// CPU with a few GiB to spare (up to 2^26 elements, 8192^2).
std::vector<BenchCase> bench_plan(bool quick, bool gpu);

} // namespace gpucore::cli

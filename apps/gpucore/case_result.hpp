// SPDX-License-Identifier: Apache-2.0
// CaseResult: what running one CaseSpec on a device produced (time, bandwidth, verification), and
// its JSON form shared by `gpucore run` and `gpucore bench`.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "case_spec.hpp"
#include "gpucore/device.hpp"
#include "timing.hpp"
#include "verify.hpp"

namespace gpucore::cli {

struct CaseResult {
    CaseSpec spec;
    Device device;
    TimingStats timing;      // event-timed runs after the warm-up
    double gbps = 0;         // spec.bytes_moved() / timing.median_ms
    Verification verification;
    std::uint64_t seed = 0;
};

// {"backend", "device", "device_name", "op", "dtype", "reduce_op" (reductions only), "shape",
//  "elements", "bytes_moved", "ms", "ms_min", "ms_max", "repeats", "gbps", "percent_of_peak"
//  (null when the device reports no theoretical peak), "verified",
//  "max_error", "max_error_ratio", "mismatches", "seed"}; non-finite numbers become null.
nlohmann::json to_json(const CaseResult& result);

// `gbps` as a percentage of the device's theoretical memory bandwidth `peak_gbps`; NaN when the
// device reports none (0: the cpu backend, plugins that cannot know it).
double percent_of_peak(double gbps, double peak_gbps);
// The same for a table: one decimal, or "-" when the device reports no peak.
std::string percent_of_peak_text(double gbps, double peak_gbps);

// A number for JSON: null when not finite (JSON has no infinity or NaN).
nlohmann::json json_number(double value);

} // namespace gpucore::cli

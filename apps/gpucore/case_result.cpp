// SPDX-License-Identifier: Apache-2.0
#include "case_result.hpp"

#include <cmath>

#include "operation.hpp"
#include "text_table.hpp"

namespace gpucore::cli {

nlohmann::json json_number(double value) {
    if (!std::isfinite(value)) return nullptr;
    return value;
}

double percent_of_peak(double gbps, double peak_gbps) {
    return peak_gbps > 0 ? 100.0 * gbps / peak_gbps : NAN;
}

std::string percent_of_peak_text(double gbps, double peak_gbps) {
    const double percent = percent_of_peak(gbps, peak_gbps);
    return std::isfinite(percent) ? fixed(percent, 1) : "-";
}

nlohmann::json to_json(const CaseResult& r) {
    nlohmann::json j;
    j["backend"] = r.device.backend_name();
    j["device"] = r.device.to_string();
    j["device_name"] = r.device.properties().name;
    j["op"] = r.spec.op->name;
    j["dtype"] = gpucore::to_string(r.spec.dtype);
    if (r.spec.is_reduction()) j["reduce_op"] = gpucore::to_string(r.spec.reduce_op);
    j["shape"] = r.spec.shape();
    j["elements"] = r.spec.elements();
    j["bytes_moved"] = r.spec.bytes_moved();
    j["ms"] = json_number(r.timing.median_ms);
    j["ms_min"] = json_number(r.timing.min_ms);
    j["ms_max"] = json_number(r.timing.max_ms);
    j["repeats"] = r.timing.samples;
    j["gbps"] = json_number(r.gbps);
    j["percent_of_peak"] =
        json_number(percent_of_peak(r.gbps, r.device.properties().peak_memory_bandwidth_gbps));
    j["verified"] = r.verification.passed;
    j["max_error"] = json_number(r.verification.max_error);
    j["max_error_ratio"] = json_number(r.verification.max_error_ratio);
    j["mismatches"] = r.verification.mismatches;
    if (!r.verification.passed) j["first_mismatch"] = r.verification.summary();
    j["seed"] = r.seed;
    return j;
}

} // namespace gpucore::cli

// SPDX-License-Identifier: Apache-2.0
#include "in_turn.hpp"

namespace gpucore::cli {

std::vector<double> in_turn_gbps_ratios(const std::vector<double>& times_ms, double measured_bytes,
                                        double reference_bytes) {
    std::vector<double> ratios;
    for (std::size_t first = 0; first + 1 < times_ms.size(); first += 2) {
        const bool measured_first = in_turn_run_is_measured(first);
        const double measured_ms = times_ms[measured_first ? first : first + 1];
        const double reference_ms = times_ms[measured_first ? first + 1 : first];
        if (measured_ms > 0 && reference_ms > 0)
            ratios.push_back((measured_bytes / measured_ms) / (reference_bytes / reference_ms));
    }
    return ratios;
}

} // namespace gpucore::cli

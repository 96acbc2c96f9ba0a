// SPDX-License-Identifier: Apache-2.0
// Two cases timed in turn (`gpucore bench`, a target that is a ratio of two cases' GB/s): pairs of
// runs on one stream, the order within a pair alternating, so that whatever else the machine does
// at that moment falls on both cases alike.
#pragma once

#include <cstddef>
#include <vector>

namespace gpucore::cli {

// Whether run `run` of the in-turn sequence is the measured case's (else the reference's): run i
// belongs to pair i / 2; the measured case goes first in even pairs, second in odd ones.
constexpr bool in_turn_run_is_measured(std::size_t run) noexcept { return (run % 2 == 0) == (run / 2 % 2 == 0); }

// Per pair of the in-turn sequence's times (ms, 2 per pair), the measured case's GB/s over the
// reference's, for cases that move `measured_bytes` and `reference_bytes`. Pairs with a zero time
// on either side are left out.
std::vector<double> in_turn_gbps_ratios(const std::vector<double>& times_ms, double measured_bytes,
                                        double reference_bytes);

} // namespace gpucore::cli

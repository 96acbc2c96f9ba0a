// SPDX-License-Identifier: Apache-2.0
// `gpucore bench`'s cases timed in turn: which run of a pair is which case, the per-pair GB/s
// ratios, and that every target that compares two cases' GB/s names a case timed in turn with it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench_plan.hpp"
#include "in_turn.hpp"

namespace gpucore::cli {
namespace {

TEST(InTurn, EachPairHoldsOneRunOfEachCaseInAlternatingOrder) {
    for (std::size_t pair = 0; pair < 6; ++pair) {
        const bool first = in_turn_run_is_measured(2 * pair), second = in_turn_run_is_measured(2 * pair + 1);
        EXPECT_NE(first, second) << "pair " << pair;
        EXPECT_EQ(first, pair % 2 == 0) << "pair " << pair << ": the measured case goes first in even pairs";
    }
}

TEST(InTurn, RatiosAreThePairsGbpsQuotients) {
    // Pair 0: measured 2 ms then reference 1 ms; pair 1: reference 4 ms then measured 1 ms; pair 2:
    // a zero time (left out); pair 3: reference 3 ms then measured 6 ms. The measured case moves
    // half the reference's bytes.
    const std::vector<double> times = {2.0, 1.0, 4.0, 1.0, 0.0, 5.0, 3.0, 6.0};
    const std::vector<double> ratios = in_turn_gbps_ratios(times, 50.0, 100.0);
    ASSERT_EQ(ratios.size(), 3u);
    EXPECT_DOUBLE_EQ(ratios[0], (50.0 / 2.0) / (100.0 / 1.0));
    EXPECT_DOUBLE_EQ(ratios[1], (50.0 / 1.0) / (100.0 / 4.0));
    EXPECT_DOUBLE_EQ(ratios[2], (50.0 / 6.0) / (100.0 / 3.0));
    EXPECT_TRUE(in_turn_gbps_ratios({1.0}, 1.0, 1.0).empty()) << "an unpaired run gives no ratio";
}

// A target "GB/s >= 1.0x <case>'s" compares two cases: the plan times that case in turn with it.
TEST(InTurn, EveryGbpsRatioTargetNamesTheCaseTimedInTurn) {
    for (const bool gpu : {false, true}) {
        std::size_t ratio_targets = 0;
        for (const BenchCase& c : bench_plan(/*quick=*/false, gpu)) {
            const std::size_t at = c.target.find("GB/s >= ");
            if (at == std::string::npos) {
                EXPECT_FALSE(c.in_turn_with.has_value()) << c.spec.name() << ": timed in turn without a ratio target";
                continue;
            }
            ++ratio_targets;
            ASSERT_TRUE(c.in_turn_with.has_value()) << c.spec.name() << ": " << c.target;
            EXPECT_NE(c.target.find("x " + c.in_turn_with->name() + "'s"), std::string::npos)
                << c.spec.name() << ": the target names " << c.target << ", the plan times " << c.in_turn_with->name();
            EXPECT_NE(c.in_turn_with->dtype, c.spec.dtype) << c.spec.name();
        }
        if (!gpu) {
            EXPECT_EQ(ratio_targets, 4u) << "f16 and bf16, reduce and reduce_rows";
        }
    }
}

} // namespace
} // namespace gpucore::cli

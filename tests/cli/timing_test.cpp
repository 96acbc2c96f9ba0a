// SPDX-License-Identifier: Apache-2.0
// `gpucore bench`'s timing helpers: how many warm-up runs a case with rotation sets gets.
#include <gtest/gtest.h>

#include <cstddef>

#include "timing.hpp"

namespace gpucore::cli {
namespace {

TEST(Timing, WarmUpRunsCoverEveryRotationSetAndAtLeastTheMinimum) {
    for (const std::size_t sets : {1, 2, 3, 15, 256}) {
        const std::size_t runs = warmup_runs_over(sets, 2);
        EXPECT_GE(runs, sets) << sets << " sets: every set is read once before any timed run";
        EXPECT_GE(runs, 2u) << sets << " sets";
        EXPECT_EQ(runs, sets > 2 ? sets : 2u) << sets << " sets: no more runs than that";
    }
}

} // namespace
} // namespace gpucore::cli

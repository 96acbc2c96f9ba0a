// SPDX-License-Identifier: Apache-2.0
// The CPU backend's thread pool: every item runs exactly once at any thread count and grain, jobs
// of several threads at once do not mix, and an exception in one item reaches the caller.
#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cpu_thread_pool.hpp"

namespace gpucore::cpu::test {
namespace {

// Counts how often parallel_for hands out each item.
std::vector<int> run_counts(std::size_t count, std::size_t grain, int threads) {
    std::vector<std::atomic<int>> seen(count);
    parallel_for(count, grain, threads, [&](std::size_t begin, std::size_t end) {
        ASSERT_LT(begin, end);
        ASSERT_LE(end, count);
        for (std::size_t i = begin; i < end; ++i) seen[i].fetch_add(1);
    });
    std::vector<int> counts(count);
    for (std::size_t i = 0; i < count; ++i) counts[i] = seen[i].load();
    return counts;
}

TEST(CpuThreadPool, RunsEveryItemExactlyOnce) {
    for (const std::size_t count : {1u, 2u, 7u, 1000u, 100003u}) {
        for (const std::size_t grain : {1u, 3u, 64u}) {
            for (const int threads : {1, 2, 5}) {
                EXPECT_EQ(run_counts(count, grain, threads), std::vector<int>(count, 1))
                    << count << " items, grain " << grain << ", " << threads << " threads";
            }
        }
    }
    EXPECT_TRUE(run_counts(0, 1, 4).empty());
}

TEST(CpuThreadPool, JobsOfSeveralThreadsAtOnceStaySeparate) {
    std::vector<std::thread> callers;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 6; ++t) {
        callers.emplace_back([&, t] {
            for (int round = 0; round < 20; ++round) {
                const std::size_t count = 5000 + static_cast<std::size_t>(t * 31 + round);
                if (run_counts(count, 7, 4) != std::vector<int>(count, 1)) wrong.fetch_add(1);
            }
        });
    }
    for (auto& caller : callers) caller.join();
    EXPECT_EQ(wrong.load(), 0);
}

TEST(CpuThreadPool, AnExceptionInAnItemReachesTheCaller) {
    std::atomic<int> ran{0};
    EXPECT_THROW(parallel_for(10000, 1, 4,
                              [&](std::size_t begin, std::size_t) {
                                  ran.fetch_add(1);
                                  if (begin == 1234) throw std::runtime_error("item 1234 failed");
                              }),
                 std::runtime_error);
    EXPECT_GE(ran.load(), 1);
    // The pool still works afterwards.
    EXPECT_EQ(run_counts(999, 2, 4), std::vector<int>(999, 1));
}

} // namespace
} // namespace gpucore::cpu::test

// SPDX-License-Identifier: Apache-2.0
// The CPU backend's thread pool: every item runs exactly once at any thread count and grain, jobs
// of several threads at once do not mix, a job returns only once its helpers have left it (whether
// its caller and workers poll or sleep meanwhile), and an exception in one item reaches the caller.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cpu_thread_pool.hpp"

namespace gpucore::cpu::test {
namespace {

// Lets jobs use more threads than this machine has cores (a 2-core CI machine would cap them at 2),
// for the duration of a test.
struct MaxThreadsForTest {
    explicit MaxThreadsForTest(int threads) { set_max_threads(threads); }
    ~MaxThreadsForTest() { set_max_threads(0); }
};

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
    const MaxThreadsForTest up_to(8);
    for (const std::size_t count : {1u, 2u, 7u, 1000u, 100003u}) {
        for (const std::size_t grain : {1u, 3u, 64u}) {
            for (const int threads : {1, 2, 5, 8}) {
                EXPECT_EQ(run_counts(count, grain, threads), std::vector<int>(count, 1))
                    << count << " items, grain " << grain << ", " << threads << " threads";
            }
        }
    }
    EXPECT_TRUE(run_counts(0, 1, 4).empty());
}

// Each grab starts on a multiple of the grain and holds a whole grain (the last one the rest), at
// every thread count: the kernels rely on it to give every thread whole blocks.
TEST(CpuThreadPool, GrabsAreWholeGrainsFromTheStart) {
    const MaxThreadsForTest up_to(8);
    for (const std::size_t count : {2u, 9u, 1000u, 4099u}) {
        for (const std::size_t grain : {1u, 4u, 37u}) {
            for (const int threads : {2, 3, 8}) {
                std::atomic<int> wrong{0};
                parallel_for(count, grain, threads, [&](std::size_t begin, std::size_t end) {
                    if (begin % grain != 0 || end != std::min(count, begin + grain)) wrong.fetch_add(1);
                });
                EXPECT_EQ(wrong.load(), 0) << count << " items, grain " << grain << ", " << threads << " threads";
            }
        }
    }
}

// A job asks for particular workers; when they are busy (here: each inside an item of an outer job
// that waits for the inner one), the inner job must still finish, run by whoever is free.
TEST(CpuThreadPool, AJobFinishesWhenItsWorkersAreBusy) {
    const MaxThreadsForTest up_to(8);
    std::atomic<int> wrong{0};
    parallel_for(4, 1, 4, [&](std::size_t, std::size_t) {
        if (run_counts(3001, 5, 8) != std::vector<int>(3001, 1)) wrong.fetch_add(1);
    });
    EXPECT_EQ(wrong.load(), 0);
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

// Gaps between jobs shorter and longer than the workers' poll before they sleep (cpu_poll.hpp), and
// items that keep a helper busy long after the caller ran out of items: every job must still see
// each item done once when parallel_for returns, and none may hang.
TEST(CpuThreadPool, JobsAfterShortAndLongGapsFinishBeforeTheyReturn) {
    using namespace std::chrono_literals;
    const std::chrono::microseconds gaps[] = {0us, 5us, 40us, 120us, 2000us};
    for (int round = 0; round < 40; ++round) {
        std::this_thread::sleep_for(gaps[round % 5]);
        const std::size_t count = 8 + static_cast<std::size_t>(round % 7);
        std::vector<std::atomic<int>> seen(count);
        const std::size_t slow = static_cast<std::size_t>(round) % count;
        parallel_for(count, 1, 4, [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) {
                if (i == slow) std::this_thread::sleep_for(round % 2 == 0 ? 200us : 3ms);
                seen[i].fetch_add(1, std::memory_order_relaxed);
            }
        });
        for (std::size_t i = 0; i < count; ++i)
            ASSERT_EQ(seen[i].load(std::memory_order_relaxed), 1) << "round " << round << ", item " << i;
    }
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

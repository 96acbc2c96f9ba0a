// SPDX-License-Identifier: Apache-2.0
// The runtime's start (plugin discovery, loading, backend init) raced from many threads through
// every public entry point at once, in a process where nothing touched gpucore before. The loader
// suite races a child process on two entry points and counts discovery log lines; this one runs
// in-process (so ThreadSanitizer sees it), on all entry points, and checks that every thread got
// the same runtime: Devices compare equal only when they point at the same backend object.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "stress_support.hpp"

namespace gpucore::stress {
namespace {

struct Seen {
    std::size_t devices = 0, backends = 0, candidates = 0;
    Device cpu, automatic;
    bool ran_exactly = false;
};

TEST(RuntimeStart, RacedFromManyThreadsThroughEveryEntryPointGivesOneRuntime) {
    constexpr int kThreads = 24;
    std::vector<Seen> seen(kThreads);
    FailureLog log;
    run_together(kThreads, [&](int t) {
        Seen& s = seen[static_cast<std::size_t>(t)];
        switch (t % 6) { // the first call of each thread differs; then each reads everything
        case 0: s.devices = devices().size(); break;
        case 1: s.backends = backends().size(); break;
        case 2: s.candidates = plugin_candidates().size(); break;
        case 3: s.cpu = select_device("cpu"); break;
        case 4: s.automatic = select_device("auto"); break;
        default: {
            Stream stream(select_device("cpu:0"));
            Buffer<std::uint32_t> a(stream.device(), 1000), c(stream.device(), 1000);
            a.fill(static_cast<std::uint32_t>(t));
            vector_add(stream, a, a, c);
            stream.synchronize();
            s.ran_exactly = c.to_vector() == std::vector<std::uint32_t>(1000, 2u * static_cast<std::uint32_t>(t));
            if (!s.ran_exactly) log.add("thread " + std::to_string(t) + ": vector_add was wrong");
        }
        }
        s.devices = devices().size();
        s.backends = backends().size();
        s.candidates = plugin_candidates().size();
        s.cpu = select_device("cpu");
        s.automatic = select_device("auto");
    }, log);
    log.report();
    const Seen& first = seen[0];
    EXPECT_GE(first.devices, 1u);
    for (int t = 1; t < kThreads; ++t) {
        const Seen& s = seen[static_cast<std::size_t>(t)];
        EXPECT_EQ(s.devices, first.devices) << "thread " << t;
        EXPECT_EQ(s.backends, first.backends) << "thread " << t;
        EXPECT_EQ(s.candidates, first.candidates) << "thread " << t;
        EXPECT_TRUE(s.cpu == first.cpu) << "thread " << t << " saw another runtime's cpu backend";
        EXPECT_TRUE(s.automatic == first.automatic) << "thread " << t;
    }
    int ran = 0;
    for (const Seen& s : seen) ran += s.ran_exactly ? 1 : 0;
    EXPECT_EQ(ran, kThreads / 6);
}

} // namespace
} // namespace gpucore::stress

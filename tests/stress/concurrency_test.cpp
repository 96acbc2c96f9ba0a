// SPDX-License-Identifier: Apache-2.0
// Concurrency on every device: 8 threads each with their own streams running every operation and
// dtype with exact results; one stream shared by several enqueuing threads; events recorded on one
// thread while others query and wait on them; blocking reads while other threads create and
// destroy busy streams. Run under ThreadSanitizer by tools/ci_sanitizers.sh.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "exact_values.hpp"
#include "op_round.hpp"
#include "stress_support.hpp"

namespace gpucore::stress {
namespace {

constexpr int kThreads = 8;
constexpr int kRoundsPerThread = 3;

class Concurrency : public testing::TestWithParam<Device> {};

// A read-only buffer every thread uses as an input at the same time.
template <class T>
struct SharedInput {
    explicit SharedInput(const Device& device, std::uint64_t seed) {
        std::mt19937_64 rng(seed);
        host = exact_inputs<T>(rng, 4099, ReduceOp::max);
        buffer = Buffer<T>(device, host.size());
        buffer.copy_from_host(host);
    }
    std::vector<T> host;
    Buffer<T> buffer;
};

template <class T>
void run_rounds(const Device& device, Stream& first, Stream& second, Event& handoff,
                const SharedInput<T>& shared, std::uint64_t seed, FailureLog& log, const std::string& who) {
    OpRound<T> round(device, seed);
    round.enqueue(first, second, handoff, shared.buffer, shared.host);
    first.synchronize();
    second.synchronize();
    round.verify(log, who);
}

TEST_P(Concurrency, EightThreadsWithOwnStreamsRunEveryOpExactly) {
    const Device device = GetParam();
    const SharedInput<float> shared_f32(device, 1);
    const SharedInput<double> shared_f64(device, 2);
    const SharedInput<std::int32_t> shared_i32(device, 3);
    const SharedInput<std::uint32_t> shared_u32(device, 4);
    FailureLog log;
    std::atomic<int> rounds_done{0};
    run_together(kThreads, [&](int t) {
        Stream first(device), second(device);
        Event handoff(device);
        for (int r = 0; r < kRoundsPerThread; ++r) {
            const std::uint64_t seed = 1000u * static_cast<std::uint64_t>(t) + static_cast<std::uint64_t>(r);
            const std::string who = "thread " + std::to_string(t) + " round " + std::to_string(r);
            run_rounds(device, first, second, handoff, shared_f32, seed, log, who);
            run_rounds(device, first, second, handoff, shared_f64, seed, log, who);
            run_rounds(device, first, second, handoff, shared_i32, seed, log, who);
            run_rounds(device, first, second, handoff, shared_u32, seed, log, who);
            rounds_done.fetch_add(1);
        }
    }, log);
    log.report();
    EXPECT_EQ(rounds_done.load(), kThreads * kRoundsPerThread);
}

// Several threads enqueue on ONE stream. Each thread's chain x <- x + 1 (with a reduce after every
// step) only gives the expected values if the stream keeps each thread's own order; each waits on
// its own event, not on the stream. Another thread queries and synchronizes the stream meanwhile.
TEST_P(Concurrency, OneStreamSharedByEnqueuingThreadsKeepsEachThreadsOrder) {
    const Device device = GetParam();
    constexpr int kWriters = 6;
    constexpr int kSteps = 40;
    constexpr std::size_t n = 1031;
    Stream shared(device);
    FailureLog log;
    std::atomic<int> writers_left{kWriters};
    run_together(kWriters + 1, [&](int t) {
        if (t == kWriters) { // the observer
            while (writers_left.load() > 0) {
                (void)shared.query();
                shared.synchronize();
            }
            return;
        }
        Buffer<std::uint32_t> x(device, n), one(device, n), total(device, 1);
        Event done(device);
        one.fill_async(shared, 1u);
        x.fill_async(shared, static_cast<std::uint32_t>(t) * 1000u);
        for (int k = 0; k < kSteps; ++k) {
            vector_add(shared, x, one, x);
            total.fill_async(shared, poison<std::uint32_t>());
            reduce(shared, x, total, ReduceOp::sum);
            std::uint32_t value = poison<std::uint32_t>();
            total.copy_to_host_async(shared, &value, 1);
            done.record(shared);
            done.synchronize();
            const std::uint32_t want = static_cast<std::uint32_t>(n) * (static_cast<std::uint32_t>(t) * 1000u +
                                                                          static_cast<std::uint32_t>(k + 1));
            if (value != want) {
                log.add("writer " + std::to_string(t) + " step " + std::to_string(k) + ": sum " +
                        std::to_string(value) + ", want " + std::to_string(want));
            }
        }
        std::vector<std::uint32_t> final_x(n, poison<std::uint32_t>());
        x.copy_to_host_async(shared, final_x.data(), final_x.size());
        done.record(shared);
        done.synchronize();
        const std::vector<std::uint32_t> want(n, static_cast<std::uint32_t>(t) * 1000u + kSteps);
        if (first_mismatch(final_x, want) >= 0) log.add("writer " + std::to_string(t) + ": final x is wrong");
        writers_left.fetch_sub(1);
    }, log);
    shared.synchronize();
    log.report();
}

// One thread keeps re-recording an event behind new work; others query it and wait on it, and make
// their own streams wait for it. Allowed by stream.hpp: every waiter sees some record, none hangs.
TEST_P(Concurrency, EventRecordedWhileOtherThreadsQueryAndWaitOnIt) {
    const Device device = GetParam();
    constexpr int kRecords = 200;
    constexpr int kWaiters = 3;
    constexpr std::size_t n = 2053;
    Event event(device);
    std::atomic<bool> recording{true};
    FailureLog log;
    run_together(kWaiters + 1, [&](int t) {
        if (t == 0) { // the recorder
            Stream stream(device);
            Buffer<std::uint32_t> x(device, n), one(device, n);
            x.fill_async(stream, 0u);
            one.fill_async(stream, 1u);
            for (int k = 0; k < kRecords; ++k) {
                vector_add(stream, x, one, x);
                event.record(stream);
            }
            stream.synchronize();
            recording.store(false);
            if (x.to_vector() != std::vector<std::uint32_t>(n, kRecords)) log.add("recorder: x is wrong");
            return;
        }
        Stream own(device);
        Buffer<std::uint32_t> y(device, n), one(device, n);
        y.fill_async(own, 0u);
        one.fill_async(own, 1u);
        std::uint64_t rounds = 0;
        while (recording.load()) {
            (void)event.query();
            event.synchronize();
            own.wait(event);
            vector_add(own, y, one, y);
            ++rounds;
        }
        own.synchronize();
        const std::vector<std::uint32_t> want(n, static_cast<std::uint32_t>(rounds));
        if (first_mismatch(y.to_vector(), want) >= 0) log.add("waiter " + std::to_string(t) + ": y is wrong");
    }, log);
    event.synchronize();
    EXPECT_TRUE(event.query());
    log.report();
}

// Blocking reads wait for the device's busy streams while other threads create streams, queue work
// on them, take their native handles and destroy them with the work still pending. Each reader
// queues a chain on its own stream and reads the result with a blocking call, never synchronizing
// the stream itself: the value is right only if the read waited for the chain.
TEST_P(Concurrency, BlockingReadsWhileOtherThreadsCreateAndDestroyBusyStreams) {
    const Device device = GetParam();
    constexpr int kReaders = 3;
    constexpr int kChurners = 3;
    constexpr int kRounds = 12;
    constexpr int kChain = 4;
    constexpr std::size_t n = 40009;
    FailureLog log;
    std::atomic<int> readers_left{kReaders};
    run_together(kReaders + kChurners, [&](int t) {
        if (t >= kReaders) { // a churner
            Buffer<std::uint32_t> z(device, n), one(device, n);
            one.fill(1u);
            while (readers_left.load() > 0) {
                Stream stream(device);
                if (t % 2 == 0) {
                    try {
                        (void)stream.native_handle();
                    } catch (const Error& e) {
                        if (e.code() != ErrorCode::not_supported) throw;
                    }
                }
                for (int k = 0; k < kChain; ++k) vector_add(stream, z, one, z);
            } // destroyed with its work possibly pending
            return;
        }
        Stream own(device);
        Buffer<std::uint32_t> x(device, n), one(device, n);
        one.fill(1u);
        for (int r = 0; r < kRounds; ++r) {
            x.fill(static_cast<std::uint32_t>(t) * 100u);
            for (int k = 0; k < kChain; ++k) vector_add(own, x, one, x);
            const std::vector<std::uint32_t> want(n, static_cast<std::uint32_t>(t) * 100u + kChain);
            if (first_mismatch(x.to_vector(), want) >= 0) {
                log.add("reader " + std::to_string(t) + " round " + std::to_string(r) + ": x is wrong");
            }
        }
        readers_left.fetch_sub(1);
    }, log);
    log.report();
}

INSTANTIATE_TEST_SUITE_P(Devices, Concurrency, testing::ValuesIn(devices_under_test()), DeviceName{});

} // namespace
} // namespace gpucore::stress

// SPDX-License-Identifier: Apache-2.0
// The blocking reduce (reduce(stream, in, op) returning the value) on the "counting" backend
// (counting_plugin.cpp): right values at awkward sizes, also from threads sharing a stream; the
// device memory its value passes through is kept by the stream from call to call (also after
// failed calls) rather than allocated and freed each time (a free synchronizes every stream of the
// device), and freed with the stream; and it waits for another stream's work once, not again on
// every call once that work is known to have finished.
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "api_test_support.hpp"
#include "forked_child.hpp"

namespace gpucore::test {
namespace {

// A function the counting plugin exports, from the plugin the core loaded (RTLD_NOLOAD finds it
// by file, whatever path the core used); nullptr, with a test failure, when it cannot be found.
template <class Function>
Function plugin_function(const char* name) {
    static void* plugin = dlopen(GPUCORE_COUNTING_PLUGIN_PATH, RTLD_NOW | RTLD_NOLOAD);
    void* found = plugin != nullptr ? dlsym(plugin, name) : nullptr;
    if (found == nullptr) ADD_FAILURE() << "the counting plugin is not loaded or lacks " << name;
    return reinterpret_cast<Function>(found);
}

// The plugin's allocations and frees so far (device and pinned host memory).
struct MemoryCounts {
    unsigned long long allocations = 0;
    unsigned long long frees = 0;
};

MemoryCounts counts() {
    using Counter = unsigned long long (*)();
    const auto allocations = plugin_function<Counter>("gpucore_counting_allocations");
    const auto frees = plugin_function<Counter>("gpucore_counting_frees");
    if (allocations == nullptr || frees == nullptr) return {};
    return {allocations(), frees()};
}

// Makes the plugin refuse pinned host memory while `refuse` is true.
void refuse_pinned(bool refuse) {
    const auto set = plugin_function<void (*)(int)>("gpucore_counting_refuse_pinned");
    if (set != nullptr) set(refuse ? 1 : 0);
}

// Events the plugin has recorded so far (the core records one on a stream to order work after it).
unsigned long long event_records() {
    const auto records = plugin_function<unsigned long long (*)()>("gpucore_counting_event_records");
    return records != nullptr ? records() : 0;
}

Device counting_device() { return select_device("counting"); }

// Sizes from 0 to a few thousand, odd ones included.
std::size_t awkward_size(std::mt19937& random) {
    static const std::size_t fixed[] = {0, 1, 2, 3, 31, 33, 1000, 4097};
    std::uniform_int_distribution<std::size_t> pick(0, 2 * std::size(fixed));
    const std::size_t i = pick(random);
    return i < std::size(fixed) ? fixed[i] : std::uniform_int_distribution<std::size_t>(1, 5000)(random);
}

// Wrapping sum of random i32 values, checked against a sum in uint32_t arithmetic.
void expect_i32_sums(Stream& stream, std::mt19937& random, int calls) {
    for (int call = 0; call < calls; ++call) {
        const std::size_t n = awkward_size(random);
        std::vector<std::int32_t> host(n);
        std::uint32_t want = 0;
        for (auto& v : host) {
            v = static_cast<std::int32_t>(random());
            want += static_cast<std::uint32_t>(v);
        }
        Buffer<std::int32_t> in(stream.device(), n);
        in.copy_from_host(host);
        EXPECT_EQ(static_cast<std::uint32_t>(reduce(stream, in, ReduceOp::sum)), want) << n << " elements";
    }
}

TEST(BlockingReduce, ValuesOfEveryWidthAreRight) {
    const Device device = counting_device();
    Stream stream(device);
    std::mt19937 random(4801);
    expect_i32_sums(stream, random, 20);
    for (int call = 0; call < 20; ++call) {
        const std::size_t n = awkward_size(random) + 1;
        std::vector<double> f64(n);
        std::vector<half> f16(n);
        double sum = 0;
        float largest = -std::numeric_limits<float>::infinity();
        std::uniform_int_distribution<int> small(-1000, 1000); // sums of these are exact in double
        for (std::size_t i = 0; i < n; ++i) {
            f64[i] = small(random);
            sum += f64[i];
            f16[i] = half(small(random));
            largest = std::max(largest, static_cast<float>(f16[i]));
        }
        Buffer<double> in64(device, n);
        in64.copy_from_host(f64);
        Buffer<half> in16(device, n);
        in16.copy_from_host(f16);
        EXPECT_EQ(reduce(stream, in64, ReduceOp::sum), sum) << n << " elements";
        EXPECT_EQ(static_cast<float>(reduce(stream, in16, ReduceOp::max)), largest) << n << " elements";
        // A view at an odd offset.
        EXPECT_EQ(reduce(stream, in64.view(n / 2, n - n / 2), ReduceOp::min),
                  *std::min_element(f64.begin() + static_cast<std::ptrdiff_t>(n / 2), f64.end()));
    }
}

TEST(BlockingReduce, ReusesItsResultMemory) {
    const Device device = counting_device();
    Stream stream(device);
    std::mt19937 random(4802);
    Buffer<std::int32_t> in(device, 1000);
    in.fill(3);
    (void)reduce(stream, in, ReduceOp::sum); // the first call may allocate
    const MemoryCounts before = counts();
    for (int call = 0; call < 50; ++call) EXPECT_EQ(reduce(stream, in, ReduceOp::sum), 3000);
    const MemoryCounts after = counts();
    EXPECT_EQ(after.allocations, before.allocations) << "allocations over 50 blocking reduces";
    EXPECT_EQ(after.frees, before.frees) << "frees over 50 blocking reduces";
}

TEST(BlockingReduce, ThreadsEachGetTheirOwnResult) {
    const Device device = counting_device();
    constexpr int kThreads = 8;
    const MemoryCounts before = counts();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&device, t] {
            Stream stream(device);
            std::mt19937 random(4900 + t);
            expect_i32_sums(stream, random, 40);
        });
    }
    for (auto& thread : threads) thread.join();
    const MemoryCounts after = counts();
    // Each call allocates its input buffer; at most one result cell (device and pinned memory) per
    // thread comes on top.
    EXPECT_LE(after.allocations - before.allocations, kThreads * 40 + 2 * kThreads);
}

TEST(BlockingReduce, ThreadsSharingAStreamEachGetTheirOwnResult) {
    const Device device = counting_device();
    Stream stream(device);
    constexpr int kThreads = 8;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&stream, t] {
            std::mt19937 random(5000 + t);
            expect_i32_sums(stream, random, 40);
        });
    }
    for (auto& thread : threads) thread.join();
}

TEST(BlockingReduce, TheStreamFreesItsResultMemory) {
    const Device device = counting_device();
    Buffer<float> in(device, 333);
    in.fill(2.0f);
    const MemoryCounts before = counts();
    for (int stream_number = 0; stream_number < 10; ++stream_number) {
        Stream stream(device);
        EXPECT_EQ(reduce(stream, in, ReduceOp::sum), 666.0f);
        EXPECT_EQ(reduce(stream, in, ReduceOp::max), 2.0f);
    }
    const MemoryCounts after = counts();
    EXPECT_EQ(after.allocations - before.allocations, after.frees - before.frees)
        << "memory left behind by 10 destroyed streams";
    EXPECT_LE(after.allocations - before.allocations, 20u) << "more than one cell (device and pinned memory) per stream";
}

// The pinned memory only saves time: without it the value is still right.
TEST(BlockingReduce, WorksWithoutPinnedMemory) {
    const Device device = counting_device();
    Buffer<std::uint32_t> in(device, 4099);
    in.fill(3u);
    refuse_pinned(true);
    {
        Stream stream(device);
        EXPECT_EQ(reduce(stream, in, ReduceOp::sum), 3u * 4099u);
        EXPECT_EQ(reduce(stream, in.view(1, 7), ReduceOp::sum), 21u);
    }
    refuse_pinned(false);
}

TEST(BlockingReduce, FailedCallsLeaveNothingBehind) {
    const Device device = counting_device();
    Stream stream(device);
    Buffer<float> in(device, 100);
    in.fill(0.5f);
    const auto released = [&] {
        Buffer<float> gone(device, 10);
        return gone.view(0, 10);
    }();
    Buffer<float> on_cpu(cpu_device(), 10);
    const MemoryCounts before = counts();
    for (int call = 0; call < 20; ++call) {
        expect_error([&] { (void)reduce(stream, released, ReduceOp::sum); }, ErrorCode::invalid_argument, "reduce",
                     "released");
        expect_error([&] { (void)reduce(stream, on_cpu, ReduceOp::sum); }, ErrorCode::invalid_argument, "reduce",
                     "cpu");
        EXPECT_EQ(reduce(stream, in, ReduceOp::sum), 50.0f);
    }
    const MemoryCounts after = counts();
    EXPECT_LE(after.allocations - after.frees, before.allocations - before.frees + 2)
        << "memory still held after failed blocking reduces";
}

// Work on another stream is waited for by the next blocking reduce (it reads what that work wrote),
// and only by that one: once a blocking call or the stream's synchronize has seen it finish, later
// blocking reduces do not order themselves after it again (an event record and a wait per call and
// per stream, a thread wake-up on the cpu backend).
TEST(BlockingReduce, AnotherStreamsFinishedWorkIsWaitedForOnce) {
    const Device device = counting_device();
    Stream producer(device);
    Stream consumer(device);
    Buffer<std::int32_t> ones(device, 1001), total(device, 1001);
    ones.fill(1);
    total.fill(0);
    for (int round = 1; round <= 3; ++round) {
        vector_add(producer, total, ones, total); // every element becomes `round`, on the producer
        if (round == 2) producer.synchronize();
        const unsigned long long before = event_records();
        for (int call = 0; call < 20; ++call) EXPECT_EQ(reduce(consumer, total, ReduceOp::sum), 1001 * round);
        // Rounds 1 and 3: the first call waits for the producer's new work (one event), the others
        // know it finished. Round 2: the producer's synchronize saw it finish.
        EXPECT_EQ(event_records() - before, round == 2 ? 0u : 1u)
            << "events recorded over 20 blocking reduces after one piece of work on another stream, round " << round;
    }
}

// A fork() child reduces with its own memory: the parent's stream and its cell are not the child's.
TEST(BlockingReduce, ForkChildGetsRightValues) {
    const Device device = counting_device();
    Stream stream(device);
    Buffer<std::int32_t> in(device, 77);
    in.fill(2);
    ASSERT_EQ(reduce(stream, in, ReduceOp::sum), 154); // the stream now holds its cell
    expect_passed(run_in_child(60, [] {
        const Device child_device = counting_device();
        Stream child_stream(child_device);
        Buffer<std::int32_t> child_in(child_device, 1001);
        child_in.fill(5);
        return reduce(child_stream, child_in, ReduceOp::sum) == 5005 ? kChildPassed : 1;
    }));
    EXPECT_EQ(reduce(stream, in, ReduceOp::sum), 154);
}

} // namespace
} // namespace gpucore::test

int main(int argc, char** argv) {
    ::setenv("GPUCORE_PLUGIN_PATH", GPUCORE_COUNTING_PLUGIN_DIR, 1);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

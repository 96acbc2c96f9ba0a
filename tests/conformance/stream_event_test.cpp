// SPDX-License-Identifier: Apache-2.0
// Streams and events on every device: in-order execution, query, synchronize, destruction with
// pending work, event record / synchronize / query / elapsed time, cross-stream waits, and many
// streams in flight at once. Exact u32 arithmetic throughout, so any reordering shows in a value.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>

#include "cases.hpp"
#include "compare.hpp"
#include "conformance_devices.hpp"
#include "device_runs.hpp"
#include "random_inputs.hpp"

namespace conformance {
namespace {

using u32 = std::uint32_t;

class StreamsEvents : public testing::TestWithParam<DeviceCase> {};

// Large enough that a chain of ops takes visible time on every backend (milliseconds on a GPU,
// tens of milliseconds on the CPU), so an ignored dependency would let a reader overtake. The CPU
// executions of GPU kernels take that long with an eighth of it.
std::size_t long_length(const gpucore::Device& device) {
    return conformance::is_cpu_execution_of_gpu_kernels(device) ? std::size_t{1} << 20 : std::size_t{1} << 23;
}
constexpr int kChainLength = 8;

// x += ones, kChainLength times, on `stream`: afterwards every element is start + kChainLength.
void enqueue_long_chain(gpucore::Stream& stream, gpucore::Buffer<u32>& x,
                        const gpucore::Buffer<u32>& ones) {
    for (int k = 0; k < kChainLength; ++k) gpucore::vector_add(stream, x, ones, x);
}

TEST_P(StreamsEvents, WorkRunsInEnqueueOrder) {
    const gpucore::Device& device = GetParam().device;
    CONFORMANCE_SEEDED_RNG(rng);
    const std::size_t n = 1000003;
    const auto a = random_values<u32>(rng, Pattern::general, n, n);
    gpucore::Stream stream(device);
    gpucore::Buffer<u32> x(device, n), y(device, n), z(device, n);
    x.copy_from_host_async(stream, a.data(), a.size());
    y.fill_async(stream, 3u);
    gpucore::vector_add(stream, x, y, z); // z = a + 3
    y.copy_from_async(stream, z);         // y = a + 3
    gpucore::vector_add(stream, y, z, x); // x = 2a + 6
    z.fill_async(stream, 7u);             // z = 7
    gpucore::vector_add(stream, x, z, y); // y = 2a + 13
    auto total = upload(device, std::vector<u32>(1, 0xDEADBEEFu));
    gpucore::reduce(stream, y, total, gpucore::ReduceOp::sum);

    std::vector<u32> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = 2u * a[i] + 13u;
    const auto want_total = static_cast<u32>(reference::reduce(want.data(), n, gpucore::ReduceOp::sum).value);
    std::vector<u32> got(n, 0xDEADBEEFu);
    u32 got_total = 0xDEADBEEFu;
    y.copy_to_host_async(stream, got.data(), got.size());
    total.copy_to_host_async(stream, &got_total, 1);
    stream.synchronize();
    EXPECT_TRUE(elements_match(got, want, 0xDEADBEEFu));
    EXPECT_EQ(got_total, want_total);
    EXPECT_TRUE(stream.query()) << "query after synchronize";
}

TEST_P(StreamsEvents, QueryBecomesTrueWithoutSynchronize) {
    const gpucore::Device& device = GetParam().device;
    gpucore::Stream stream(device);
    EXPECT_TRUE(stream.query()) << "a new stream has no pending work";
    gpucore::Buffer<u32> x(device, long_length(device)), ones(device, long_length(device));
    x.fill_async(stream, 0u);
    ones.fill_async(stream, 1u);
    enqueue_long_chain(stream, x, ones);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!stream.query()) {
        ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "stream never reported idle";
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    // query() said done: a blocking read (not ordered with `stream`) must see the finished chain.
    EXPECT_TRUE(elements_match(x.to_vector(), std::vector<u32>(long_length(device), u32{kChainLength}),
                               0xDEADBEEFu));
}

TEST_P(StreamsEvents, DestroyingStreamFinishesPendingWork) {
    const gpucore::Device& device = GetParam().device;
    std::vector<u32> out(long_length(device), 0xDEADBEEFu);
    {
        gpucore::Stream stream(device);
        gpucore::Buffer<u32> x(device, long_length(device)), ones(device, long_length(device));
        x.fill_async(stream, 5u);
        ones.fill_async(stream, 1u);
        enqueue_long_chain(stream, x, ones);
        x.copy_to_host_async(stream, out.data(), out.size());
        // Buffers and stream leave scope with the work possibly pending: the stream's destructor
        // waits for it, and the buffers are freed only after the device is done with them.
    }
    EXPECT_TRUE(elements_match(out, std::vector<u32>(long_length(device), 5u + kChainLength), 0xDEADBEEFu));
}

TEST_P(StreamsEvents, EventRecordSynchronizeQuery) {
    const gpucore::Device& device = GetParam().device;
    gpucore::Event event(device);
    EXPECT_TRUE(event.query()) << "an event never recorded counts as complete";
    gpucore::Stream stream(device);
    gpucore::Buffer<u32> x(device, long_length(device)), ones(device, long_length(device));
    x.fill_async(stream, 0u);
    ones.fill_async(stream, 1u);
    enqueue_long_chain(stream, x, ones);
    event.record(stream);
    event.synchronize();
    EXPECT_TRUE(event.query()) << "query after synchronize";
    // The event covered the chain: a blocking read (not ordered with `stream`) sees it complete.
    const std::vector<u32> got = x.to_vector();
    EXPECT_TRUE(elements_match(got, std::vector<u32>(long_length(device), u32{kChainLength}), 0xDEADBEEFu));
    stream.synchronize();
}

TEST_P(StreamsEvents, ElapsedTimesAreNonNegativeAndOrdered) {
    const gpucore::Device& device = GetParam().device;
    gpucore::Stream stream(device);
    gpucore::Event e0(device), e1(device), e2(device), unrecorded(device);
    gpucore::Buffer<u32> x(device, long_length(device)), ones(device, long_length(device));
    x.fill_async(stream, 0u);
    ones.fill_async(stream, 1u);
    e0.record(stream);
    enqueue_long_chain(stream, x, ones);
    e1.record(stream);
    enqueue_long_chain(stream, x, ones);
    e2.record(stream);
    e2.synchronize();
    EXPECT_TRUE(e0.query());
    EXPECT_TRUE(e1.query());
    const double t01 = gpucore::elapsed_ms(e0, e1);
    const double t12 = gpucore::elapsed_ms(e1, e2);
    const double t02 = gpucore::elapsed_ms(e0, e2);
    EXPECT_GT(t01, 0.0) << "a chain of " << kChainLength << " vector_adds took no time";
    EXPECT_GE(t12, 0.0);
    EXPECT_GE(t02, t01);
    EXPECT_GE(t02, t12);
    // Timestamps are additive up to the timer's resolution (CUDA documents ~0.5 us).
    EXPECT_NEAR(t02, t01 + t12, 0.01);
    EXPECT_NEAR(gpucore::elapsed_ms(e1, e0), -t01, 0.01) << "end before start gives a negative time";
    EXPECT_THROW(gpucore::elapsed_ms(e0, unrecorded), gpucore::Error)
        << "elapsed time to an event never recorded";
    EXPECT_EQ(gpucore::reduce(stream, x, gpucore::ReduceOp::max), u32{2 * kChainLength});
}

// Stream B waits on an event that stream A records after a long chain: B's reads must see A's
// final values, never the poison or a partial sum.
TEST_P(StreamsEvents, CrossStreamWaitSeesProducerOutput) {
    const gpucore::Device& device = GetParam().device;
    gpucore::Stream producer(device), consumer(device);
    gpucore::Event produced(device);
    gpucore::Buffer<u32> x(device, long_length(device)), ones(device, long_length(device));
    x.fill(0xDEADBEEFu);
    ones.fill(1u);
    x.fill_async(producer, 0u);
    enqueue_long_chain(producer, x, ones);
    produced.record(producer);
    consumer.wait(produced);
    gpucore::Buffer<u32> lo(device, 1), hi(device, 1);
    gpucore::reduce(consumer, x, lo, gpucore::ReduceOp::min);
    gpucore::reduce(consumer, x, hi, gpucore::ReduceOp::max);
    std::vector<u32> copy(long_length(device), 0xDEADBEEFu);
    x.copy_to_host_async(consumer, copy.data(), copy.size());
    u32 got_lo = 0, got_hi = 0;
    lo.copy_to_host_async(consumer, &got_lo, 1);
    hi.copy_to_host_async(consumer, &got_hi, 1);
    consumer.synchronize();
    EXPECT_EQ(got_lo, u32{kChainLength});
    EXPECT_EQ(got_hi, u32{kChainLength});
    EXPECT_TRUE(elements_match(copy, std::vector<u32>(long_length(device), u32{kChainLength}), 0xDEADBEEFu));
    producer.synchronize();
}

// 32 streams, each with its own inputs and chain, all enqueued before any is synchronized.
TEST_P(StreamsEvents, ManyStreamsInFlight) {
    const gpucore::Device& device = GetParam().device;
    CONFORMANCE_SEEDED_RNG(rng);
    constexpr int kStreams = 32;
    const std::size_t n = 65537;
    struct Lane {
        std::unique_ptr<gpucore::Stream> stream;
        std::vector<u32> a, b, out;
        u32 total = 0xDEADBEEFu;
        std::unique_ptr<gpucore::Buffer<u32>> da, db, dc, dtotal;
    };
    std::vector<Lane> lanes(kStreams);
    for (auto& lane : lanes) {
        lane.stream = std::make_unique<gpucore::Stream>(device);
        lane.a = random_values<u32>(rng, Pattern::general, n, n);
        lane.b = random_values<u32>(rng, Pattern::general, n, n);
        lane.out.assign(n, 0xDEADBEEFu);
        lane.da = std::make_unique<gpucore::Buffer<u32>>(device, n);
        lane.db = std::make_unique<gpucore::Buffer<u32>>(device, n);
        lane.dc = std::make_unique<gpucore::Buffer<u32>>(device, n);
        lane.dtotal = std::make_unique<gpucore::Buffer<u32>>(device, 1);
    }
    for (auto& lane : lanes) {
        auto& s = *lane.stream;
        lane.da->copy_from_host_async(s, lane.a.data(), n);
        lane.db->copy_from_host_async(s, lane.b.data(), n);
        gpucore::vector_add(s, *lane.da, *lane.db, *lane.dc);
        gpucore::vector_add(s, *lane.dc, *lane.db, *lane.dc); // a + 2b
        gpucore::reduce(s, *lane.dc, *lane.dtotal, gpucore::ReduceOp::sum);
        lane.dc->copy_to_host_async(s, lane.out.data(), n);
        lane.dtotal->copy_to_host_async(s, &lane.total, 1);
    }
    for (auto& lane : lanes) lane.stream->synchronize();
    for (int k = 0; k < kStreams; ++k) {
        SCOPED_TRACE("stream " + std::to_string(k));
        const Lane& lane = lanes[static_cast<std::size_t>(k)];
        const auto want = reference::vector_add(reference::vector_add(lane.a, lane.b), lane.b);
        EXPECT_TRUE(elements_match(lane.out, want, 0xDEADBEEFu));
        EXPECT_EQ(lane.total, static_cast<u32>(reference::reduce(want.data(), n, gpucore::ReduceOp::sum).value));
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, StreamsEvents, testing::ValuesIn(device_cases()), CaseName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(StreamsEvents);

} // namespace
} // namespace conformance

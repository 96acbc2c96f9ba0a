// SPDX-License-Identifier: Apache-2.0
// Blocking calls on every device see all work enqueued before them on any stream of the device,
// as a legacy default stream would: to_vector, copy_to_host, copy_from, copy_from_host, fill and
// the value-returning reduce, each issued while user streams are still busy (nothing synchronized).
// The work is long enough that a blocking call that does not wait overtakes it; every output is
// poisoned first, so an overtaking read shows as the poison.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "cases.hpp"
#include "compare.hpp"
#include "conformance_devices.hpp"
#include "device_runs.hpp"
#include "random_inputs.hpp"

namespace conformance {
namespace {

using u32 = std::uint32_t;

class BlockingOrder : public testing::TestWithParam<DeviceCase> {};

// The CPU executions of GPU kernels are orders of magnitude slower: a sixteenth of the work
// still keeps them busy far longer than a blocking copy takes.
std::size_t scaled(const gpucore::Device& device, std::size_t elements) {
    return is_cpu_execution_of_gpu_kernels(device) ? elements / 16 : elements;
}

struct Shape2 {
    std::size_t rows, cols;
};

// The pipeline on several user streams at once: colsum = reduce_rows(transpose(in)), the
// column sums of `in`, read back with the blocking calls while the streams may still be running.
template <class T>
void check_column_sums(const gpucore::Device& device, Rng& rng) {
    SCOPED_TRACE(std::string("dtype ") + gpucore::to_string(gpucore::dtype_of<T>()));
    const std::vector<Shape2> shapes = {{scaled(device, 1537), 1031}, {3, scaled(device, 400009)},
                                        {scaled(device, 70001), 9}};
    struct Lane {
        std::unique_ptr<gpucore::Stream> stream;
        std::vector<T> in;
        std::vector<reference::Expected> want;
        T poison{};
        std::unique_ptr<gpucore::Buffer<T>> din, transposed, colsum;
    };
    std::vector<Lane> lanes(shapes.size());
    for (std::size_t k = 0; k < shapes.size(); ++k) {
        const Shape2 s = shapes[k];
        Lane& lane = lanes[k];
        // Small-integer floats: every column sum is exact in any order.
        lane.in = random_values<T>(rng, Pattern::exact_sum, s.rows * s.cols, s.rows);
        lane.want = reference::exactly(reference::reduce_rows(reference::transpose(lane.in, s.rows, s.cols),
                                                              s.cols, s.rows, gpucore::ReduceOp::sum));
        lane.poison = sentinel_avoiding<T>(values_of(lane.want));
        lane.stream = std::make_unique<gpucore::Stream>(device);
        lane.din = std::make_unique<gpucore::Buffer<T>>(device, lane.in.size());
        lane.transposed = std::make_unique<gpucore::Buffer<T>>(device, lane.in.size());
        lane.colsum = std::make_unique<gpucore::Buffer<T>>(device, s.cols);
        lane.din->copy_from_host(lane.in);
        lane.transposed->fill(lane.poison);
        lane.colsum->fill(lane.poison);
    }
    for (std::size_t k = 0; k < shapes.size(); ++k) {
        const Shape2 s = shapes[k];
        Lane& lane = lanes[k];
        gpucore::transpose(*lane.stream, *lane.din, *lane.transposed, s.rows, s.cols);
        gpucore::reduce_rows(*lane.stream, *lane.transposed, *lane.colsum, s.cols, s.rows, gpucore::ReduceOp::sum);
    }
    // No stream is synchronized before these reads.
    for (std::size_t k = 0; k < shapes.size(); ++k) {
        SCOPED_TRACE("lane " + std::to_string(k) + ": " + std::to_string(shapes[k].rows) + " x " +
                     std::to_string(shapes[k].cols));
        Lane& lane = lanes[k];
        EXPECT_TRUE(elements_match(lane.colsum->to_vector(), lane.want, lane.poison)) << "to_vector";
        gpucore::Buffer<T> copied(device, lane.colsum->size());
        copied.fill(lane.poison);
        copied.copy_from(*lane.colsum);
        std::vector<T> host(copied.size(), lane.poison);
        copied.copy_to_host(host.data(), host.size());
        EXPECT_TRUE(elements_match(host, lane.want, lane.poison)) << "copy_from, then copy_to_host";
    }
    for (Lane& lane : lanes) lane.stream->synchronize();
}

TEST_P(BlockingOrder, ReadsSeeColumnSumsQueuedOnSeveralStreams) {
    const gpucore::Device& device = GetParam().device;
    CONFORMANCE_SEEDED_RNG(rng);
    check_column_sums<float>(device, rng);
    check_column_sums<double>(device, rng);
    check_column_sums<std::int32_t>(device, rng);
    check_column_sums<u32>(device, rng);
}

// x += ones, `times` times, on `stream`.
void enqueue_chain(gpucore::Stream& stream, gpucore::Buffer<u32>& x, const gpucore::Buffer<u32>& ones,
                   int times) {
    for (int k = 0; k < times; ++k) gpucore::vector_add(stream, x, ones, x);
}

// A blocking write lands after queued writes of the same buffer, not before them (where the queued
// work would overwrite it).
TEST_P(BlockingOrder, BlockingWritesLandAfterQueuedWrites) {
    const gpucore::Device& device = GetParam().device;
    CONFORMANCE_SEEDED_RNG(rng);
    const std::size_t n = scaled(device, std::size_t{1} << 22);
    constexpr int kChain = 6;
    gpucore::Stream first(device), second(device);
    gpucore::Buffer<u32> x(device, n), y(device, n), ones(device, n);
    ones.fill(1u);
    x.fill(0u);
    y.fill(0u);
    enqueue_chain(first, x, ones, kChain);
    enqueue_chain(second, y, ones, kChain);
    x.fill(7u); // after first's chain
    const auto upload = random_values<u32>(rng, Pattern::general, n, n);
    y.copy_from_host(upload); // after second's chain
    EXPECT_TRUE(elements_match(x.to_vector(), std::vector<u32>(n, 7u), 0u)) << "fill";
    EXPECT_TRUE(elements_match(y.to_vector(), upload, 0u)) << "copy_from_host";

    // copy_from: the destination's queued writes come first, then the copy of the source's final
    // values (the source also written on another stream).
    enqueue_chain(first, x, ones, kChain);  // x = 7 + kChain
    enqueue_chain(second, y, ones, kChain); // y = upload + kChain
    y.copy_from(x);
    EXPECT_TRUE(elements_match(y.to_vector(), std::vector<u32>(n, 7u + kChain), 0u)) << "copy_from";
    first.synchronize();
    second.synchronize();
}

// The value-returning reduce runs on its stream, yet sees what other streams queued before it.
TEST_P(BlockingOrder, ValueReduceSeesWorkQueuedOnOtherStreams) {
    const gpucore::Device& device = GetParam().device;
    const std::size_t n = scaled(device, std::size_t{1} << 22);
    constexpr int kChain = 6;
    gpucore::Stream producer(device), consumer(device);
    gpucore::Buffer<u32> x(device, n), ones(device, n);
    ones.fill(1u);
    x.fill(0u);
    enqueue_chain(producer, x, ones, kChain);
    EXPECT_EQ(gpucore::reduce(consumer, x, gpucore::ReduceOp::min), u32{kChain});
    enqueue_chain(producer, x, ones, kChain);
    EXPECT_EQ(gpucore::reduce(consumer, x, gpucore::ReduceOp::sum), static_cast<u32>(n * 2 * kChain));
    producer.synchronize();
}

// Work a stream receives after a blocking call is ordered after it (the call has returned), and
// the ordering does not reorder a stream's own work.
TEST_P(BlockingOrder, WorkQueuedAfterABlockingCallSeesItsResult) {
    const gpucore::Device& device = GetParam().device;
    CONFORMANCE_SEEDED_RNG(rng);
    const std::size_t n = scaled(device, std::size_t{1} << 20) + 3;
    const auto a = random_values<u32>(rng, Pattern::general, n, n);
    const auto b = random_values<u32>(rng, Pattern::general, n, n);
    gpucore::Stream stream(device);
    gpucore::Buffer<u32> da(device, n), db(device, n), dc(device, n);
    da.copy_from_host(a);
    dc.fill(0xDEADBEEFu);
    gpucore::vector_add(stream, da, da, dc); // 2a, then overwritten below
    db.copy_from_host(b);                    // blocking
    gpucore::vector_add(stream, da, db, dc); // a + b
    std::vector<u32> got(n, 0xDEADBEEFu);
    dc.copy_to_host(got.data(), got.size());
    EXPECT_TRUE(elements_match(got, reference::vector_add(a, b), 0xDEADBEEFu));
    stream.synchronize();
}

INSTANTIATE_TEST_SUITE_P(Devices, BlockingOrder, testing::ValuesIn(device_cases()), CaseName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BlockingOrder);

} // namespace
} // namespace conformance

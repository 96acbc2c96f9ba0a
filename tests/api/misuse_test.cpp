// SPDX-License-Identifier: Apache-2.0
// Misuse of the public API: each case must be a gpucore::Error with the right code, naming the
// operation and the cause; never a crash, never silent.
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "api_test_support.hpp"

namespace gpucore::test {
namespace {

using ::testing::HasSubstr;
constexpr std::size_t size_max = std::numeric_limits<std::size_t>::max();

TEST(ErrorFormat, WhatReadsOperationLocationCauseAndCode) {
    const Error e(ErrorCode::invalid_argument, "vector_add", "cuda", 0, "buffer lengths differ (a: 10, b: 10, c: 9)");
    EXPECT_STREQ(e.what(), "vector_add on cuda:0: buffer lengths differ (a: 10, b: 10, c: 9) [invalid_argument]");
    const Error no_device(ErrorCode::backend_unavailable, "select_device", "", -1, "no backend");
    EXPECT_STREQ(no_device.what(), "select_device: no backend [backend_unavailable]");
    EXPECT_STREQ(to_string(ErrorCode::not_supported), "not_supported");
}

TEST(Misuse, VectorAddLengthMismatchGivesTheLengths) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<float> a(d, 10), b(d, 10), c(d, 9);
    const Error e = expect_error([&] { vector_add(s, a, b, c); }, ErrorCode::invalid_argument, "vector_add",
                                 "buffer lengths differ (a: 10, b: 10, c: 9)");
    EXPECT_EQ(e.backend(), "cpu");
    EXPECT_EQ(e.device(), 0);
    EXPECT_STREQ(e.what(), "vector_add on cpu:0: buffer lengths differ (a: 10, b: 10, c: 9) [invalid_argument]");
}

TEST(Misuse, BuffersOnAnotherDeviceThanTheStream) {
    const Device cpu = cpu_device();
    const Device tpl = template_device();
    Stream s(cpu);
    Buffer<float> a(cpu, 4), b(tpl, 4), c(cpu, 4);
    expect_error([&] { vector_add(s, a, b, c); }, ErrorCode::invalid_argument, "vector_add",
                 "buffer 'b' is on template:0 but the stream is on cpu:0");
    Buffer<float> out(cpu, 1);
    expect_error([&] { reduce(s, b, out, ReduceOp::sum); }, ErrorCode::invalid_argument, "reduce",
                 "buffer 'in' is on template:0");
}

TEST(Misuse, DeviceToDeviceCopyAcrossDevicesOfDifferentLength) {
    Buffer<int> a(cpu_device(), 4), b(template_device(), 5);
    expect_error([&] { a.copy_from(b); }, ErrorCode::invalid_argument, "Buffer::copy_from",
                 "buffer sizes differ (destination: 16 bytes, source: 20 bytes)");
}

TEST(Misuse, AsyncCopyOnAStreamOfAnotherDevice) {
    Stream s(template_device());
    Buffer<double> a(cpu_device(), 3);
    std::vector<double> host(3, 1.0);
    expect_error([&] { a.copy_from_host_async(s, host.data(), host.size()); }, ErrorCode::invalid_argument,
                 "Buffer::copy_from_host_async", "the buffer is on cpu:0 but the stream is on template:0");
}

TEST(Misuse, StreamAndEventOnDifferentDevices) {
    Stream s(cpu_device());
    Event e(template_device());
    expect_error([&] { s.wait(e); }, ErrorCode::invalid_argument, "Stream::wait",
                 "the stream is on cpu:0 but the event is on template:0");
    expect_error([&] { e.record(s); }, ErrorCode::invalid_argument, "Event::record",
                 "the event is on template:0 but the stream is on cpu:0");
    Event other(cpu_device());
    expect_error([&] { elapsed_ms(other, e); }, ErrorCode::invalid_argument, "elapsed_ms", "same device");
}

TEST(Misuse, CopyBetweenBuffersOfDifferentLength) {
    const Device d = cpu_device();
    Buffer<float> a(d, 5), b(d, 6);
    expect_error([&] { a.copy_from(b); }, ErrorCode::invalid_argument, "Buffer::copy_from",
                 "buffer sizes differ (destination: 20 bytes, source: 24 bytes)");
}

TEST(Misuse, TransposeRowsTimesColsOverflow) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<float> in(d, 4), out(d, 4);
    expect_error([&] { transpose(s, in, out, size_max / 2 + 1, 4); }, ErrorCode::invalid_argument, "transpose",
                 "rows * cols overflows size_t");
}

TEST(Misuse, ReduceRowsRowsTimesColsOverflow) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<int> in(d, 4), out(d, 4);
    expect_error([&] { reduce_rows(s, in, out, 4, size_max / 2, ReduceOp::sum); }, ErrorCode::invalid_argument, "reduce_rows",
                 "rows * cols overflows size_t (rows: 4, cols: " + std::to_string(size_max / 2) + ")");
}

TEST(Misuse, TransposeShapeMismatch) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<float> in(d, 12), out(d, 10);
    expect_error([&] { transpose(s, in, out, 3, 5); }, ErrorCode::invalid_argument, "transpose",
                 "in holds 12 elements but rows * cols = 3 * 5 = 15");
    expect_error([&] { transpose(s, in, out, 3, 4); }, ErrorCode::invalid_argument, "transpose",
                 "out holds 10 elements but rows * cols = 3 * 4 = 12");
}

TEST(Misuse, TransposeInPlace) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<float> m(d, 6);
    expect_error([&] { transpose(s, m, m, 2, 3); }, ErrorCode::invalid_argument, "transpose",
                 "in and out are the same buffer");
}

TEST(Misuse, ReduceIntoEmptyOutput) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<float> in(d, 8), out(d, 0);
    expect_error([&] { reduce(s, in, out, ReduceOp::max); }, ErrorCode::invalid_argument, "reduce",
                 "out is empty");
}

TEST(Misuse, ReduceRowsOutputLengthIsNotRows) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<std::uint32_t> in(d, 12), out(d, 4);
    expect_error([&] { reduce_rows(s, in, out, 3, 4, ReduceOp::sum); }, ErrorCode::invalid_argument,
                 "reduce_rows", "out holds 4 elements but there are 3 rows");
    expect_error([&] { reduce_rows(s, in, out, 4, 4, ReduceOp::sum); }, ErrorCode::invalid_argument,
                 "reduce_rows", "in holds 12 elements but rows * cols = 4 * 4 = 16");
}

TEST(Misuse, HostRangeShorterThanTheBuffer) {
    Buffer<float> b(cpu_device(), 10);
    std::vector<float> nine(9, 1.0f);
    expect_error([&] { b.copy_from_host(nine); }, ErrorCode::invalid_argument, "Buffer::copy_from_host",
                 "host range is shorter than the buffer (36 bytes < 40 bytes)");
    expect_error([&] { b.copy_to_host(nine.data(), nine.size()); }, ErrorCode::invalid_argument,
                 "Buffer::copy_to_host", "host range is shorter than the buffer (36 bytes < 40 bytes)");
    Stream s(cpu_device());
    expect_error([&] { b.copy_to_host_async(s, nine.data(), nine.size()); }, ErrorCode::invalid_argument,
                 "Buffer::copy_to_host_async", "host range is shorter");
}

TEST(Misuse, NullHostPointer) {
    Buffer<int> b(cpu_device(), 3);
    expect_error([&] { b.copy_from_host(nullptr, 3); }, ErrorCode::invalid_argument, "Buffer::copy_from_host",
                 "host pointer is null");
}

TEST(Misuse, NullDevice) {
    const Device none;
    EXPECT_FALSE(none.valid());
    EXPECT_EQ(none.to_string(), "<null device>");
    expect_error([&] { (void)none.backend_name(); }, ErrorCode::invalid_argument, "Device::backend_name",
                 "null device");
    expect_error([&] { (void)none.properties(); }, ErrorCode::invalid_argument, "Device::properties",
                 "null device");
    expect_error([&] { Stream s(none); }, ErrorCode::invalid_argument, "Stream::Stream", "null device");
    expect_error([&] { Event e(none); }, ErrorCode::invalid_argument, "Event::Event", "null device");
    expect_error([&] { Buffer<float> b(none, 4); }, ErrorCode::invalid_argument, "Buffer::Buffer", "null device");
}

TEST(Misuse, NullAndMovedFromBuffers) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<float> null_buffer;
    EXPECT_FALSE(null_buffer.valid());
    std::vector<float> host(4);
    expect_error([&] { null_buffer.copy_from_host(host); }, ErrorCode::invalid_argument, "Buffer::copy_from_host",
                 "null (default-constructed or moved-from) Buffer");

    Buffer<float> a(d, 4), b(d, 4), c(d, 4);
    Buffer<float> taken = std::move(a);
    EXPECT_FALSE(a.valid()); // NOLINT(bugprone-use-after-move): the point of the test
    EXPECT_TRUE(taken.valid());
    expect_error([&] { vector_add(s, a, b, c); }, ErrorCode::invalid_argument, "vector_add",
                 "buffer 'a' is a null");
    expect_error([&] { (void)a.to_vector(); }, ErrorCode::invalid_argument, "Buffer::copy_to_host", "null");
    expect_error([&] { a.fill(1.0f); }, ErrorCode::invalid_argument, "Buffer::fill", "null");
    expect_error([&] { c.copy_from(a); }, ErrorCode::invalid_argument, "Buffer::copy_from", "the source is a null");
}

TEST(Misuse, MovedFromStream) {
    Stream s(cpu_device());
    void* const native = s.native_handle();
    Stream t = std::move(s);
    EXPECT_FALSE(s.valid()); // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(t.native_handle(), native) << "the handle moves with the stream";
    expect_error([&] { (void)s.native_handle(); }, ErrorCode::invalid_argument, "Stream::native_handle",
                 "moved-from or null Stream");
    expect_error([&] { s.synchronize(); }, ErrorCode::invalid_argument, "Stream::synchronize",
                 "moved-from or null Stream");
    expect_error([&] { (void)s.query(); }, ErrorCode::invalid_argument, "Stream::query", "moved-from");
    expect_error([&] { (void)s.device(); }, ErrorCode::invalid_argument, "Stream::device", "moved-from");
    Buffer<int> a(cpu_device(), 2);
    expect_error([&] { vector_add(s, a, a, a); }, ErrorCode::invalid_argument, "vector_add", "moved-from");
    expect_error([&] { a.fill_async(s, 3); }, ErrorCode::invalid_argument, "Buffer::fill_async", "moved-from");
    Event e(cpu_device());
    expect_error([&] { e.record(s); }, ErrorCode::invalid_argument, "Event::record", "moved-from or null Stream");
    t.synchronize(); // the moved-to stream works
}

TEST(Misuse, MovedFromEvent) {
    Event e(cpu_device());
    Event f(std::move(e));
    Stream s(cpu_device());
    expect_error([&] { e.synchronize(); }, ErrorCode::invalid_argument, "Event::synchronize",
                 "moved-from or null Event");
    expect_error([&] { (void)e.query(); }, ErrorCode::invalid_argument, "Event::query", "moved-from");
    expect_error([&] { s.wait(e); }, ErrorCode::invalid_argument, "Stream::wait", "moved-from or null Event");
    expect_error([&] { (void)elapsed_ms(e, f); }, ErrorCode::invalid_argument, "elapsed_ms", "moved-from");
    f.record(s);
    f.synchronize();
    EXPECT_TRUE(f.query());
}

TEST(Misuse, ElapsedOnEventsNeverRecordedIsAnError) {
    Event a(cpu_device()), b(cpu_device());
    try {
        (void)elapsed_ms(a, b);
        ADD_FAILURE() << "elapsed_ms on unrecorded events did not throw";
    } catch (const Error& e) {
        EXPECT_EQ(e.operation(), "elapsed_ms");
        EXPECT_EQ(e.backend(), "cpu");
        EXPECT_FALSE(e.cause().empty());
    }
}

TEST(Misuse, ElementCountOverflowingSizeT) {
    expect_error([] { Buffer<double> b(cpu_device(), size_max / 4); }, ErrorCode::invalid_argument,
                 "Buffer::Buffer", "overflow size_t");
}

TEST(Misuse, AllocationLargerThanMemoryIsOutOfMemory) {
    expect_error([] { Buffer<std::uint32_t> b(cpu_device(), size_max / 8); }, ErrorCode::out_of_memory,
                 "Buffer::Buffer", "");
    Buffer<std::uint32_t> small(cpu_device(), 16); // and the backend still works afterwards
    small.fill(7u);
    EXPECT_EQ(small.to_vector(), std::vector<std::uint32_t>(16, 7u));
}

TEST(Misuse, UnsupportedMemoryKindIsNotSupported) {
    const Error e = expect_error([] { Buffer<float> b(template_device(), 8, MemoryKind::managed); },
                                 ErrorCode::not_supported, "Buffer::Buffer", "managed memory is not supported");
    EXPECT_EQ(e.backend(), "template");
    Buffer<float> pinned(template_device(), 8, MemoryKind::pinned_host); // supported there
    EXPECT_EQ(pinned.kind(), MemoryKind::pinned_host);
}

// ---- the things that must work, next to their misuse ----------------------------------------

TEST(Lifetime, ZeroLengthBuffersAllocateNothingAndOperationsStillWork) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<float> empty(d, 0), out(d, 1);
    EXPECT_TRUE(empty.valid());
    EXPECT_EQ(empty.data(), nullptr);
    empty.copy_from_host(std::vector<float>{});
    EXPECT_TRUE(empty.to_vector().empty());
    out.fill(-1.0f);
    reduce(s, empty, out, ReduceOp::sum); // the identity
    s.synchronize();
    EXPECT_EQ(out.to_vector(), std::vector<float>{0.0f});
    EXPECT_EQ(reduce(s, empty, ReduceOp::prod), 1.0f);
}

TEST(Lifetime, DestroyingABufferWaitsForTheStreamsUsingIt) {
    const Device d = cpu_device();
    Stream s(d);
    const std::size_t n = std::size_t{1} << 22;
    {
        Buffer<float> a(d, n), b(d, n), c(d, n);
        a.fill_async(s, 1.0f);
        b.fill_async(s, 2.0f);
        for (int i = 0; i < 8; ++i) vector_add(s, a, b, c);
    } // freed here, with work possibly still queued on s: the core must synchronize s first
    EXPECT_TRUE(s.query()) << "deallocation did not wait for the stream that used the buffers";
}

TEST(Lifetime, OperationsOnTheTemplatePluginGiveCorrectResults) {
    const Device d = template_device();
    Stream s(d);
    std::vector<int> host = {1, 2, 3, 4, 5, 6};
    Buffer<int> m(d, 6), t(d, 6), rows(d, 2);
    m.copy_from_host(host);
    transpose(s, m, t, 2, 3);
    reduce_rows(s, m, rows, 2, 3, ReduceOp::sum);
    s.synchronize();
    EXPECT_EQ(t.to_vector(), (std::vector<int>{1, 4, 2, 5, 3, 6}));
    EXPECT_EQ(rows.to_vector(), (std::vector<int>{6, 15}));
    EXPECT_EQ(reduce(s, m, ReduceOp::max), 6);
}

TEST(Lifetime, MoveAssignmentReleasesTheOldObject) {
    const Device d = cpu_device();
    Stream a(d), b(d);
    a = std::move(b);
    EXPECT_TRUE(a.valid());
    EXPECT_FALSE(b.valid()); // NOLINT(bugprone-use-after-move)
    Buffer<float> x(d, 4), y(d, 8);
    x = std::move(y);
    EXPECT_EQ(x.size(), 8u);
    a.synchronize();
}

} // namespace
} // namespace gpucore::test

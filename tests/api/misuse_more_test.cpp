// SPDX-License-Identifier: Apache-2.0
// More misuse of the public API (at least 30 distinct cases in all; misuse_test.cpp and
// selection_test.cpp hold the first ones). Each case is a gpucore::Error with the right code whose
// message names the operation and the cause; run under AddressSanitizer by tools/ci_sanitizers.sh,
// so none may leak or touch memory it should not.
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "api_test_support.hpp"

namespace gpucore::test {
namespace {

constexpr std::size_t size_max = std::numeric_limits<std::size_t>::max();

TEST(MisuseMore, NullHostDestination) {
    Buffer<float> b(cpu_device(), 3);
    expect_error([&] { b.copy_to_host(nullptr, 3); }, ErrorCode::invalid_argument, "Buffer::copy_to_host",
                 "host pointer is null");
    Stream s(cpu_device());
    expect_error([&] { b.copy_to_host_async(s, nullptr, 3); }, ErrorCode::invalid_argument,
                 "Buffer::copy_to_host_async", "host pointer is null");
}

TEST(MisuseMore, AbsurdHostCountDoesNotWrapIntoAShortOne) {
    // size_max elements of 4 bytes would wrap to a small byte count if multiplied naively; the
    // count saturates instead, so the null pointer is what gets reported.
    Buffer<float> b(cpu_device(), 3);
    expect_error([&] { b.copy_from_host(nullptr, size_max); }, ErrorCode::invalid_argument,
                 "Buffer::copy_from_host", "host pointer is null");
    expect_error([&] { b.copy_to_host(nullptr, size_max / 2); }, ErrorCode::invalid_argument,
                 "Buffer::copy_to_host", "host pointer is null");
}

TEST(MisuseMore, AsyncTransfersOnAMovedFromStream) {
    Stream s(cpu_device());
    Stream keeper = std::move(s);
    Buffer<int> b(cpu_device(), 4), other(cpu_device(), 4);
    std::vector<int> host(4, 0);
    expect_error([&] { b.copy_from_host_async(s, host.data(), host.size()); }, ErrorCode::invalid_argument,
                 "Buffer::copy_from_host_async", "moved-from or null Stream");
    expect_error([&] { b.copy_to_host_async(s, host.data(), host.size()); }, ErrorCode::invalid_argument,
                 "Buffer::copy_to_host_async", "moved-from or null Stream");
    expect_error([&] { b.copy_from_async(s, other); }, ErrorCode::invalid_argument, "Buffer::copy_from_async",
                 "moved-from or null Stream");
}

TEST(MisuseMore, AsyncTransfersOnAStreamOfAnotherDevice) {
    Stream on_template(template_device());
    Buffer<float> a(cpu_device(), 4), b(cpu_device(), 4);
    std::vector<float> host(4, 0.0f);
    expect_error([&] { a.copy_to_host_async(on_template, host.data(), host.size()); }, ErrorCode::invalid_argument,
                 "Buffer::copy_to_host_async", "the buffer is on cpu:0 but the stream is on template:0");
    expect_error([&] { a.copy_from_async(on_template, b); }, ErrorCode::invalid_argument, "Buffer::copy_from_async",
                 "the buffer is on cpu:0 but the stream is on template:0");
    expect_error([&] { a.fill_async(on_template, 1.0f); }, ErrorCode::invalid_argument, "Buffer::fill_async",
                 "the buffer is on cpu:0 but the stream is on template:0");
}

TEST(MisuseMore, AsyncDeviceCopyBetweenDevicesOfDifferentLength) {
    Stream s(cpu_device());
    Buffer<double> on_cpu(cpu_device(), 2), on_template(template_device(), 3);
    expect_error([&] { on_cpu.copy_from_async(s, on_template); }, ErrorCode::invalid_argument,
                 "Buffer::copy_from_async", "buffer sizes differ (destination: 16 bytes, source: 24 bytes)");
}

TEST(MisuseMore, TransposeAndReduceRowsWithABufferOfAnotherDevice) {
    Stream s(cpu_device());
    Buffer<float> in(cpu_device(), 6), out_elsewhere(template_device(), 6);
    expect_error([&] { transpose(s, in, out_elsewhere, 2, 3); }, ErrorCode::invalid_argument, "transpose",
                 "buffer 'out' is on template:0 but the stream is on cpu:0");
    Buffer<float> in_elsewhere(template_device(), 6), rows(cpu_device(), 2);
    expect_error([&] { reduce_rows(s, in_elsewhere, rows, 2, 3, ReduceOp::max); }, ErrorCode::invalid_argument,
                 "reduce_rows", "buffer 'in' is on template:0 but the stream is on cpu:0");
    Buffer<float> c_elsewhere(template_device(), 6);
    expect_error([&] { vector_add(s, in, in, c_elsewhere); }, ErrorCode::invalid_argument, "vector_add",
                 "buffer 'c' is on template:0");
}

TEST(MisuseMore, NullBuffersInEveryOperation) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<int> in(d, 6), out(d, 6), none;
    expect_error([&] { transpose(s, in, none, 2, 3); }, ErrorCode::invalid_argument, "transpose",
                 "buffer 'out' is a null");
    expect_error([&] { reduce(s, in, none, ReduceOp::sum); }, ErrorCode::invalid_argument, "reduce",
                 "buffer 'out' is a null");
    expect_error([&] { reduce_rows(s, none, out, 0, 0, ReduceOp::sum); }, ErrorCode::invalid_argument,
                 "reduce_rows", "buffer 'in' is a null");
}

TEST(MisuseMore, ZeroRowsWithNonEmptyBuffers) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<float> five(d, 5), empty(d, 0), three(d, 3);
    expect_error([&] { transpose(s, five, empty, 0, 5); }, ErrorCode::invalid_argument, "transpose",
                 "in holds 5 elements but rows * cols = 0 * 5 = 0");
    expect_error([&] { reduce_rows(s, empty, three, 0, 7, ReduceOp::sum); }, ErrorCode::invalid_argument,
                 "reduce_rows", "out holds 3 elements but there are 0 rows");
}

TEST(MisuseMore, ReduceOpOutsideTheEnumIsRejectedNotSummed) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<std::uint32_t> in(d, 4), out(d, 4);
    in.fill(3u);
    out.fill(0u);
    const auto bogus = static_cast<ReduceOp>(9);
    expect_error([&] { reduce(s, in, out, bogus); }, ErrorCode::invalid_argument, "reduce", "unknown reduce op 9");
    expect_error([&] { reduce_rows(s, in, out, 4, 1, bogus); }, ErrorCode::invalid_argument, "reduce_rows",
                 "unknown reduce op 9");
    s.synchronize();
    EXPECT_EQ(out.to_vector(), std::vector<std::uint32_t>(4, 0u)) << "a rejected call must not write";
}

TEST(MisuseMore, MemoryKindOutsideTheEnumIsRejected) {
    expect_error([] { Buffer<float> b(cpu_device(), 4, static_cast<MemoryKind>(7)); }, ErrorCode::invalid_argument,
                 "Buffer::Buffer", "unknown memory kind 7");
}

TEST(MisuseMore, MovedFromEventInRecordAndDevice) {
    Event e(cpu_device());
    Event keeper = std::move(e);
    Stream s(cpu_device());
    expect_error([&] { e.record(s); }, ErrorCode::invalid_argument, "Event::record", "moved-from or null Event");
    expect_error([&] { (void)e.device(); }, ErrorCode::invalid_argument, "Event::device", "moved-from or null Event");
}

TEST(MisuseMore, WaitOnAMovedFromStream) {
    Stream s(cpu_device());
    Stream keeper = std::move(s);
    Event e(cpu_device());
    e.record(keeper);
    expect_error([&] { s.wait(e); }, ErrorCode::invalid_argument, "Stream::wait", "moved-from or null Stream");
}

TEST(MisuseMore, IndexOfANullDevice) {
    const Device none;
    expect_error([&] { (void)none.index(); }, ErrorCode::invalid_argument, "Device::index", "null device");
}

TEST(MisuseMore, ElapsedWithOnlyOneEventRecorded) {
    const Device d = cpu_device();
    Stream s(d);
    Event start(d), end(d);
    start.record(s);
    s.synchronize();
    const Error e = expect_error([&] { (void)elapsed_ms(start, end); }, ErrorCode::invalid_argument, "elapsed_ms",
                                 "end event");
    EXPECT_EQ(e.backend(), "cpu");
}

TEST(MisuseMore, MovedFromObjectsAreNullAndReportNothingOfTheirOldState) {
    const Device d = cpu_device();
    Buffer<float> a(d, 37, MemoryKind::pinned_host);
    Buffer<float> b(std::move(a));
    EXPECT_FALSE(a.valid());
    EXPECT_EQ(a.size(), 0u);
    EXPECT_EQ(a.bytes(), 0u);
    EXPECT_TRUE(a.empty());
    EXPECT_EQ(a.data(), nullptr);
    EXPECT_EQ(a.kind(), MemoryKind::device);
    expect_error([&] { (void)a.to_vector(); }, ErrorCode::invalid_argument, "Buffer::copy_to_host", "moved-from");
    EXPECT_EQ(b.size(), 37u);
    EXPECT_EQ(b.kind(), MemoryKind::pinned_host);

    Buffer<float> c(d, 5);
    c = std::move(b);
    EXPECT_EQ(b.size(), 0u);
    EXPECT_FALSE(b.valid());
    EXPECT_EQ(c.size(), 37u);
    expect_error([&] { a.fill(1.0f); }, ErrorCode::invalid_argument, "Buffer::fill", "moved-from");

    Stream s(d);
    Stream t(std::move(s));
    EXPECT_FALSE(s.valid());
    EXPECT_TRUE(t.valid());
    expect_error([&] { s.synchronize(); }, ErrorCode::invalid_argument, "Stream::synchronize", "moved-from");
    Event e(d);
    Event f(std::move(e));
    EXPECT_FALSE(e.valid());
    EXPECT_TRUE(f.valid());
    expect_error([&] { e.record(t); }, ErrorCode::invalid_argument, "Event::record", "moved-from");
}

} // namespace
} // namespace gpucore::test

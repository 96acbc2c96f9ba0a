// SPDX-License-Identifier: Apache-2.0
// Streams and events of the CPU backend: asynchrony, order, failure reporting, cross-stream waits.
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "allocation_failure.hpp"
#include "cpu_test_support.hpp"

namespace gpucore::cpu::test {
namespace {

using namespace std::chrono_literals;

// An event from the table, destroyed on scope exit unless released.
class TableEvent {
public:
    TableEvent() {
        gpucore_message msg{};
        if (table().event_create(0, &handle_, &msg) != GPUCORE_OK) throw std::runtime_error(msg.text);
    }
    ~TableEvent() { destroy(); }
    TableEvent(const TableEvent&) = delete;
    TableEvent& operator=(const TableEvent&) = delete;
    gpucore_event get() const { return handle_; }
    void destroy() {
        if (handle_ == nullptr) return;
        gpucore_message msg{};
        EXPECT_EQ(table().event_destroy(handle_, &msg), GPUCORE_OK) << msg.text;
        handle_ = nullptr;
    }
    void record(const TableStream& stream) const {
        gpucore_message msg{};
        ASSERT_EQ(table().event_record(handle_, stream.get(), &msg), GPUCORE_OK) << msg.text;
    }
    bool done() const {
        gpucore_message msg{};
        int done = -1;
        EXPECT_EQ(table().event_query(handle_, &done, &msg), GPUCORE_OK) << msg.text;
        return done == 1;
    }
    void sync() const {
        gpucore_message msg{};
        ASSERT_EQ(table().event_synchronize(handle_, &msg), GPUCORE_OK) << msg.text;
    }

private:
    gpucore_event handle_ = nullptr;
};

bool stream_done(const TableStream& stream) {
    gpucore_message msg{};
    int done = -1;
    EXPECT_EQ(table().stream_query(stream.get(), &done, &msg), GPUCORE_OK) << msg.text;
    return done == 1;
}

void wait_event(const TableStream& stream, const TableEvent& event) {
    gpucore_message msg{};
    ASSERT_EQ(table().stream_wait_event(stream.get(), event.get(), &msg), GPUCORE_OK) << msg.text;
}

TEST(CpuStream, EnqueueReturnsBeforeTheWorkRuns) {
    TableStream stream;
    Gate gate;
    std::atomic<int> ran{0};
    stream.queue().enqueue(gate.task());
    stream.queue().enqueue([&] { ran = 1; });
    EXPECT_FALSE(stream_done(stream));
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(ran.load(), 0);
    gate.open();
    stream.sync();
    EXPECT_EQ(ran.load(), 1);
    EXPECT_TRUE(stream_done(stream));
}

// Streams are independent queues: one held by unfinished work does not hold up another.
TEST(CpuStream, AStreamHeldUpDoesNotHoldUpAnother) {
    TableStream held, free_running;
    Gate gate;
    std::atomic<int> ran{0};
    held.queue().enqueue(gate.task());
    free_running.queue().enqueue([&] { ran = 1; });
    free_running.sync();
    EXPECT_EQ(ran.load(), 1);
    EXPECT_FALSE(stream_done(held));
    gate.open();
    held.sync();
}

// The native handle of a cpu stream is its own queue object: non-null, one per stream, stable.
TEST(CpuStream, NativeHandleIsTheStreamsOwnQueue) {
    TableStream first, second;
    gpucore_message msg{};
    void* a = nullptr;
    void* b = nullptr;
    void* again = nullptr;
    ASSERT_EQ(table().stream_native_handle(first.get(), &a, &msg), GPUCORE_OK) << msg.text;
    ASSERT_EQ(table().stream_native_handle(second.get(), &b, &msg), GPUCORE_OK) << msg.text;
    ASSERT_EQ(table().stream_native_handle(first.get(), &again, &msg), GPUCORE_OK) << msg.text;
    EXPECT_EQ(a, static_cast<void*>(&first.queue()));
    EXPECT_EQ(b, static_cast<void*>(&second.queue()));
    EXPECT_NE(a, b);
    EXPECT_EQ(a, again);
}

TEST(CpuStream, RunsWorkInEnqueueOrderOnAWorkerThread) {
    TableStream stream;
    std::vector<int> order; // touched only by the worker until sync
    std::thread::id worker;
    for (int i = 0; i < 1000; ++i) {
        stream.queue().enqueue([&order, &worker, i] {
            order.push_back(i);
            worker = std::this_thread::get_id();
        });
    }
    stream.sync();
    ASSERT_EQ(order.size(), 1000u);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(order[static_cast<std::size_t>(i)], i);
    EXPECT_NE(worker, std::this_thread::get_id());
}

TEST(CpuStream, KeepsEachEnqueuingThreadsOrder) {
    TableStream stream;
    constexpr int kThreads = 4;
    constexpr int kTasks = 500;
    std::vector<std::vector<int>> seen(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kTasks; ++i) stream.queue().enqueue([&seen, t, i] { seen[static_cast<std::size_t>(t)].push_back(i); });
        });
    }
    for (std::thread& thread : threads) thread.join();
    stream.sync();
    for (const std::vector<int>& values : seen) {
        ASSERT_EQ(values.size(), static_cast<std::size_t>(kTasks));
        for (int i = 0; i < kTasks; ++i) EXPECT_EQ(values[static_cast<std::size_t>(i)], i);
    }
}

TEST(CpuStream, ReportsTheFirstFailureAtTheNextSynchronizeOnly) {
    TableStream stream;
    std::atomic<int> later{0};
    stream.queue().enqueue([] { throw std::runtime_error("first failure"); });
    stream.queue().enqueue([] { throw std::runtime_error("second failure"); });
    stream.queue().enqueue([&] { later = 1; }); // work after a failure still runs
    gpucore_message msg{};
    EXPECT_EQ(table().stream_synchronize(stream.get(), &msg), GPUCORE_ERROR_PLUGIN);
    EXPECT_NE(std::string(msg.text).find("first failure"), std::string::npos) << msg.text;
    EXPECT_EQ(later.load(), 1);
    EXPECT_EQ(table().stream_synchronize(stream.get(), &msg), GPUCORE_OK);
}

TEST(CpuStream, ReportsBadAllocAsOutOfMemory) {
    TableStream stream;
    stream.queue().enqueue([] { throw std::bad_alloc(); });
    gpucore_message msg{};
    EXPECT_EQ(table().stream_synchronize(stream.get(), &msg), GPUCORE_ERROR_OUT_OF_MEMORY);
}

// Memory stays exhausted on the worker while it handles the failure: the cause must still be
// reported, naming the operation, without allocating.
TEST(CpuStream, ATaskOutOfMemoryReportsItsOperationAndCause) {
    if (!allocation_failure_available()) GTEST_SKIP() << "the sanitizer runtime owns operator new";
    TableStream stream;
    const std::size_t rows = 3, cols = std::size_t{1} << 20; // long rows: reduce_rows allocates partials
    DeviceArray<float> in(rows * cols), out(rows);
    stream.queue().enqueue([] { fail_allocations_on_this_thread(true); });
    gpucore_message msg{};
    ASSERT_EQ(table().reduce_rows(GPUCORE_DTYPE_F32, GPUCORE_REDUCE_SUM, in.data(), rows, cols, out.data(),
                                  stream.get(), &msg),
              GPUCORE_OK)
        << msg.text;
    stream.queue().enqueue([] { fail_allocations_on_this_thread(false); });
    EXPECT_EQ(table().stream_synchronize(stream.get(), &msg), GPUCORE_ERROR_OUT_OF_MEMORY);
    EXPECT_NE(std::string(msg.text).find("reduce_rows: out of memory"), std::string::npos) << msg.text;
}

TEST(CpuStream, ATaskFailureNamesItsOperation) {
    TableStream stream;
    stream.queue().enqueue([] { throw std::runtime_error("broken"); }, "vector_add");
    gpucore_message msg{};
    EXPECT_EQ(table().stream_synchronize(stream.get(), &msg), GPUCORE_ERROR_PLUGIN);
    EXPECT_STREQ(msg.text, "queued work failed: vector_add: internal error: broken");
}

TEST(CpuStream, DestroyRunsThePendingWorkFirst) {
    gpucore_message msg{};
    gpucore_stream handle = nullptr;
    ASSERT_EQ(table().stream_create(0, &handle, &msg), GPUCORE_OK);
    Stream& queue = *reinterpret_cast<Stream*>(handle);
    Gate gate;
    std::atomic<int> ran{0};
    queue.enqueue(gate.task());
    queue.enqueue([&] { ran = 1; });
    std::thread opener([&] {
        std::this_thread::sleep_for(30ms);
        gate.open();
    });
    EXPECT_EQ(table().stream_destroy(handle, &msg), GPUCORE_OK) << msg.text;
    EXPECT_EQ(ran.load(), 1);
    opener.join();
}

TEST(CpuStream, DestroyReportsAFailureOfThePendingWork) {
    gpucore_message msg{};
    gpucore_stream handle = nullptr;
    ASSERT_EQ(table().stream_create(0, &handle, &msg), GPUCORE_OK);
    reinterpret_cast<Stream*>(handle)->enqueue([] { throw std::runtime_error("late failure"); });
    EXPECT_EQ(table().stream_destroy(handle, &msg), GPUCORE_ERROR_PLUGIN);
    EXPECT_NE(std::string(msg.text).find("late failure"), std::string::npos) << msg.text;
}

TEST(CpuEvent, NeverRecordedIsCompleteButHasNoTime) {
    TableEvent a;
    TableEvent b;
    EXPECT_TRUE(a.done());
    a.sync();
    gpucore_message msg{};
    double ms = -1;
    EXPECT_EQ(table().event_elapsed_ms(a.get(), b.get(), &ms, &msg), GPUCORE_ERROR_INVALID_ARGUMENT);
    EXPECT_GT(std::strlen(msg.text), 0u);
}

TEST(CpuEvent, CompletesWhenTheStreamReachesTheRecord) {
    TableStream stream;
    TableEvent event;
    Gate gate;
    stream.queue().enqueue(gate.task());
    event.record(stream);
    EXPECT_FALSE(event.done());
    gpucore_message msg{};
    double ms = 0;
    EXPECT_EQ(table().event_elapsed_ms(event.get(), event.get(), &ms, &msg), GPUCORE_ERROR_INVALID_ARGUMENT);
    gate.open();
    event.sync();
    EXPECT_TRUE(event.done());
    EXPECT_EQ(table().event_elapsed_ms(event.get(), event.get(), &ms, &msg), GPUCORE_OK);
    EXPECT_EQ(ms, 0.0);
}

TEST(CpuEvent, ElapsedTimeCoversTheWorkBetweenRecords) {
    TableStream stream;
    TableEvent start;
    TableEvent end;
    start.record(stream);
    stream.queue().enqueue([] { std::this_thread::sleep_for(30ms); });
    end.record(stream);
    stream.sync();
    gpucore_message msg{};
    double ms = -1;
    ASSERT_EQ(table().event_elapsed_ms(start.get(), end.get(), &ms, &msg), GPUCORE_OK) << msg.text;
    EXPECT_GE(ms, 29.0);
    EXPECT_LT(ms, 5000.0);
}

TEST(CpuEvent, StreamWaitOrdersWorkAcrossStreams) {
    TableStream producer;
    TableStream consumer;
    TableEvent event;
    Gate gate;
    std::atomic<int> ran{0};
    producer.queue().enqueue(gate.task());
    event.record(producer);
    wait_event(consumer, event);
    consumer.queue().enqueue([&] { ran = 1; });
    std::this_thread::sleep_for(30ms);
    EXPECT_EQ(ran.load(), 0);
    EXPECT_FALSE(stream_done(consumer));
    gate.open();
    consumer.sync();
    EXPECT_EQ(ran.load(), 1);
}

TEST(CpuEvent, StreamWaitUsesTheRecordCurrentAtTheCall) {
    TableStream producer;
    TableStream consumer;
    TableEvent event;
    event.record(producer);
    producer.sync();
    wait_event(consumer, event); // waits for record 1, complete already
    Gate gate;
    producer.queue().enqueue(gate.task());
    event.record(producer); // record 2 stays pending behind the gate
    consumer.sync();        // must not wait for record 2 (it would hang until the gate opens)
    std::atomic<int> ran{0};
    wait_event(consumer, event); // now waits for record 2
    consumer.queue().enqueue([&] { ran = 1; });
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(ran.load(), 0);
    gate.open();
    consumer.sync();
    EXPECT_EQ(ran.load(), 1);
}

TEST(CpuEvent, WaitOnANeverRecordedEventDoesNotWait) {
    TableStream consumer;
    TableEvent event;
    wait_event(consumer, event);
    consumer.sync();
    // Recording it afterwards, behind a closed gate, does not affect the wait made before.
    TableStream producer;
    Gate gate;
    producer.queue().enqueue(gate.task());
    event.record(producer);
    std::atomic<int> ran{0};
    consumer.queue().enqueue([&] { ran = 1; });
    consumer.sync();
    EXPECT_EQ(ran.load(), 1);
}

TEST(CpuEvent, CanBeDestroyedWhileAWaitIsPending) {
    TableStream producer;
    TableStream consumer;
    TableEvent event;
    Gate gate;
    producer.queue().enqueue(gate.task());
    event.record(producer);
    wait_event(consumer, event);
    event.destroy();
    gate.open();
    consumer.sync();
    producer.sync();
}

TEST(CpuEvent, ReRecordingReplacesTheCapture) {
    TableStream slow;
    TableStream fast;
    TableEvent event;
    TableEvent reference;
    Gate gate;
    slow.queue().enqueue(gate.task());
    event.record(slow);
    event.record(fast); // the latest record is on the free stream
    event.sync();       // must not wait for the gated record
    EXPECT_TRUE(event.done());
    reference.record(fast);
    fast.sync();
    gpucore_message msg{};
    double before = -1;
    double after = -2;
    ASSERT_EQ(table().event_elapsed_ms(event.get(), reference.get(), &before, &msg), GPUCORE_OK);
    gate.open();
    slow.sync(); // the older record completes now: it must not overwrite the newer time stamp
    ASSERT_EQ(table().event_elapsed_ms(event.get(), reference.get(), &after, &msg), GPUCORE_OK);
    EXPECT_EQ(before, after);
}

} // namespace
} // namespace gpucore::cpu::test

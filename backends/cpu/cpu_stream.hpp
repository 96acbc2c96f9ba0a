// SPDX-License-Identifier: Apache-2.0
// Streams and events of the CPU backend.
//
// A Stream is a true asynchronous in-order queue: it owns one worker thread that runs the queued
// tasks one after another (each task may itself use the thread pool), so enqueue returns at once and
// the caller never runs the work. The first error raised by a task is kept and reported by the
// next synchronize. The worker, idle, and synchronize, waiting, poll briefly before they sleep
// (cpu_poll.hpp).
//
// An Event is a generation counter: each record bumps the generation and enqueues a marker that,
// when the stream reaches it, marks that generation complete and stamps a steady_clock time. A wait
// captures the generation current at the time of the call, so recording the event again later (or
// never) cannot make a waiter hang. Event state is shared with the markers and waits that refer to
// it, so destroying an event with work still pending is safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "gpucore/plugin.h"

namespace gpucore::cpu {

// A failure raised by queued work, held until the next synchronize reports it. The text is a fixed
// buffer: a task that ran out of memory must still be able to say so.
struct TaskFailure {
    gpucore_status status = GPUCORE_OK;
    char message[GPUCORE_MESSAGE_CAPACITY] = {}; // "<operation>: <cause>"
};

class Stream {
public:
    using Task = std::function<void()>;

    Stream();  // starts the worker thread (throws std::system_error if it cannot)
    ~Stream(); // runs the pending work, then stops and joins the worker
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    // Queues `task` behind the work enqueued so far and returns at once. `operation` (a string
    // literal) names the task in the failure it may raise. Thread-safe.
    void enqueue(Task task, const char* operation = "queued task");
    // Blocks until the work enqueued before this call has finished, then returns (and clears) the
    // first failure raised by queued work since the last synchronize, if any. Thread-safe.
    std::optional<TaskFailure> synchronize();
    // True when all work enqueued so far has finished. Never blocks on the work. Thread-safe.
    bool idle() const;

private:
    void run_worker();

    mutable std::mutex mutex_;
    std::condition_variable work_ready_; // signalled on enqueue and on stop
    std::condition_variable work_done_;  // signalled when a task finishes
    struct Entry {
        Task task;
        const char* operation;
    };
    std::deque<Entry> queue_;
    // Written under mutex_; atomic so that waiters can poll them without it.
    std::atomic<std::uint64_t> enqueued_{0};
    std::atomic<std::uint64_t> finished_{0};
    std::atomic<bool> stopping_{false};
    std::optional<TaskFailure> failure_;
    std::thread worker_; // declared last: starts after the members it uses exist
};

class EventState {
public:
    using Clock = std::chrono::steady_clock;

    // Starts a new record and returns its generation (1, 2, ...). Thread-safe.
    std::uint64_t begin_record();
    // Marks `generation` complete and stamps the time, unless a newer record completed already.
    void complete(std::uint64_t generation);
    // The generation of the latest record (0: never recorded). Thread-safe.
    std::uint64_t latest_record() const;
    // True when `generation` (or a newer one) has completed; generation 0 is always reached.
    bool reached(std::uint64_t generation) const;
    // Blocks until reached(generation).
    void wait_for(std::uint64_t generation) const;
    // The completion time of the latest record, or nothing if it has not completed or never ran.
    std::optional<Clock::time_point> latest_completion_time() const;

private:
    mutable std::mutex mutex_;
    mutable std::condition_variable completed_cv_;
    std::uint64_t latest_ = 0;
    std::uint64_t completed_ = 0;
    Clock::time_point completed_at_{};
};

// What an event handle points to: the shared state, kept alive by pending markers and waits.
struct Event {
    std::shared_ptr<EventState> state = std::make_shared<EventState>();
};

// Enqueues on `stream` the marker that completes a new record of `event`.
void record_event(Event& event, Stream& stream);
// Makes work enqueued on `stream` after this call wait for `event`'s latest record as of now.
void stream_wait_event(Stream& stream, const Event& event);

} // namespace gpucore::cpu

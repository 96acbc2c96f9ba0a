// SPDX-License-Identifier: Apache-2.0
#include "cpu_stream.hpp"

#include "cpu_poll.hpp"
#include "cpu_status.hpp"

namespace gpucore::cpu {

Stream::Stream() : worker_([this] { run_worker(); }) {}

Stream::~Stream() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    work_ready_.notify_one();
    worker_.join(); // the worker empties the queue before it honours stopping_
}

void Stream::enqueue(Task task, const char* operation) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(Entry{std::move(task), operation});
        ++enqueued_;
    }
    work_ready_.notify_one();
}

std::optional<TaskFailure> Stream::synchronize() {
    std::unique_lock<std::mutex> lock(mutex_);
    const std::uint64_t target = enqueued_;
    if (finished_ < target) {
        lock.unlock();
        poll_until([&] { return finished_.load(std::memory_order_acquire) >= target; });
        lock.lock();
        work_done_.wait(lock, [&] { return finished_ >= target; });
    }
    std::optional<TaskFailure> failure;
    failure.swap(failure_);
    return failure;
}

bool Stream::idle() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return finished_ == enqueued_;
}

void Stream::run_worker() {
    std::uint64_t taken = 0; // entries taken from the queue
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        if (queue_.empty() && !stopping_) {
            lock.unlock();
            poll_until([&] {
                return enqueued_.load(std::memory_order_acquire) != taken || stopping_.load(std::memory_order_acquire);
            });
            lock.lock();
            work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        }
        if (queue_.empty()) return; // stopping, and nothing left to run
        Entry entry = std::move(queue_.front());
        queue_.pop_front();
        ++taken;
        lock.unlock();

        std::optional<TaskFailure> failure;
        try {
            entry.task();
        } catch (...) {
            failure.emplace();
            failure->status = describe_current_exception(entry.operation, failure->message,
                                                         sizeof failure->message);
        }
        entry.task = nullptr; // release what the task captured before reporting it finished

        lock.lock();
        // Later tasks still run (markers and waits must, or waiters would hang); the first
        // failure is what synchronize reports.
        if (failure && !failure_) failure_ = std::move(failure);
        ++finished_;
        work_done_.notify_all();
    }
}

std::uint64_t EventState::begin_record() {
    std::lock_guard<std::mutex> lock(mutex_);
    return ++latest_;
}

void EventState::complete(std::uint64_t generation) {
    const Clock::time_point now = Clock::now();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (generation <= completed_) return; // a newer record (on another stream) finished first
        completed_ = generation;
        completed_at_ = now;
    }
    completed_cv_.notify_all();
}

std::uint64_t EventState::latest_record() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return latest_;
}

bool EventState::reached(std::uint64_t generation) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return completed_ >= generation;
}

void EventState::wait_for(std::uint64_t generation) const {
    std::unique_lock<std::mutex> lock(mutex_);
    completed_cv_.wait(lock, [&] { return completed_ >= generation; });
}

std::optional<EventState::Clock::time_point> EventState::latest_completion_time() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (latest_ == 0 || completed_ < latest_) return std::nullopt;
    return completed_at_;
}

void record_event(Event& event, Stream& stream) {
    std::shared_ptr<EventState> state = event.state;
    const std::uint64_t generation = state->begin_record();
    try {
        stream.enqueue([state, generation] { state->complete(generation); }, "event_record");
    } catch (...) {
        // The marker could not be queued: complete the generation now so no waiter hangs on it.
        state->complete(generation);
        throw;
    }
}

void stream_wait_event(Stream& stream, const Event& event) {
    const std::uint64_t generation = event.state->latest_record();
    if (generation == 0) return; // never recorded: no wait
    std::shared_ptr<const EventState> state = event.state;
    stream.enqueue([state, generation] { state->wait_for(generation); }, "stream_wait_event");
}

} // namespace gpucore::cpu

// SPDX-License-Identifier: Apache-2.0
// Streams run their work in order on a thread of their own; events are counters that a stream
// advances when it reaches the record. Kernel launches are queued like any other work.
#include <chrono>

#include "simt_internal.hpp"

using gpucore::simt::faulted;
using gpucore::simt::record;

simt_stream::simt_stream() : thread_([this] { run(); }) {}

simt_stream::~simt_stream() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    thread_.join(); // the thread finishes the queued work first
}

void simt_stream::enqueue(std::function<void()> work) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        work_.push_back(std::move(work));
    }
    changed_.notify_all();
}

void simt_stream::wait_idle() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return work_.empty() && !busy_; });
}

bool simt_stream::idle() {
    std::lock_guard<std::mutex> lock(mutex_);
    return work_.empty() && !busy_;
}

void simt_stream::run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return !work_.empty() || stopping_; });
        if (work_.empty()) return; // stopping, nothing left
        std::function<void()> work = std::move(work_.front());
        work_.pop_front();
        busy_ = true;
        lock.unlock();
        work(); // never throws: every queued piece of work is noexcept in effect
        work = nullptr;
        lock.lock();
        busy_ = false;
        changed_.notify_all();
    }
}

namespace {

double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// Waits until the event's record number `target` has completed, or the device has faulted (work
// after a fault never runs, so the record may never complete).
void wait_for_record(simt_event_state& state, std::uint64_t target) {
    std::unique_lock<std::mutex> lock(state.mutex);
    while (state.completed < target && !faulted()) {
        state.completed_changed.wait_for(lock, std::chrono::milliseconds(20));
    }
}

} // namespace

simtError_t simtStreamCreateWithFlags(simtStream_t* stream, unsigned int /*flags*/) noexcept {
    if (stream == nullptr) return record(simtErrorInvalidValue);
    if (faulted()) return record(simtErrorLaunchFailure);
    try {
        *stream = new simt_stream();
    } catch (...) {
        return record(simtErrorMemoryAllocation);
    }
    return simtSuccess;
}

simtError_t simtStreamDestroy(simtStream_t stream) noexcept {
    if (stream == nullptr) return record(simtErrorInvalidResourceHandle);
    delete stream;
    return simtSuccess;
}

simtError_t simtStreamSynchronize(simtStream_t stream) noexcept {
    if (stream == nullptr) return record(simtErrorInvalidResourceHandle);
    stream->wait_idle();
    return faulted() ? record(simtErrorLaunchFailure) : simtSuccess;
}

simtError_t simtLaunchHostFunc(simtStream_t stream, simtHostFn_t fn, void* user) noexcept {
    if (stream == nullptr || fn == nullptr) return record(simtErrorInvalidResourceHandle);
    try {
        stream->enqueue([fn, user] { fn(user); });
    } catch (...) {
        return record(simtErrorMemoryAllocation);
    }
    return simtSuccess;
}

simtError_t simtStreamQuery(simtStream_t stream) noexcept {
    if (stream == nullptr) return record(simtErrorInvalidResourceHandle);
    if (faulted()) return record(simtErrorLaunchFailure);
    return stream->idle() ? simtSuccess : simtErrorNotReady;
}

simtError_t simtStreamWaitEvent(simtStream_t stream, simtEvent_t event, unsigned int /*flags*/) noexcept {
    if (stream == nullptr || event == nullptr) return record(simtErrorInvalidResourceHandle);
    if (faulted()) return record(simtErrorLaunchFailure);
    try {
        std::shared_ptr<simt_event_state> state = event->state;
        std::uint64_t target = 0;
        {
            std::lock_guard<std::mutex> lock(state->mutex);
            target = state->recorded; // the record made last before this call (0: none, no wait)
        }
        if (target == 0) return simtSuccess;
        stream->enqueue([state, target] { wait_for_record(*state, target); });
    } catch (...) {
        return record(simtErrorMemoryAllocation);
    }
    return simtSuccess;
}

simtError_t simtEventCreate(simtEvent_t* event) noexcept {
    if (event == nullptr) return record(simtErrorInvalidValue);
    try {
        *event = new simt_event();
    } catch (...) {
        return record(simtErrorMemoryAllocation);
    }
    return simtSuccess;
}

simtError_t simtEventDestroy(simtEvent_t event) noexcept {
    if (event == nullptr) return record(simtErrorInvalidResourceHandle);
    delete event; // queued records and waits keep the state alive
    return simtSuccess;
}

simtError_t simtEventRecord(simtEvent_t event, simtStream_t stream) noexcept {
    if (stream == nullptr || event == nullptr) return record(simtErrorInvalidResourceHandle);
    if (faulted()) return record(simtErrorLaunchFailure);
    try {
        std::shared_ptr<simt_event_state> state = event->state;
        std::uint64_t number = 0;
        {
            std::lock_guard<std::mutex> lock(state->mutex);
            number = ++state->recorded;
        }
        stream->enqueue([state, number] {
            {
                std::lock_guard<std::mutex> lock(state->mutex);
                if (number > state->completed) {
                    state->completed = number;
                    state->completed_ms = now_ms();
                }
            }
            state->completed_changed.notify_all();
        });
    } catch (...) {
        return record(simtErrorMemoryAllocation);
    }
    return simtSuccess;
}

simtError_t simtEventSynchronize(simtEvent_t event) noexcept {
    if (event == nullptr) return record(simtErrorInvalidResourceHandle);
    std::uint64_t target = 0;
    {
        std::lock_guard<std::mutex> lock(event->state->mutex);
        target = event->state->recorded;
    }
    wait_for_record(*event->state, target);
    return faulted() ? record(simtErrorLaunchFailure) : simtSuccess;
}

simtError_t simtEventQuery(simtEvent_t event) noexcept {
    if (event == nullptr) return record(simtErrorInvalidResourceHandle);
    if (faulted()) return record(simtErrorLaunchFailure);
    std::lock_guard<std::mutex> lock(event->state->mutex);
    return event->state->completed >= event->state->recorded ? simtSuccess : simtErrorNotReady;
}

simtError_t simtEventElapsedTime(float* ms, simtEvent_t start, simtEvent_t end) noexcept {
    if (ms == nullptr) return record(simtErrorInvalidValue);
    if (start == nullptr || end == nullptr) return record(simtErrorInvalidResourceHandle);
    if (faulted()) return record(simtErrorLaunchFailure);
    double begin = 0;
    double finish = 0;
    for (auto [event, when] : {std::pair{start, &begin}, std::pair{end, &finish}}) {
        std::lock_guard<std::mutex> lock(event->state->mutex);
        if (event->state->recorded == 0) return record(simtErrorInvalidResourceHandle);
        if (event->state->completed < event->state->recorded) return simtErrorNotReady;
        *when = event->state->completed_ms;
    }
    *ms = static_cast<float>(finish - begin);
    return simtSuccess;
}

namespace gpucore::simt {

simtError_t launch_grid(std::function<void()> body, dim3 grid, dim3 block, std::size_t shared_bytes,
                        simtStream_t stream) noexcept {
    const unsigned long long threads =
        static_cast<unsigned long long>(block.x) * block.y * block.z;
    const bool shape_ok = grid.x > 0 && grid.y > 0 && grid.z > 0 && grid.y <= 65535 &&
                          grid.z <= 65535 && threads > 0 && threads <= 1024 && block.z <= 64;
    // Dynamic shared memory is not modelled: kernels that need it (the CUDA-only bulk copy) never
    // run here.
    if (!shape_ok || shared_bytes != 0) return record(simtErrorInvalidConfiguration);
    if (stream == nullptr) return record(simtErrorInvalidResourceHandle);
    if (faulted()) return record(simtErrorLaunchFailure);
    try {
        stream->enqueue([body = std::move(body), grid, block] {
            if (faulted()) return; // nothing runs on a faulted device
            const std::string fault = run_grid(body, grid, block);
            if (!fault.empty()) set_fault(fault);
        });
    } catch (...) {
        return record(simtErrorMemoryAllocation);
    }
    return simtSuccess;
}

} // namespace gpucore::simt

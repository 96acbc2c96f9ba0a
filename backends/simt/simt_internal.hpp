// SPDX-License-Identifier: Apache-2.0
// State shared by the simt runtime's parts: the per-thread last error, the device's sticky fault,
// the streams' in-order executors and the worker threads that run blocks.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "simt_runtime.hpp"

namespace gpucore::simt {

// Records `err` as this thread's last error (unless success) and returns it.
simtError_t record(simtError_t err) noexcept;

// A kernel fault: the device is unusable until simtDeviceReset. The first fault's text is kept.
void set_fault(const std::string& text) noexcept;
bool faulted() noexcept;

// The device's "multiprocessors": worker threads that run the blocks of grids.
int worker_count() noexcept;
// Runs every block of the grid on the workers and waits for them; "" or the first fault's text.
std::string run_grid(const std::function<void()>& body, dim3 grid, dim3 block);

// True when [p, p + bytes) lies inside one allocation of this runtime.
bool is_runtime_memory(const void* p, std::size_t bytes) noexcept;

} // namespace gpucore::simt

// A stream: its own thread runs the queued work in order.
struct simt_stream {
    simt_stream();
    ~simt_stream(); // waits for the queued work
    simt_stream(const simt_stream&) = delete;
    simt_stream& operator=(const simt_stream&) = delete;

    void enqueue(std::function<void()> work);
    void wait_idle();
    bool idle();

private:
    void run();

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::function<void()>> work_;
    bool busy_ = false;
    bool stopping_ = false;
    std::thread thread_;
};

// An event: the number of the last record (at enqueue) and of the last one completed.
struct simt_event_state {
    std::mutex mutex;
    std::condition_variable completed_changed;
    std::uint64_t recorded = 0;
    std::uint64_t completed = 0;
    double completed_ms = 0; // steady-clock time of the last completion
};
struct simt_event {
    std::shared_ptr<simt_event_state> state = std::make_shared<simt_event_state>();
};

// SPDX-License-Identifier: Apache-2.0
#include "device_work_fence.hpp"

#include <map>
#include <mutex>
#include <utility>

#include "process_fork.hpp"

namespace gpucore::detail {
namespace {

// Events are created once and reused: a wait captures the record current at the time of the wait
// (the contract's stream_wait_event rule), so re-recording a pooled event never disturbs an
// earlier wait, and no event is destroyed while a stream may still wait on it.
class EventPool {
public:
    gpucore_event take(Backend& backend, int device, const char* operation) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            forget_parents_events();
            auto& free = free_[{&backend, device}];
            if (!free.empty()) {
                const gpucore_event event = free.back();
                free.pop_back();
                return event;
            }
        }
        gpucore_event created = nullptr;
        backend.call(operation, device, backend.api().event_create, device, &created);
        return created;
    }

    void give_back(Backend& backend, int device, std::vector<gpucore_event>& events) noexcept {
        try {
            std::lock_guard<std::mutex> lock(mutex_);
            forget_parents_events();
            auto& free = free_[{&backend, device}];
            free.insert(free.end(), events.begin(), events.end());
            events.clear();
        } catch (...) {
            // Out of memory while pooling: destroy them instead.
            for (gpucore_event event : events) {
                gpucore_message ignored;
                ignored.text[0] = '\0';
                backend.invoke("DeviceWorkFence", ignored, backend.api().event_destroy, event);
            }
            events.clear();
        }
    }

private:
    // After fork() the pooled events are the parent's: forgotten, never destroyed here.
    void forget_parents_events() {
        if (generation_ != process_generation()) {
            free_.clear();
            generation_ = process_generation();
        }
    }
    std::mutex mutex_;
    std::map<std::pair<const Backend*, int>, std::vector<gpucore_event>> free_;
    unsigned generation_ = process_generation();
};

EventPool& event_pool() {
    static EventPool* pool = new EventPool(); // used until the process ends, never destroyed
    return *pool;
}

} // namespace

DeviceWorkFence::DeviceWorkFence(Backend& backend, int device, const char* operation)
    : backend_(backend), device_(device) {
    try {
        backend.streams().for_each_known_stream(device, [&](gpucore_stream stream) {
            events_.push_back(event_pool().take(backend, device, operation));
            backend.call(operation, device, backend.api().event_record, events_.back(), stream);
        });
    } catch (...) {
        event_pool().give_back(backend_, device_, events_);
        throw;
    }
}

DeviceWorkFence::~DeviceWorkFence() { event_pool().give_back(backend_, device_, events_); }

void DeviceWorkFence::order_before(gpucore_stream stream, int stream_device, const char* operation) const {
    for (gpucore_event event : events_) {
        backend_.call(operation, stream_device, backend_.api().stream_wait_event, stream, event);
    }
}

void DeviceWorkFence::wait(const char* operation) const {
    for (gpucore_event event : events_) {
        backend_.call(operation, device_, backend_.api().event_synchronize, event);
    }
}

} // namespace gpucore::detail

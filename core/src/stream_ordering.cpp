// SPDX-License-Identifier: Apache-2.0
#include "stream_ordering.hpp"

#include <algorithm>
#include <new>

#include "backend.hpp"
#include "logging.hpp"

namespace gpucore::detail {
namespace {

// Adds `other` up to enqueue count `count` to what `waiter`'s stream waited for (one entry per
// stream; entries of destroyed streams are dropped). Without memory it notes nothing: a later
// blocking call then waits for that work once more, which costs time only.
void note_waited(StreamRecord& waiter, const std::shared_ptr<StreamRecord>& other, std::uint64_t count) noexcept {
    std::lock_guard<std::mutex> lock(waiter.waited_mutex);
    auto& waited = waiter.waited;
    waited.erase(std::remove_if(waited.begin(), waited.end(), [](const auto& entry) { return entry.first.expired(); }),
                 waited.end());
    for (auto& [record, seen] : waited) {
        if (!record.owner_before(other) && !other.owner_before(record)) {
            seen = std::max(seen, count);
            return;
        }
    }
    try {
        waited.emplace_back(other, count);
    } catch (const std::bad_alloc&) {
    }
}

} // namespace

void StreamOrdering::set_device_count(std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) device_states_.push_back(std::make_unique<DeviceState>());
}

StreamOrdering::DeviceState& StreamOrdering::state(int device) {
    return *device_states_.at(static_cast<std::size_t>(device));
}

StreamRecord* StreamOrdering::register_stream(int device, gpucore_stream stream) {
    auto& s = state(device);
    auto record = std::make_shared<StreamRecord>();
    backend_.call("Stream::Stream", device, backend_.api().event_create, device, &record->order_event);
    try {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.live_streams.emplace(stream, record);
    } catch (...) {
        gpucore_message ignored;
        ignored.text[0] = '\0';
        backend_.invoke("Stream::Stream", ignored, backend_.api().event_destroy, record->order_event);
        throw;
    }
    return record.get();
}

gpucore_event StreamOrdering::unregister_stream(int device, gpucore_stream stream) noexcept {
    auto& s = *device_states_[static_cast<std::size_t>(device)];
    std::shared_ptr<StreamRecord> record;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        auto it = s.live_streams.find(stream);
        if (it == s.live_streams.end()) return nullptr;
        record = std::move(it->second);
        s.live_streams.erase(it);
    }
    std::lock_guard<std::mutex> lock(record->mutex);
    if (record->has_pending) {
        // Destructors never throw: a failure nobody synchronized for is logged, as stream_destroy's is.
        try {
            logger().error("Stream::~Stream on {}:{}: queued work failed and the stream was destroyed "
                           "before a synchronize reported it: {}",
                           backend_.name(), device, record->pending_cause);
        } catch (...) {
        }
    }
    return record->order_event;
}

void StreamOrdering::destroy_order_event(gpucore_event event) const noexcept {
    if (event == nullptr) return;
    gpucore_message ignored;
    ignored.text[0] = '\0';
    backend_.invoke("Stream::~Stream", ignored, backend_.api().event_destroy, event);
}

void StreamOrdering::synchronize_locked(StreamRecord& record, int device, gpucore_stream stream,
                                 const char* operation) {
    // What this wait covers, read before it begins: the stream's work enqueued so far, and what the
    // stream was made to wait for.
    const std::uint64_t enqueued = record.enqueued.load(std::memory_order_acquire);
    std::vector<std::pair<std::weak_ptr<StreamRecord>, std::uint64_t>> waited;
    {
        std::lock_guard<std::mutex> lock(record.waited_mutex);
        waited.swap(record.waited);
    }
    std::string later_cause;
    ErrorCode later_code = ErrorCode::device_error;
    bool later = false;
    try {
        backend_.call(operation, device, backend_.api().stream_synchronize, stream);
    } catch (const Error& e) {
        later = true;
        later_code = e.code();
        later_cause = e.cause();
    }
    if (record.has_pending) {
        record.has_pending = false;
        std::string cause = std::move(record.pending_cause);
        if (cause.empty()) cause = "queued work failed (its message was lost: out of memory while keeping it)";
        if (later) cause += "; then: " + later_cause;
        throw Error(record.pending_code, operation, backend_.name(), device, std::move(cause));
    }
    if (later) throw Error(later_code, operation, backend_.name(), device, std::move(later_cause));
    note_finished(record, enqueued);
    for (const auto& [other, count] : waited) {
        if (const auto alive = other.lock()) note_finished(*alive, count);
    }
}

void StreamOrdering::synchronize_stream(int device, gpucore_stream stream, const char* operation) {
    auto& s = state(device);
    std::shared_ptr<StreamRecord> record;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        auto it = s.live_streams.find(stream);
        if (it != s.live_streams.end()) record = it->second;
    }
    if (record == nullptr) { // not a stream of ours: nothing can have been set aside for it
        backend_.call(operation, device, backend_.api().stream_synchronize, stream);
        return;
    }
    std::lock_guard<std::mutex> lock(record->mutex);
    synchronize_locked(*record, device, stream, operation);
}

void StreamOrdering::synchronize_known_streams(int device) noexcept {
    auto& s = *device_states_[static_cast<std::size_t>(device)];
    std::lock_guard<std::mutex> registry_lock(s.mutex);
    auto wait_for = [&](gpucore_stream stream, StreamRecord& record) {
        std::lock_guard<std::mutex> lock(record.mutex);
        gpucore_message message;
        message.text[0] = '\0';
        const gpucore_status status =
            backend_.invoke("stream_synchronize", message, backend_.api().stream_synchronize, stream);
        if (status == GPUCORE_OK || record.has_pending) return; // the first failure is the one kept
        try {
            const Error error = error_from_status(status, message, "", backend_.name(), device);
            record.pending_code = error.code();
            record.pending_cause = error.cause();
            record.has_pending = true;
        } catch (...) {
            // Out of memory while keeping the text: the failure is still not lost.
            record.pending_code = ErrorCode::device_error;
            record.pending_cause.clear();
            record.has_pending = true;
        }
    };
    for (auto& [stream, record] : s.live_streams) wait_for(stream, *record);
    if (s.internal.handle != nullptr) wait_for(s.internal.handle, *s.internal.record);
}

void StreamOrdering::wait_for_streams_locked(DeviceState& s, int device, gpucore_stream target, StreamRecord* waiter,
                                      const char* operation) {
    for (auto& [stream, record] : s.live_streams) {
        if (stream == target) continue; // its own work is in order already
        const std::uint64_t enqueued = record->enqueued.load(std::memory_order_acquire);
        const bool unseen_work = record->native_handle_taken.load(std::memory_order_acquire) ||
                                 enqueued != record->ordered.load(std::memory_order_acquire);
        if (!unseen_work) continue;
        // Recording captures every enqueue counted so far (each is counted after it returned).
        backend_.call(operation, device, backend_.api().event_record, record->order_event, stream);
        backend_.call(operation, device, backend_.api().stream_wait_event, target, record->order_event);
        if (waiter != nullptr) note_waited(*waiter, record, enqueued);
    }
}

StreamOrdering::InternalStream StreamOrdering::order_internal_stream(DeviceState& s, int device, const char* operation) {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.internal.handle == nullptr) {
        auto record = std::make_shared<StreamRecord>();
        gpucore_stream created = nullptr;
        backend_.call(operation, device, backend_.api().stream_create, device, &created);
        // Never destroyed: lives as long as the backend (the process).
        s.internal = InternalStream{created, std::move(record)};
    }
    wait_for_streams_locked(s, device, s.internal.handle, s.internal.record.get(), operation);
    return s.internal;
}

void StreamOrdering::order_after_other_streams(int device, gpucore_stream target, const char* operation) {
    auto& s = state(device);
    std::lock_guard<std::mutex> lock(s.mutex);
    const auto found = s.live_streams.find(target);
    wait_for_streams_locked(s, device, target, found != s.live_streams.end() ? found->second.get() : nullptr,
                            operation);
}

void* StreamOrdering::native_stream_handle(int device, gpucore_stream stream, StreamRecord& record,
                                    const char* operation) const {
    const auto slot = backend_.optional_slot(&gpucore_plugin_api::stream_native_handle, operation, device);
    void* handle = nullptr;
    backend_.call(operation, device, slot, stream, &handle);
    record.native_handle_taken.store(true, std::memory_order_release);
    return handle;
}

void StreamOrdering::forget_inherited_streams() noexcept {
    for (auto& s : device_states_) {
        // The parent's state may hold locks of threads that do not exist here, and streams whose
        // workers are gone: start afresh in place, without running destructors (that would touch
        // those locks and streams) and without allocating. What the old state held is leaked.
        new (s.get()) DeviceState();
    }
}

} // namespace gpucore::detail

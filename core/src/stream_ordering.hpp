// SPDX-License-Identifier: Apache-2.0
// detail::StreamOrdering: the streams the core knows of on each device of one backend, and the
// ordering of blocking calls after the work queued on them (the legacy default stream's rule).
// It reaches the plugin only through its Backend's slot calls (backend.hpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpucore/buffer.hpp"
#include "gpucore/error.hpp"
#include "gpucore/plugin.h"

namespace gpucore::detail {

class Backend;

// Where a blocking call's value goes: `device` memory that the work writes, and the pinned `host`
// memory it is copied to (null where the device has no pinned memory or its allocation failed: the
// copy then goes to the caller's memory directly).
struct ResultCellMemory {
    Allocation device;
    Allocation host;
};

// What the core knows of one stream of a device (a user's Stream, or the internal stream that
// blocking calls use).
struct StreamRecord {
    // A failure set aside for the owner by an internal wait, and the lock that every synchronize
    // the core issues on the stream holds.
    std::mutex mutex;
    bool has_pending = false;
    ErrorCode pending_code = ErrorCode::device_error;
    std::string pending_cause;

    // Ordering of blocking calls. `enqueued` counts the core's enqueues on the stream (bumped after
    // each one returns); `ordered` counts those known to have finished, as a completed blocking
    // call or synchronize saw them (note_finished; it only grows). The stream may hold work no
    // blocking call has waited for while they differ, or once its native handle has been handed
    // out (work the core cannot see).
    std::atomic<std::uint64_t> enqueued{0};
    std::atomic<std::uint64_t> ordered{0};
    std::atomic<bool> native_handle_taken{false};
    // The other streams' work this stream was made to wait for (each stream's record and its
    // `enqueued` count then). The stream's next synchronize that succeeds has seen that work finish
    // and marks it `ordered`, as its own work up to the count read before it began.
    std::mutex waited_mutex;
    std::vector<std::pair<std::weak_ptr<StreamRecord>, std::uint64_t>> waited;
    // Recorded on the stream by blocking calls, so they can wait for its work without waiting for
    // the stream (and without consuming a failure of that work). Owned by the registry.
    gpucore_event order_event = nullptr;

    // The memory of the blocking reduce's value on this stream (result_cell.hpp), held by one call
    // at a time. Stream's destructor takes it out before the record is forgotten.
    std::mutex result_cell_mutex;
    ResultCellMemory result_cell;
    bool result_cell_in_use = false;
};

// Notes that the core has just enqueued work on the stream of `record` (after the enqueue
// returned, successfully or not): the next blocking call on the device waits for it.
inline void note_enqueued(StreamRecord& record) noexcept {
    record.enqueued.fetch_add(1, std::memory_order_release);
}

// Notes that the work of `record`'s stream up to enqueue count `count` has finished: blocking calls
// need not wait for it. Never lowers the count (a concurrent call may have seen more finish).
inline void note_finished(StreamRecord& record, std::uint64_t count) noexcept {
    std::uint64_t seen = record.ordered.load(std::memory_order_relaxed);
    while (seen < count &&
           !record.ordered.compare_exchange_weak(seen, count, std::memory_order_release, std::memory_order_relaxed)) {
    }
}

// The streams of each device of one backend (deallocation synchronizes them first).
//
// A failure of queued work belongs to the stream it was queued on: it surfaces at the next
// Stream::synchronize of THAT stream, exactly once. The core itself synchronizes streams it
// does not own for the caller (before freeing memory); a failure such a wait receives is set
// aside in the stream's record and re-raised by the owner's next synchronize_stream. Every
// synchronize the core issues on a known stream holds the stream's record lock, so a failure
// is never reported to one waiter while another receives "success" for the same work.
//
// Lock order: a device's ordering lock, then its registry lock, then a stream's record lock; a
// record's waited_mutex is taken last, and nothing is taken while it is held.
class StreamOrdering {
public:
    // Calls `backend`'s slots; holds no device until set_device_count.
    explicit StreamOrdering(const Backend& backend) noexcept : backend_(backend) {}
    StreamOrdering(const StreamOrdering&) = delete;
    StreamOrdering& operator=(const StreamOrdering&) = delete;

    // Creates the (empty) state of devices 0 .. count-1. Called once, before any other member.
    void set_device_count(std::size_t count);

    // Registers `stream` (creating the event blocking calls record on it) and returns its record,
    // which lives until unregister_stream.
    StreamRecord* register_stream(int device, gpucore_stream stream);
    // Forgets `stream` (no blocking call reaches it afterwards); logs a failure that was set aside
    // for it and never reported. Returns its order event, for destroy_order_event once the stream
    // is destroyed (its work, the event's records included, has finished then).
    gpucore_event unregister_stream(int device, gpucore_stream stream) noexcept;
    void destroy_order_event(gpucore_event event) const noexcept;
    // Waits for `stream` on behalf of its owner and throws Error(operation) for the first failure of
    // its queued work since the last such call, including one set aside by an internal wait.
    void synchronize_stream(int device, gpucore_stream stream, const char* operation);
    // Waits for every known stream of `device`, including the internal one, without consuming any
    // failure: each is set aside for its stream's owner. Never throws. Holds the device's registry
    // lock meanwhile, so no stream can be destroyed under it.
    void synchronize_known_streams(int device) noexcept;
    // Makes work enqueued on `target` (a stream of `device`) after this call wait for the work
    // enqueued on the device's other streams so far: records their events and makes `target` wait
    // for them, without waiting on the host. Streams whose work is known to have finished (a
    // blocking call or a synchronize saw it) are skipped; `target`'s next successful synchronize
    // marks what it waited for here as finished.
    void order_after_other_streams(int device, gpucore_stream target, const char* operation);
    // Calls visit(stream) for every known stream of `device`, the internal one included, under the
    // device's registry lock (no stream is destroyed meanwhile). `visit` may enqueue on the stream
    // (record an event) but must not call back into this registry. Exceptions propagate.
    template <class Visit>
    void for_each_known_stream(int device, Visit&& visit) {
        auto& s = state(device);
        std::lock_guard<std::mutex> lock(s.mutex);
        for (auto& entry : s.live_streams) visit(entry.first);
        if (s.internal.handle != nullptr) visit(s.internal.handle);
    }
    // Runs a blocking operation on the device's internal stream (created on first use): orders the
    // internal stream after the work enqueued so far on every stream of the device (the legacy
    // default stream's rule), calls enqueue(stream), then waits for the internal stream only and
    // throws Error(operation) for a failure of that work. A failure of the other streams' work
    // stays with them. Blocking operations of several threads take turns, so each one receives its
    // own failure.
    template <class Enqueue>
    void run_blocking(int device, const char* operation, Enqueue&& enqueue) {
        DeviceState& s = state(device);
        std::lock_guard<std::mutex> ordering(s.ordering_mutex);
        const InternalStream internal = order_internal_stream(s, device, operation);
        std::lock_guard<std::mutex> lock(internal.record->mutex);
        enqueue(internal.handle);
        // Its success also marks the other streams' work it waited for as finished.
        synchronize_locked(*internal.record, device, internal.handle, operation);
    }
    // Hands out the vendor handle of `stream` (the stream_native_handle slot); from then on every
    // blocking call waits for the stream, as work may reach it that the core does not see.
    void* native_stream_handle(int device, gpucore_stream stream, StreamRecord& record,
                               const char* operation) const;

    // After fork(), in the child: the parent's streams (and their worker threads) do not exist
    // here. Forgets them and the internal streams, so the child's own objects start afresh.
    void forget_inherited_streams() noexcept;

private:
    struct InternalStream {
        gpucore_stream handle;
        std::shared_ptr<StreamRecord> record;
    };
    struct DeviceState {
        // Held by a blocking call on the internal stream from its ordering point until its work has
        // finished: such calls take turns, so each one receives its own failure.
        std::mutex ordering_mutex;
        // The registry lock.
        std::mutex mutex;
        std::unordered_map<gpucore_stream, std::shared_ptr<StreamRecord>> live_streams;
        InternalStream internal{nullptr, nullptr};
    };
    DeviceState& state(int device);
    // The internal stream, created on first use and ordered after the work enqueued so far on the
    // device's other streams. The caller holds s.ordering_mutex.
    InternalStream order_internal_stream(DeviceState& s, int device, const char* operation);
    // Records the order event of every stream of s (but `target`) that may hold work no blocking
    // call has waited for and makes `target` wait for it, listing each in the `waited` list of
    // `waiter` (target's record; nullptr when target is not a known stream), whose next successful
    // synchronize marks that work finished. The caller holds s.mutex.
    void wait_for_streams_locked(DeviceState& s, int device, gpucore_stream target, StreamRecord* waiter,
                                 const char* operation);
    // Waits for `stream` (the caller holds record.mutex) and throws the first failure of its work:
    // the one set aside earlier, with a later one the plugin reports appended to its cause. When it
    // succeeds, notes as finished the stream's own work enqueued before it began and the work it
    // was made to wait for (record.waited).
    void synchronize_locked(StreamRecord& record, int device, gpucore_stream stream,
                            const char* operation);

    const Backend& backend_;
    std::vector<std::unique_ptr<DeviceState>> device_states_;
};

} // namespace gpucore::detail

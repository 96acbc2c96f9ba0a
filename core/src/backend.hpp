// SPDX-License-Identifier: Apache-2.0
// detail::Backend: one registered backend (the built-in cpu backend or a loaded plugin), its
// devices, and the one place where a plugin slot's status + message becomes a gpucore::Error.
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

#include "gpucore/device.hpp"
#include "gpucore/error.hpp"
#include "gpucore/plugin.h"

namespace gpucore::detail {

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
    // each one returns); `ordered` is the count a completed blocking call has waited for (written
    // under the device's ordering lock). The stream may hold work no blocking call has waited for
    // while they differ, or once its native handle has been handed out (work the core cannot see).
    std::atomic<std::uint64_t> enqueued{0};
    std::atomic<std::uint64_t> ordered{0};
    std::atomic<bool> native_handle_taken{false};
    // Recorded on the stream by blocking calls, so they can wait for its work without waiting for
    // the stream (and without consuming a failure of that work). Owned by the registry.
    gpucore_event order_event = nullptr;
};

// Notes that the core has just enqueued work on the stream of `record` (after the enqueue
// returned, successfully or not): the next blocking call on the device waits for it.
inline void note_enqueued(StreamRecord& record) noexcept {
    record.enqueued.fetch_add(1, std::memory_order_release);
}

// The gpucore::Error for a failed slot: the status mapped to an ErrorCode, the plugin's message
// as the cause (or "<slot> failed without a message"). Status values outside the enum become
// plugin_error.
Error error_from_status(gpucore_status status, const gpucore_message& message,
                        const std::string& operation, const std::string& backend, int device);

// The most devices one backend may report; a larger device_count is a plugin bug, refused before
// anything is allocated for it.
inline constexpr int max_devices_per_backend = 4096;

// The longest version string read from a plugin's table (longer ones are cut).
inline constexpr std::size_t max_version_length = 255;

class Backend {
public:
    // `table` must have passed validate_plugin_table(); `source` is "built-in" or the file path.
    // Backends live until the process ends (the runtime never destroys them).
    Backend(const gpucore_plugin_api* table, std::string source);
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;

    // Calls init (with the host services), device_count and device_properties for each device.
    // Any failure (a status, a thrown exception, a count above max_devices_per_backend) makes the
    // backend unusable with the reason recorded; never throws (except std::bad_alloc). Called once,
    // by the runtime, before the backend is published.
    void initialise();

    const std::string& name() const noexcept { return name_; }
    const std::string& source() const noexcept { return source_; }
    const std::string& version() const noexcept { return version_; }
    bool initialised() const noexcept { return initialised_; }
    int device_count() const noexcept { return static_cast<int>(properties_.size()); }
    bool usable() const noexcept { return initialised_ && !properties_.empty() && !broken(); }
    // Why the backend is unusable or has no device; empty when it is usable.
    const std::string& reason() const noexcept { return broken() ? broken_reason_ : reason_; }
    const DeviceProperties& properties(int device) const { return properties_.at(static_cast<std::size_t>(device)); }
    // The backend's table, as long as this core's: slots beyond the plugin's struct_size are NULL.
    const gpucore_plugin_api& api() const noexcept { return *table_; }
    // The ABI minor the plugin was built with (enum values of later minors are never sent to it).
    std::uint32_t abi_minor() const noexcept { return table_->abi_minor; }

    // The optional slot `member` (an operation, or a slot added after ABI 1.0), or
    // Error(not_supported) naming `operation`, this backend and `device` when the plugin's table
    // ends before it (built against an older minor) or leaves it NULL. The one place that decides
    // whether an optional slot is available.
    template <class Slot>
    Slot optional_slot(Slot gpucore_plugin_api::*member, const char* operation, int device) const {
        const Slot slot = table_->*member;
        if (slot == nullptr) {
            const auto offset = static_cast<std::size_t>(reinterpret_cast<const char*>(&(table_->*member)) -
                                                         reinterpret_cast<const char*>(table_));
            throw_missing_slot(operation, device, offset >= plugin_struct_size_);
        }
        return slot;
    }

    // Calls `slot(args..., &message)` through invoke() and throws the Error naming `operation`,
    // this backend and `device` when it does not return GPUCORE_OK. On a backend made unusable by
    // an exception, throws plugin_error without calling the plugin.
    template <class Slot, class... Args>
    void call(const char* operation, int device, Slot slot, Args... args) const {
        if (broken()) throw unusable_error(operation, device);
        gpucore_message message;
        message.text[0] = '\0';
        const gpucore_status status = invoke(operation, message, slot, args...);
        if (status != GPUCORE_OK) throw error_from_status(status, message, operation, name_, device);
    }

    // The one way the core calls a slot: a C++ exception escaping the plugin stops here, becomes
    // GPUCORE_ERROR_PLUGIN with its description in `message`, and makes the backend unusable (once,
    // with a reason naming its file). Calls the slot even on an unusable backend, so that releases
    // (deallocate, stream_destroy, event_destroy) still release. Never throws.
    template <class Slot, class... Args>
    gpucore_status invoke(const char* operation, gpucore_message& message, Slot slot, Args... args) const noexcept {
        try {
            return slot(args..., &message);
        } catch (...) {
            plugin_threw(operation, message);
            return GPUCORE_ERROR_PLUGIN;
        }
    }
    // True once a slot has thrown: the backend is unusable for the rest of the process.
    bool broken() const noexcept { return broken_.load(std::memory_order_acquire); }

    // ---- streams the runtime knows of, per device (deallocation synchronizes them first) ----
    //
    // A failure of queued work belongs to the stream it was queued on: it surfaces at the next
    // Stream::synchronize of THAT stream, exactly once. The core itself synchronizes streams it
    // does not own for the caller (before freeing memory); a failure such a wait receives is set
    // aside in the stream's record and re-raised by the owner's next synchronize_stream. Every
    // synchronize the core issues on a known stream holds the stream's record lock, so a failure
    // is never reported to one waiter while another receives "success" for the same work.
    //
    // Lock order: a device's ordering lock, then its registry lock, then a stream's record lock.

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
    // for them, without waiting on the host. Streams with no new work since the last blocking call
    // are skipped.
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
        synchronize_locked(*internal.record, device, internal.handle, operation);
        // Every stream's work captured above has finished: later blocking calls need not wait for it.
        for (const auto& [record, count] : s.captured) record->ordered.store(count, std::memory_order_release);
        s.captured.clear();
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
    [[noreturn]] void throw_missing_slot(const char* operation, int device, bool beyond_table) const;

    struct DeviceState {
        // Held by a blocking call from its ordering point until its work has finished, so a
        // stream's `ordered` count only ever names work that has finished.
        std::mutex ordering_mutex;
        // The registry lock.
        std::mutex mutex;
        std::unordered_map<gpucore_stream, std::shared_ptr<StreamRecord>> live_streams;
        InternalStream internal{nullptr, nullptr};
        // The streams the current blocking call waits for, with their enqueue counts then
        // (guarded by ordering_mutex; kept to reuse its storage).
        std::vector<std::pair<std::shared_ptr<StreamRecord>, std::uint64_t>> captured;
    };
    DeviceState& state(int device);
    // The internal stream, created on first use and ordered after the work enqueued so far on the
    // device's other streams; fills s.captured. The caller holds s.ordering_mutex.
    InternalStream order_internal_stream(DeviceState& s, int device, const char* operation);
    // Records the order event of every stream of s (but `target`) that may hold work no blocking
    // call has waited for and makes `target` wait for it; with `capture`, lists them in s.captured.
    // The caller holds s.mutex.
    void wait_for_streams_locked(DeviceState& s, int device, gpucore_stream target, bool capture,
                                 const char* operation);
    void plugin_threw(const char* operation, gpucore_message& message) const noexcept;
    Error unusable_error(const char* operation, int device) const;
    // Waits for `stream` (the caller holds record.mutex) and throws the first failure of its work:
    // the one set aside earlier, with a later one the plugin reports appended to its cause.
    void synchronize_locked(StreamRecord& record, int device, gpucore_stream stream,
                            const char* operation);

    const gpucore_plugin_api* table_; // points at full_table_
    gpucore_plugin_api full_table_{};  // the plugin's struct_size bytes, the rest zero (NULL slots)
    std::size_t plugin_struct_size_ = 0;
    std::string name_;
    std::string source_;
    std::string version_;
    bool initialised_ = false;
    std::string reason_;
    std::vector<DeviceProperties> properties_;
    std::vector<std::unique_ptr<DeviceState>> device_states_;
    // Set once, under broken_mutex_, before broken_ becomes true; never changed afterwards.
    mutable std::mutex broken_mutex_;
    mutable std::atomic<bool> broken_{false};
    mutable std::string broken_reason_;
};

} // namespace gpucore::detail

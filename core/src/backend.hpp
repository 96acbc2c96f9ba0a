// SPDX-License-Identifier: Apache-2.0
// detail::Backend: one registered backend (the built-in cpu backend or a loaded plugin), its
// devices, and the one place where the core calls a plugin slot and a slot's status + message
// becomes a gpucore::Error. The streams the core orders live beside it (stream_ordering.hpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "gpucore/device.hpp"
#include "gpucore/error.hpp"
#include "gpucore/plugin.h"
#include "stream_ordering.hpp"

namespace gpucore::detail {

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

    // The streams of each device and the ordering of blocking calls after their work.
    StreamOrdering& streams() noexcept { return streams_; }

private:
    [[noreturn]] void throw_missing_slot(const char* operation, int device, bool beyond_table) const;

    void plugin_threw(const char* operation, gpucore_message& message) const noexcept;
    Error unusable_error(const char* operation, int device) const;

    const gpucore_plugin_api* table_; // points at full_table_
    gpucore_plugin_api full_table_{};  // the plugin's struct_size bytes, the rest zero (NULL slots)
    std::size_t plugin_struct_size_ = 0;
    std::string name_;
    std::string source_;
    std::string version_;
    bool initialised_ = false;
    std::string reason_;
    std::vector<DeviceProperties> properties_;
    StreamOrdering streams_{*this};
    // Set once, under broken_mutex_, before broken_ becomes true; never changed afterwards.
    mutable std::mutex broken_mutex_;
    mutable std::atomic<bool> broken_{false};
    mutable std::string broken_reason_;
};

} // namespace gpucore::detail

// detail::Backend: one registered backend (the built-in cpu backend or a loaded plugin), its
// devices, and the one place where a plugin slot's status + message becomes a gpucore::Error.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "gpucore/device.hpp"
#include "gpucore/error.hpp"
#include "gpucore/plugin.h"

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
    const gpucore_plugin_api& api() const noexcept { return *table_; }

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
    void register_stream(int device, gpucore_stream stream);
    void unregister_stream(int device, gpucore_stream stream) noexcept;
    // Synchronizes every known stream of `device`, including the internal one. Throws the first
    // error (after trying all). Holds the device's registry lock while doing so, so no stream can be
    // destroyed under it.
    void synchronize_known_streams(int device, const char* operation);
    // The stream blocking copies use on `device`, created on first use (thread-safe).
    gpucore_stream internal_stream(int device);

private:
    struct DeviceState {
        std::mutex mutex;
        std::vector<gpucore_stream> live_streams;
        gpucore_stream internal = nullptr;
    };
    DeviceState& state(int device);
    void plugin_threw(const char* operation, gpucore_message& message) const noexcept;
    Error unusable_error(const char* operation, int device) const;

    const gpucore_plugin_api* table_;
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

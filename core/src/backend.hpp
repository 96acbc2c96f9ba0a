// detail::Backend: one registered backend (the built-in cpu backend or a loaded plugin), its
// devices, and the one place where a plugin slot's status + message becomes a gpucore::Error.
#pragma once

#include <cstddef>
#include <cstdint>
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

class Backend {
public:
    // `table` must have passed validate_plugin_table(); `source` is "built-in" or the file path.
    // Backends live until the process ends (the runtime never destroys them).
    Backend(const gpucore_plugin_api* table, std::string source);
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;

    // Calls init (with the host services), device_count and device_properties for each device.
    // Any failure makes the backend unusable with the reason recorded; never throws (except
    // std::bad_alloc). Called once, by the runtime, before the backend is published.
    void initialise();

    const std::string& name() const noexcept { return name_; }
    const std::string& source() const noexcept { return source_; }
    const std::string& version() const noexcept { return version_; }
    bool initialised() const noexcept { return initialised_; }
    int device_count() const noexcept { return static_cast<int>(properties_.size()); }
    bool usable() const noexcept { return initialised_ && !properties_.empty(); }
    // Why the backend is unusable or has no device; empty when it is usable.
    const std::string& reason() const noexcept { return reason_; }
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

    // Calls `slot(args..., &message)` and throws the Error naming `operation`, this backend and
    // `device` when it does not return GPUCORE_OK. Plugins are C: nothing can be thrown by them.
    template <class Slot, class... Args>
    void call(const char* operation, int device, Slot slot, Args... args) const {
        gpucore_message message;
        message.text[0] = '\0';
        const gpucore_status status = slot(args..., &message);
        if (status != GPUCORE_OK) throw error_from_status(status, message, operation, name_, device);
    }

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
    [[noreturn]] void throw_missing_slot(const char* operation, int device, bool beyond_table) const;

    struct DeviceState {
        std::mutex mutex;
        std::vector<gpucore_stream> live_streams;
        gpucore_stream internal = nullptr;
    };
    DeviceState& state(int device);

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
};

} // namespace gpucore::detail

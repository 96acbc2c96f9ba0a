// SPDX-License-Identifier: Apache-2.0
// The plugin's process-wide state: the host services from init, the devices found (properties,
// launch shape, scratch pool) and, per device, whether a sticky error has made it unusable.
// Built once by init (before any other slot runs), read-only afterwards except the atomics and
// the pools, so every slot may run concurrently.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "device_shape.hpp"
#include "gpucore/plugin.h"
#include "gpucore/plugin_support.hpp"
#include "scratch_pool.hpp"

namespace gpucore::gpu {

struct DeviceRecord {
    gpucore_device_properties properties{};
    DeviceShape shape;
    ScratchPool scratch;
    std::atomic<bool> lost{false};
    std::mutex lost_mutex;
    std::string lost_reason; // guarded by lost_mutex; set once
};

struct PluginState {
    plugin::HostServices host; // what init received (copied by struct_size)
    std::string no_device_reason; // why device_count is 0
    std::vector<std::unique_ptr<DeviceRecord>> devices;
};

// The one state object. Never destroyed: its pools are freed by shutdown, not by a static
// destructor that could run after the vendor runtime has been torn down at exit.
PluginState& plugin_state();

// The device record for a valid index (the core validates indices).
DeviceRecord& device_record(int device);

// Throws GpuError(DEVICE) when an earlier sticky error made `device` unusable.
void ensure_usable(int device);
// Records the first sticky error of `device`; later calls report it.
void mark_lost(int device, const std::string& reason) noexcept;

// Sends a message through the core's logger when its level is enabled. Never throws.
void log_message(gpucore_log_level level, const std::string& text) noexcept;

// Makes `device` current on this thread for the scope, restoring the previous one after.
class DeviceScope {
public:
    explicit DeviceScope(int device);
    ~DeviceScope();
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    int previous_ = -1;
};

} // namespace gpucore::gpu

// SPDX-License-Identifier: Apache-2.0
#include "plugin_state.hpp"

#include "gpu_error.hpp"

namespace gpucore::gpu {

PluginState& plugin_state() {
    static PluginState* state = new PluginState(); // intentionally leaked, see header
    return *state;
}

DeviceRecord& device_record(int device) {
    return *plugin_state().devices.at(static_cast<std::size_t>(device));
}

void ensure_usable(int device) {
    DeviceRecord& record = device_record(device);
    if (!record.lost.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(record.lost_mutex);
    throw GpuError(GPUCORE_ERROR_DEVICE,
                   "device unusable after an earlier fatal error (restart the process): " +
                       record.lost_reason,
                   true);
}

void mark_lost(int device, const std::string& reason) noexcept {
    PluginState& state = plugin_state();
    if (device < 0 || static_cast<std::size_t>(device) >= state.devices.size()) return;
    DeviceRecord& record = *state.devices[static_cast<std::size_t>(device)];
    try {
        std::lock_guard<std::mutex> lock(record.lost_mutex);
        if (record.lost.load(std::memory_order_relaxed)) return;
        record.lost_reason = reason;
        record.lost.store(true, std::memory_order_release);
    } catch (...) {
        record.lost.store(true, std::memory_order_release);
    }
    log_message(GPUCORE_LOG_ERROR, std::string(GPUCORE_GPU_BACKEND_NAME ":") +
                                       std::to_string(device) + " lost: " + reason);
}

void log_message(gpucore_log_level level, const std::string& text) noexcept {
    plugin_state().host.log(level, text);
}

DeviceScope::DeviceScope(int device) {
    int current = -1;
    GPUCORE_GPU_CHECK(gpuGetDevice(&current));
    if (current != device) {
        GPUCORE_GPU_CHECK(gpuSetDevice(device));
        previous_ = current;
    }
}

DeviceScope::~DeviceScope() {
    if (previous_ >= 0) (void)gpuSetDevice(previous_);
}

} // namespace gpucore::gpu

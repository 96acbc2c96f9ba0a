// SPDX-License-Identifier: Apache-2.0
// Slots: init, shutdown, device_count, device_properties.
#include <algorithm>
#include <cstring>
#include <string>

#include "gpu_error.hpp"
#include "plugin_state.hpp"
#include "plugin_table.hpp"
#include "slot_guard.hpp"

namespace gpucore::gpu {
namespace {

int attribute(gpuDeviceAttr_t attr, int device) {
    int value = 0;
    GPUCORE_GPU_CHECK(gpuDeviceGetAttribute(&value, attr, device));
    return value;
}

// Reads everything the core and the launchers need about `device`. CUDA 13 dropped the memory
// clock and bus width from the properties struct: they come from attributes.
std::unique_ptr<DeviceRecord> describe_device(int device) {
    auto record = std::make_unique<DeviceRecord>();
    gpuDeviceProp_t props{};
    GPUCORE_GPU_CHECK(gpuGetDeviceProperties(&props, device));
    gpucore_device_properties& out = record->properties;
    out.struct_size = sizeof(gpucore_device_properties);
    std::snprintf(out.name, sizeof out.name, "%s", props.name);
    std::snprintf(out.vendor, sizeof out.vendor, "%s", GPUCORE_GPU_VENDOR_NAME);
    format_architecture(props, out.architecture, sizeof out.architecture);
    out.total_memory_bytes = props.totalGlobalMem;
    record->shape.ordinal = device;
    record->shape.sm_count = attribute(gpuDevAttrMultiProcessorCount, device);
    record->shape.warp_size = attribute(gpuDevAttrWarpSize, device);
    record->shape.max_threads_per_sm = attribute(gpuDevAttrMaxThreadsPerMultiProcessor, device);
    out.compute_units = static_cast<uint32_t>(record->shape.sm_count);
    out.warp_size = static_cast<uint32_t>(record->shape.warp_size);
    out.l2_cache_bytes = static_cast<uint64_t>(attribute(gpuDevAttrL2CacheSize, device));
    const double memory_clock_khz = attribute(gpuDevAttrMemoryClockRate, device);
    const double bus_width_bits = attribute(gpuDevAttrGlobalMemoryBusWidth, device);
    // Double data rate: two transfers per clock, bus_width / 8 bytes each.
    out.peak_memory_bandwidth_gbps = 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
    out.supports_pinned_host = 1;
    out.supports_managed = attribute(gpuDevAttrManagedMemory, device) != 0 ? 1u : 0u;
    return record;
}

// Frees every device's pooled stream scratch (idempotent).
void release_scratch() noexcept {
    PluginState& state = plugin_state();
    for (std::size_t i = 0; i < state.devices.size(); ++i) {
        try {
            DeviceScope scope(static_cast<int>(i));
            state.devices[i]->scratch.free_all();
        } catch (...) {
            // A device that cannot be made current keeps its scratch until the process ends.
        }
    }
}

// The core may never call shutdown (the contract allows it), yet the pooled scratch should not
// outlive the process as a leak that memory checkers report. This object is created in init,
// after the runtime's first call, so its destructor runs at exit before the runtime's own
// teardown (destructors run in reverse order of construction).
struct ScratchReleaseAtExit {
    ~ScratchReleaseAtExit() { release_scratch(); }
};

std::string runtime_failure(gpuError_t err, const char* call) {
    return vendor_call_text(call) + ": " + gpuGetErrorString(err) + " (" + gpuGetErrorName(err) + ")";
}

gpucore_status init(const gpucore_host_services* host, gpucore_message* msg) {
    return guarded(msg, -1, [&] {
        PluginState& state = plugin_state();
        state.host.copy_from(host);
        int count = 0;
        const gpuError_t err = gpuGetDeviceCount(&count);
        if (err != gpuSuccess) {
            (void)gpuGetLastError();
            // No driver, an old driver or no device: the plugin works and has 0 devices.
            state.no_device_reason = runtime_failure(err, "gpuGetDeviceCount");
            log_message(GPUCORE_LOG_DEBUG, GPUCORE_GPU_BACKEND_NAME ": 0 devices: " +
                                               state.no_device_reason);
            return;
        }
        if (count == 0) state.no_device_reason = "the " GPUCORE_GPU_RUNTIME_NAME " found no device";
        for (int device = 0; device < count; ++device) {
            state.devices.push_back(describe_device(device));
        }
        static ScratchReleaseAtExit release_at_exit;
        log_message(GPUCORE_LOG_DEBUG, GPUCORE_GPU_BACKEND_NAME ": " + std::to_string(count) +
                                           " device(s)");
    });
}

void shutdown(void) { release_scratch(); }

gpucore_status device_count(int* count, gpucore_message* msg) {
    return guarded(msg, -1, [&] {
        const PluginState& state = plugin_state();
        *count = static_cast<int>(state.devices.size());
        if (*count == 0) write_message(msg, state.no_device_reason.c_str());
    });
}

gpucore_status device_properties(int device, gpucore_device_properties* props,
                                 gpucore_message* msg) {
    return guarded(msg, device, [&] {
        const gpucore_device_properties& mine = device_record(device).properties;
        // Write no further than the core's struct, and keep its struct_size.
        const uint32_t requested = props->struct_size;
        std::memcpy(props, &mine, std::min<std::size_t>(requested, sizeof mine));
        props->struct_size = requested;
    });
}

} // namespace

void fill_device_slots(gpucore_plugin_api& table) noexcept {
    table.init = init;
    table.shutdown = shutdown;
    table.device_count = device_count;
    table.device_properties = device_properties;
}

} // namespace gpucore::gpu

// SPDX-License-Identifier: Apache-2.0
// The plugin's one exported symbol: gpucore_plugin_entry_v1, returning the slot table.
// The same file builds libgpucore-cuda.so and libgpucore-hip.so (names from gpu_vendor.hpp).
#include "gpu_vendor.hpp"
#include "gpucore/plugin.h"
#include "plugin_table.hpp"

namespace {

// The header, then the slots from the files that define them (plugin_table.hpp).
gpucore_plugin_api make_table() noexcept {
    gpucore_plugin_api table{};
    table.abi_major = GPUCORE_PLUGIN_ABI_MAJOR;
    table.abi_minor = GPUCORE_PLUGIN_ABI_MINOR;
    table.struct_size = sizeof(gpucore_plugin_api);
    table.name = GPUCORE_GPU_BACKEND_NAME;
    table.version = "gpucore-" GPUCORE_GPU_BACKEND_NAME " " GPUCORE_PLUGIN_VERSION_STRING
                    " (" GPUCORE_GPU_RUNTIME_NAME " " GPUCORE_GPU_RUNTIME_VERSION_TEXT ")";
    gpucore::gpu::fill_device_slots(table);
    gpucore::gpu::fill_memory_slots(table);
    gpucore::gpu::fill_peer_slots(table);
    gpucore::gpu::fill_stream_slots(table);
    gpucore::gpu::fill_elementwise_slots(table);
    gpucore::gpu::fill_transpose_slots(table);
    gpucore::gpu::fill_reduce_slots(table);
    gpucore::gpu::fill_reduce_rows_slots(table);
    return table;
}

} // namespace

// Cheap and runtime-free, as the contract asks: building the table only stores addresses, and
// init is where the vendor runtime is first used. The first call builds it (a function-local
// static, so concurrent first calls are safe); every call returns the same table.
extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* GPUCORE_PLUGIN_ENTRY(
    gpucore_message* /*msg*/) {
    static const gpucore_plugin_api table = make_table();
    return &table;
}

// SPDX-License-Identifier: Apache-2.0
// The plugin's one exported symbol: gpucore_plugin_entry_v1, returning the static slot table.
// The same file builds libgpucore-cuda.so and libgpucore-hip.so (names from gpu_vendor.hpp).
#include "gpu_vendor.hpp"
#include "gpucore/plugin.h"
#include "plugin_slots.hpp"

namespace {

const gpucore_plugin_api kTable = {
    GPUCORE_PLUGIN_ABI_MAJOR,
    GPUCORE_PLUGIN_ABI_MINOR,
    sizeof(gpucore_plugin_api),
    GPUCORE_GPU_BACKEND_NAME,
    "gpucore-" GPUCORE_GPU_BACKEND_NAME " " GPUCORE_PLUGIN_VERSION_STRING " (" GPUCORE_GPU_RUNTIME_NAME
    " " GPUCORE_GPU_RUNTIME_VERSION_TEXT ")",
    &gpucore::gpu::slots::init,
    &gpucore::gpu::slots::shutdown,
    &gpucore::gpu::slots::device_count,
    &gpucore::gpu::slots::device_properties,
    &gpucore::gpu::slots::allocate,
    &gpucore::gpu::slots::deallocate,
    &gpucore::gpu::slots::stream_create,
    &gpucore::gpu::slots::stream_destroy,
    &gpucore::gpu::slots::stream_synchronize,
    &gpucore::gpu::slots::stream_query,
    &gpucore::gpu::slots::stream_wait_event,
    &gpucore::gpu::slots::event_create,
    &gpucore::gpu::slots::event_destroy,
    &gpucore::gpu::slots::event_record,
    &gpucore::gpu::slots::event_synchronize,
    &gpucore::gpu::slots::event_query,
    &gpucore::gpu::slots::event_elapsed_ms,
    &gpucore::gpu::slots::copy,
    &gpucore::gpu::slots::fill,
    &gpucore::gpu::slots::vector_add,
    &gpucore::gpu::slots::transpose,
    &gpucore::gpu::slots::reduce,
    &gpucore::gpu::slots::reduce_rows,
    &gpucore::gpu::slots::memory_info,
    &gpucore::gpu::slots::stream_native_handle,
    &gpucore::gpu::slots::pointer_device,
    &gpucore::gpu::slots::copy_peer,
};

} // namespace

// Cheap and runtime-free, as the contract asks: init is where the vendor runtime is first used.
extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* GPUCORE_PLUGIN_ENTRY(
    gpucore_message* /*msg*/) {
    return &kTable;
}

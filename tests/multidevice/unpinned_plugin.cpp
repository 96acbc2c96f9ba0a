// SPDX-License-Identifier: Apache-2.0
// A backend without pinned host memory, so that copies between devices show they stage through
// ordinary host memory instead of failing. It is the template plugin (plugins/template) under the
// name GPUCORE_UNPINNED_NAME, whose allocate answers not_supported for pinned host memory. With
// GPUCORE_UNPINNED_CLAIMS_PINNED its device properties still claim pinned memory (a plugin whose
// allocation refuses what its properties promise); without, they say there is none.
#include "gpucore/plugin.h"

// Compile the template's source here with its entry point renamed; ours below wraps its table.
#undef GPUCORE_PLUGIN_ENTRY
#define GPUCORE_PLUGIN_ENTRY gpucore_unpinned_test_template_entry
#define GPUCORE_TEMPLATE_BACKEND_NAME GPUCORE_UNPINNED_NAME
#include "template_plugin.cpp"

namespace {

gpucore_plugin_api g_unpinned;
const gpucore_plugin_api* g_template = nullptr;

gpucore_status unpinned_device_properties(int device, gpucore_device_properties* props, gpucore_message* msg) {
    const gpucore_status status = g_template->device_properties(device, props, msg);
#if defined(GPUCORE_UNPINNED_CLAIMS_PINNED)
    props->supports_pinned_host = 1;
#else
    props->supports_pinned_host = 0;
#endif
    return status;
}

gpucore_status unpinned_allocate(int device, gpucore_memory_kind kind, size_t bytes, void** ptr,
                                 gpucore_message* msg) {
    if (kind == GPUCORE_MEMORY_PINNED_HOST) {
        gpucore::plugin::write_message(msg, GPUCORE_UNPINNED_NAME ": pinned host memory is not supported");
        return GPUCORE_ERROR_NOT_SUPPORTED;
    }
    return g_template->allocate(device, kind, bytes, ptr, msg);
}

} // namespace

static_assert(GPUCORE_PLUGIN_ABI_MAJOR == 1, "rename the entry point below with the ABI major");

extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* gpucore_plugin_entry_v1(gpucore_message* msg) {
    if (g_template == nullptr) { // the core calls the entry once, under its discovery lock
        g_template = gpucore_unpinned_test_template_entry(msg);
        g_unpinned = *g_template;
        g_unpinned.version = GPUCORE_UNPINNED_NAME " 0.1 (the template plugin, without pinned host memory)";
        g_unpinned.device_properties = unpinned_device_properties;
        g_unpinned.allocate = unpinned_allocate;
    }
    return &g_unpinned;
}

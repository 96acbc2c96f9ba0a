// SPDX-License-Identifier: Apache-2.0
// The template plugin (plugins/template) under the name "counting", counting the memory (device
// and pinned host) it allocates and frees and the events it records, for tests of what the core
// does behind a call; it can also refuse pinned memory. A test reaches both through the exported functions below (dlsym
// on the plugin the core loaded).
#include <atomic>

#include "gpucore/plugin.h"

#undef GPUCORE_PLUGIN_ENTRY
#define GPUCORE_PLUGIN_ENTRY gpucore_counting_template_entry
#define GPUCORE_TEMPLATE_BACKEND_NAME "counting"
#include "template_plugin.cpp"

namespace {

gpucore_plugin_api g_counting;
const gpucore_plugin_api* g_inner = nullptr;
std::atomic<unsigned long long> g_allocations{0};
std::atomic<unsigned long long> g_frees{0};
std::atomic<unsigned long long> g_event_records{0};

std::atomic<bool> g_refuse_pinned{false};

gpucore_status counting_allocate(int device, gpucore_memory_kind kind, size_t bytes, void** ptr,
                                 gpucore_message* msg) {
    if (kind == GPUCORE_MEMORY_PINNED_HOST && g_refuse_pinned.load()) {
        gpucore::plugin::write_message(msg, "counting: pinned memory refused on purpose");
        return GPUCORE_ERROR_OUT_OF_MEMORY;
    }
    const gpucore_status status = g_inner->allocate(device, kind, bytes, ptr, msg);
    if (status == GPUCORE_OK) ++g_allocations;
    return status;
}

gpucore_status counting_deallocate(int device, gpucore_memory_kind kind, void* ptr, gpucore_message* msg) {
    if (ptr != nullptr) ++g_frees;
    return g_inner->deallocate(device, kind, ptr, msg);
}

gpucore_status counting_event_record(gpucore_event event, gpucore_stream stream, gpucore_message* msg) {
    ++g_event_records;
    return g_inner->event_record(event, stream, msg);
}

} // namespace

extern "C" GPUCORE_PLUGIN_EXPORT unsigned long long gpucore_counting_allocations(void) {
    return g_allocations.load();
}
extern "C" GPUCORE_PLUGIN_EXPORT unsigned long long gpucore_counting_frees(void) {
    return g_frees.load();
}
extern "C" GPUCORE_PLUGIN_EXPORT unsigned long long gpucore_counting_event_records(void) {
    return g_event_records.load();
}

// Makes allocations of pinned host memory fail (out of memory) while `refuse` is nonzero.
extern "C" GPUCORE_PLUGIN_EXPORT void gpucore_counting_refuse_pinned(int refuse) { g_refuse_pinned.store(refuse != 0); }

static_assert(GPUCORE_PLUGIN_ABI_MAJOR == 1, "rename the entry point below with the ABI major");

extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* gpucore_plugin_entry_v1(gpucore_message* msg) {
    if (g_inner == nullptr) { // the core calls the entry once, during discovery
        g_inner = gpucore_counting_template_entry(msg);
        g_counting = *g_inner;
        g_counting.version = "counting 0.1 (the template plugin, counting its allocations)";
        g_counting.allocate = counting_allocate;
        g_counting.deallocate = counting_deallocate;
        g_counting.event_record = counting_event_record;
    }
    return &g_counting;
}

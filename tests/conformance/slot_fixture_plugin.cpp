// SPDX-License-Identifier: Apache-2.0
// The template plugin (plugins/template) with every optional slot filled, for testing the
// conformance runner itself: built as GPUCORE_SLOT_FIXTURE_NAME, correct, or wrong in one slot on
// purpose (GPUCORE_SLOT_FIXTURE_COPY_PEER_THROWS: copy_peer throws a C++ exception;
// GPUCORE_SLOT_FIXTURE_NATIVE_HANDLE_FAILS: stream_native_handle answers an error). The runner
// must pass the correct one and fail the wrong ones.
#include <cstring>
#include <mutex>
#include <map>
#include <stdexcept>

#include "gpucore/plugin.h"

// Compile the template's source here with its entry point renamed; ours below wraps its table.
#undef GPUCORE_PLUGIN_ENTRY
#define GPUCORE_PLUGIN_ENTRY gpucore_slot_fixture_template_entry
#define GPUCORE_TEMPLATE_BACKEND_NAME GPUCORE_SLOT_FIXTURE_NAME
#include "template_plugin.cpp"

namespace {

gpucore_plugin_api g_slots;
const gpucore_plugin_api* g_template = nullptr;

// Live allocations (start -> bytes), for pointer_device.
std::mutex g_mutex;
std::map<const char*, std::size_t> g_allocations;

gpucore_status slots_allocate(int device, gpucore_memory_kind kind, size_t bytes, void** ptr, gpucore_message* msg) {
    const gpucore_status status = g_template->allocate(device, kind, bytes, ptr, msg);
    if (status == GPUCORE_OK) {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_allocations[static_cast<const char*>(*ptr)] = bytes;
    }
    return status;
}

gpucore_status slots_deallocate(int device, gpucore_memory_kind kind, void* ptr, gpucore_message* msg) {
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_allocations.erase(static_cast<const char*>(ptr));
    }
    return g_template->deallocate(device, kind, ptr, msg);
}

// A nominal size: the template's memory is the host's, of no fixed size.
constexpr uint64_t kNominalBytes = uint64_t{1} << 30;

gpucore_status slots_device_properties(int device, gpucore_device_properties* props, gpucore_message* msg) {
    const gpucore_status status = g_template->device_properties(device, props, msg);
    props->total_memory_bytes = kNominalBytes;
    return status;
}

gpucore_status slots_memory_info(int, uint64_t* free_bytes, uint64_t* total_bytes, gpucore_message*) {
    *total_bytes = kNominalBytes;
    *free_bytes = kNominalBytes / 2;
    return GPUCORE_OK;
}

gpucore_status slots_stream_native_handle(gpucore_stream stream, void** handle, gpucore_message* msg) {
#if defined(GPUCORE_SLOT_FIXTURE_NATIVE_HANDLE_FAILS)
    (void)stream, (void)handle;
    gpucore::plugin::write_message(msg, "stream_native_handle fails on purpose");
    return GPUCORE_ERROR_DEVICE;
#else
    (void)msg;
    *handle = stream;
    return GPUCORE_OK;
#endif
}

gpucore_status slots_pointer_device(const void* ptr, int* device, gpucore_memory_kind* kind, gpucore_message* msg) {
    const char* p = static_cast<const char*>(ptr);
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_allocations.upper_bound(p);
    if (p != nullptr && it != g_allocations.begin()) {
        --it;
        if (p < it->first + it->second) {
            *device = 0;
            *kind = GPUCORE_MEMORY_DEVICE;
            return GPUCORE_OK;
        }
    }
    gpucore::plugin::write_message(msg, "not memory of this plugin");
    return GPUCORE_ERROR_INVALID_ARGUMENT;
}

gpucore_status slots_copy_peer(void* dst, int, const void* src, int, size_t bytes, gpucore_stream, gpucore_message*) {
#if defined(GPUCORE_SLOT_FIXTURE_COPY_PEER_THROWS)
    (void)dst, (void)src, (void)bytes;
    throw std::runtime_error("copy_peer throws on purpose");
#else
    if (bytes > 0) std::memmove(dst, src, bytes); // the template's work is done when its call returns
    return GPUCORE_OK;
#endif
}

} // namespace

static_assert(GPUCORE_PLUGIN_ABI_MAJOR == 1, "rename the entry point below with the ABI major");

extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* gpucore_plugin_entry_v1(gpucore_message* msg) {
    if (g_template == nullptr) { // the core calls the entry once, under its discovery lock
        g_template = gpucore_slot_fixture_template_entry(msg);
        g_slots = *g_template;
        g_slots.version = GPUCORE_SLOT_FIXTURE_NAME " 0.1 (the template plugin with every optional slot)";
        g_slots.device_properties = slots_device_properties;
        g_slots.allocate = slots_allocate;
        g_slots.deallocate = slots_deallocate;
        g_slots.memory_info = slots_memory_info;
        g_slots.stream_native_handle = slots_stream_native_handle;
        g_slots.pointer_device = slots_pointer_device;
        g_slots.copy_peer = slots_copy_peer;
    }
    return &g_slots;
}

// SPDX-License-Identifier: Apache-2.0
// A hostile plugin for the loader tests: the template plugin (plugins/template) under the name
// "hostile", misbehaving as its environment asks (read once, by the entry point):
//   GPUCORE_HOSTILE_THROW=<where>    throws std::runtime_error("hostile: <where> exploded") from
//                                    entry | init | device_count | device_properties | allocate |
//                                    deallocate | fill | stream_create | stream_destroy |
//                                    event_destroy (a C++ exception across the C boundary)
//   GPUCORE_HOSTILE_REENTER=<where>  calls gpucore::devices() from entry | init | device_count
//                                    (a call back into gpucore while gpucore is loading it); init
//                                    catches what it gets and reports it as its failure, entry and
//                                    device_count let it escape
//   GPUCORE_HOSTILE_DEVICE_COUNT=<n> device_count reports n devices
//   GPUCORE_HOSTILE_HUGE_STRINGS=1   a 1 MiB version string, and init logs a 1 MiB message
// Everything else behaves as the template does.
#include "gpucore/plugin.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "gpucore/gpucore.hpp"

#undef GPUCORE_PLUGIN_ENTRY
#define GPUCORE_PLUGIN_ENTRY gpucore_hostile_template_entry
#define GPUCORE_TEMPLATE_BACKEND_NAME "hostile"
#include "template_plugin.cpp"

namespace {

gpucore_plugin_api g_hostile;
const gpucore_plugin_api* g_inner = nullptr;
std::string g_throw_in;
std::string g_reenter_in;
bool g_huge_strings = false;
std::string g_huge(std::size_t{1} << 20, 'v');
bool g_count_given = false;
long g_device_count = 0;

void maybe_throw(const char* where) {
    if (g_throw_in == where) throw std::runtime_error(std::string("hostile: ") + where + " exploded");
}

void maybe_reenter(const char* where) {
    if (g_reenter_in == where) (void)gpucore::devices();
}

std::string environment(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
}

gpucore_status h_init(const gpucore_host_services* host, gpucore_message* msg) {
    maybe_throw("init");
    try {
        maybe_reenter("init");
    } catch (const std::exception& e) {
        std::snprintf(msg->text, sizeof msg->text, "hostile: calling gpucore from init failed: %s", e.what());
        return GPUCORE_ERROR_PLUGIN;
    }
    if (g_huge_strings && host->log != nullptr) host->log(host->log_user, GPUCORE_LOG_WARN, g_huge.c_str());
    return g_inner->init(host, msg);
}
gpucore_status h_device_count(int* count, gpucore_message* msg) {
    maybe_throw("device_count");
    maybe_reenter("device_count");
    if (g_count_given) {
        *count = static_cast<int>(g_device_count);
        return GPUCORE_OK;
    }
    return g_inner->device_count(count, msg);
}
gpucore_status h_device_properties(int device, gpucore_device_properties* props, gpucore_message* msg) {
    maybe_throw("device_properties");
    (void)device; // every device of a large fake count reads as device 0
    return g_inner->device_properties(0, props, msg);
}
gpucore_status h_allocate(int d, gpucore_memory_kind k, size_t bytes, void** ptr, gpucore_message* msg) {
    maybe_throw("allocate");
    return g_inner->allocate(d, k, bytes, ptr, msg);
}
// Releases first, then throws: nothing leaks, yet the exception reaches the core.
gpucore_status h_deallocate(int d, gpucore_memory_kind k, void* ptr, gpucore_message* msg) {
    const gpucore_status status = g_inner->deallocate(d, k, ptr, msg);
    maybe_throw("deallocate");
    return status;
}
gpucore_status h_fill(void* dst, const void* value, size_t size, size_t count, gpucore_stream s, gpucore_message* msg) {
    maybe_throw("fill");
    return g_inner->fill(dst, value, size, count, s, msg);
}
gpucore_status h_stream_create(int d, gpucore_stream* s, gpucore_message* msg) {
    maybe_throw("stream_create");
    return g_inner->stream_create(d, s, msg);
}
gpucore_status h_stream_destroy(gpucore_stream s, gpucore_message* msg) {
    const gpucore_status status = g_inner->stream_destroy(s, msg);
    maybe_throw("stream_destroy");
    return status;
}
gpucore_status h_event_destroy(gpucore_event e, gpucore_message* msg) {
    const gpucore_status status = g_inner->event_destroy(e, msg);
    maybe_throw("event_destroy");
    return status;
}

} // namespace

static_assert(GPUCORE_PLUGIN_ABI_MAJOR == 1, "rename the entry point below with the ABI major");

extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* gpucore_plugin_entry_v1(gpucore_message* msg) {
    g_throw_in = environment("GPUCORE_HOSTILE_THROW");
    g_reenter_in = environment("GPUCORE_HOSTILE_REENTER");
    const std::string count = environment("GPUCORE_HOSTILE_DEVICE_COUNT");
    g_huge_strings = environment("GPUCORE_HOSTILE_HUGE_STRINGS") == "1";
    g_count_given = !count.empty();
    if (g_count_given) g_device_count = std::strtol(count.c_str(), nullptr, 10);
    maybe_throw("entry");
    maybe_reenter("entry");
    g_inner = gpucore_hostile_template_entry(msg);
    g_hostile = *g_inner;
    g_hostile.version = g_huge_strings ? g_huge.c_str() : "hostile (the template plugin, misbehaving on request)";
    g_hostile.init = h_init;
    g_hostile.device_count = h_device_count;
    g_hostile.device_properties = h_device_properties;
    g_hostile.allocate = h_allocate;
    g_hostile.deallocate = h_deallocate;
    g_hostile.fill = h_fill;
    g_hostile.stream_create = h_stream_create;
    g_hostile.stream_destroy = h_stream_destroy;
    g_hostile.event_destroy = h_event_destroy;
    return &g_hostile;
}

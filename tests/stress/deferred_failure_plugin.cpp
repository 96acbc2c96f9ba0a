// SPDX-License-Identifier: Apache-2.0
// A backend whose queued work fails on one stream only, for the lost-error tests: the template
// plugin (plugins/template) under the name "deferred", wrapped so that a vector_add of exactly
// kFailingLength elements "launches a kernel that faults later": the slot returns OK and the
// failure is kept for THAT stream. The stream's next stream_synchronize (or its stream_destroy)
// reports it and clears it, as the cpu backend and a CUDA stream report an asynchronous error
// once. Every other stream, and every later call, works as the template does.
#include "gpucore/plugin.h"

#include <cstdio>
#include <map>
#include <mutex>

#undef GPUCORE_PLUGIN_ENTRY
#define GPUCORE_PLUGIN_ENTRY gpucore_deferred_template_entry
#define GPUCORE_TEMPLATE_BACKEND_NAME "deferred"
#include "template_plugin.cpp"

namespace {

constexpr size_t kFailingLength = 7;
constexpr const char* kFailureText = "deferred: the kernel faulted (simulated asynchronous failure)";

gpucore_plugin_api g_deferred;
const gpucore_plugin_api* g_inner = nullptr;
std::mutex g_mutex;
std::map<gpucore_stream, bool> g_pending; // per stream: a failure its queued work raised

// Reports and clears the failure pending on `s`, if any.
gpucore_status take_pending(gpucore_stream s, gpucore_message* msg) {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_pending.find(s);
    if (it == g_pending.end() || !it->second) return GPUCORE_OK;
    it->second = false;
    std::snprintf(msg->text, sizeof msg->text, "%s", kFailureText);
    return GPUCORE_ERROR_DEVICE;
}

gpucore_status d_stream_destroy(gpucore_stream s, gpucore_message* msg) {
    const gpucore_status status = take_pending(s, msg);
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_pending.erase(s);
    }
    g_inner->stream_destroy(s, msg);
    return status;
}
gpucore_status d_stream_synchronize(gpucore_stream s, gpucore_message* msg) {
    const gpucore_status status = take_pending(s, msg);
    return status != GPUCORE_OK ? status : g_inner->stream_synchronize(s, msg);
}
gpucore_status d_vector_add(gpucore_dtype t, const void* a, const void* b, void* c, size_t n, gpucore_stream s,
                            gpucore_message* msg) {
    if (n != kFailingLength) return g_inner->vector_add(t, a, b, c, n, s, msg);
    std::lock_guard<std::mutex> lock(g_mutex);
    g_pending[s] = true; // accepted now; the "kernel" fails while it runs
    return GPUCORE_OK;
}

} // namespace

static_assert(GPUCORE_PLUGIN_ABI_MAJOR == 1, "rename the entry point below with the ABI major");

extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* gpucore_plugin_entry_v1(gpucore_message* msg) {
    if (g_inner == nullptr) { // the core calls the entry once, during discovery
        g_inner = gpucore_deferred_template_entry(msg);
        g_deferred = *g_inner;
        g_deferred.version = "deferred 0.1 (the template plugin; vector_add of 7 elements fails on its stream)";
        g_deferred.stream_destroy = d_stream_destroy;
        g_deferred.stream_synchronize = d_stream_synchronize;
        g_deferred.vector_add = d_vector_add;
    }
    return &g_deferred;
}

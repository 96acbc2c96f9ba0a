// SPDX-License-Identifier: Apache-2.0
// A backend whose device fails, for the fault tests: the template plugin (plugins/template) under
// the name "failing", wrapped so that
//  - transpose "launches a kernel that faults": it returns OK (launches are asynchronous) and the
//    device is lost from then on, like a CUDA device after an illegal address: every later call
//    (synchronize, copies, launches, allocation, even frees and destroys) fails with
//    GPUCORE_ERROR_DEVICE. Frees and destroys still release their memory, so nothing leaks.
//  - fill answers a status no gpucore_status names (77) with a message that fills the whole buffer and
//    has no terminating NUL: the core must bound the text and still raise a typed Error.
// Everything else behaves as the template does until the fault.
#include "gpucore/plugin.h"

#include <atomic>
#include <cstring>

#undef GPUCORE_PLUGIN_ENTRY
#define GPUCORE_PLUGIN_ENTRY gpucore_stress_template_entry
#define GPUCORE_TEMPLATE_BACKEND_NAME "failing"
#include "template_plugin.cpp"

namespace {

gpucore_plugin_api g_failing;
const gpucore_plugin_api* g_inner = nullptr;
std::atomic<bool> g_lost{false};

constexpr const char* kLostText = "failing: device lost after an illegal memory access (simulated)";

gpucore_status lost(gpucore_message* msg) {
    std::snprintf(msg->text, sizeof msg->text, "%s", kLostText);
    return GPUCORE_ERROR_DEVICE;
}

gpucore_status f_allocate(int d, gpucore_memory_kind k, size_t bytes, void** ptr, gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->allocate(d, k, bytes, ptr, msg);
}
// Releases the memory even on a lost device (so the test process leaks nothing), then reports.
gpucore_status f_deallocate(int d, gpucore_memory_kind k, void* ptr, gpucore_message* msg) {
    const gpucore_status status = g_inner->deallocate(d, k, ptr, msg);
    return g_lost.load() ? lost(msg) : status;
}
gpucore_status f_stream_create(int d, gpucore_stream* s, gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->stream_create(d, s, msg);
}
gpucore_status f_stream_destroy(gpucore_stream s, gpucore_message* msg) {
    const gpucore_status status = g_inner->stream_destroy(s, msg);
    return g_lost.load() ? lost(msg) : status;
}
gpucore_status f_stream_synchronize(gpucore_stream s, gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->stream_synchronize(s, msg);
}
gpucore_status f_stream_query(gpucore_stream s, int* done, gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->stream_query(s, done, msg);
}
gpucore_status f_stream_wait_event(gpucore_stream s, gpucore_event e, gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->stream_wait_event(s, e, msg);
}
gpucore_status f_event_create(int d, gpucore_event* e, gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->event_create(d, e, msg);
}
gpucore_status f_event_destroy(gpucore_event e, gpucore_message* msg) {
    const gpucore_status status = g_inner->event_destroy(e, msg);
    return g_lost.load() ? lost(msg) : status;
}
gpucore_status f_event_record(gpucore_event e, gpucore_stream s, gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->event_record(e, s, msg);
}
gpucore_status f_event_synchronize(gpucore_event e, gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->event_synchronize(e, msg);
}
gpucore_status f_event_query(gpucore_event e, int* done, gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->event_query(e, done, msg);
}
gpucore_status f_event_elapsed_ms(gpucore_event a, gpucore_event b, double* ms, gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->event_elapsed_ms(a, b, ms, msg);
}
gpucore_status f_copy(void* dst, const void* src, size_t bytes, gpucore_copy_kind kind, gpucore_stream s,
                      gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->copy(dst, src, bytes, kind, s, msg);
}
gpucore_status f_fill(void*, const void*, size_t, size_t, gpucore_stream, gpucore_message* msg) {
    std::memset(msg->text, 'x', sizeof msg->text); // no NUL anywhere: the core must bound it
    return static_cast<gpucore_status>(77); // valid (the enum spans 32 bits) but not one of its names
}
gpucore_status f_vector_add(gpucore_dtype t, const void* a, const void* b, void* c, size_t n, gpucore_stream s,
                            gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->vector_add(t, a, b, c, n, s, msg);
}
gpucore_status f_transpose(gpucore_dtype, const void*, void*, size_t, size_t, gpucore_stream, gpucore_message* msg) {
    if (g_lost.load()) return lost(msg);
    g_lost.store(true); // the "kernel" faults after the launch was accepted
    return GPUCORE_OK;
}
gpucore_status f_reduce(gpucore_dtype t, gpucore_reduce_op op, const void* in, size_t n, void* out,
                        gpucore_stream s, gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->reduce(t, op, in, n, out, s, msg);
}
gpucore_status f_reduce_rows(gpucore_dtype t, gpucore_reduce_op op, const void* in, size_t rows, size_t cols,
                             void* out, gpucore_stream s, gpucore_message* msg) {
    return g_lost.load() ? lost(msg) : g_inner->reduce_rows(t, op, in, rows, cols, out, s, msg);
}

} // namespace

static_assert(GPUCORE_PLUGIN_ABI_MAJOR == 1, "rename the entry point below with the ABI major");

extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* gpucore_plugin_entry_v1(gpucore_message* msg) {
    if (g_inner == nullptr) { // the core calls the entry once, during discovery
        g_inner = gpucore_stress_template_entry(msg);
        g_failing = *g_inner;
        g_failing.version = "failing 0.1 (the template plugin; its device is lost after a transpose)";
        g_failing.allocate = f_allocate;
        g_failing.deallocate = f_deallocate;
        g_failing.stream_create = f_stream_create;
        g_failing.stream_destroy = f_stream_destroy;
        g_failing.stream_synchronize = f_stream_synchronize;
        g_failing.stream_query = f_stream_query;
        g_failing.stream_wait_event = f_stream_wait_event;
        g_failing.event_create = f_event_create;
        g_failing.event_destroy = f_event_destroy;
        g_failing.event_record = f_event_record;
        g_failing.event_synchronize = f_event_synchronize;
        g_failing.event_query = f_event_query;
        g_failing.event_elapsed_ms = f_event_elapsed_ms;
        g_failing.copy = f_copy;
        g_failing.fill = f_fill;
        g_failing.vector_add = f_vector_add;
        g_failing.transpose = f_transpose;
        g_failing.reduce = f_reduce;
        g_failing.reduce_rows = f_reduce_rows;
    }
    return &g_failing;
}

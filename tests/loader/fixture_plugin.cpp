// SPDX-License-Identifier: Apache-2.0
// Deliberately broken plugins for the loader tests, one source built in several modes:
//   FIXTURE_NO_ENTRY      exports an unrelated function, no gpucore entry point
//   FIXTURE_WRONG_ABI     exports gpucore_plugin_entry_v2 (a future ABI major)
//   FIXTURE_NULL_ENTRY    entry returns NULL with a reason
//   FIXTURE_INIT_FAILS    a valid table whose init fails
//   FIXTURE_NULL_SLOT     a table whose (required) fill slot is NULL
//   FIXTURE_NEEDS_DEP     a valid-looking plugin that links a helper library the loader cannot find
//   FIXTURE_DATA_ENTRY    exports gpucore_plugin_entry_v1 as a data object (the table itself)
//   FIXTURE_ENTRY_V01     exports gpucore_plugin_entry_v01 (a look-alike, not ABI major 1)
//   FIXTURE_ENTRY_V1X     exports gpucore_plugin_entry_v1x (a look-alike)
// The look-alikes also have a static constructor that creates the file named by
// GPUCORE_FIXTURE_MARKER: it must never run, because they must be refused before dlopen.
// Every working slot is a stub on purpose: none of these may ever be used as a backend.
#include <cstdio>

#include "gpucore/plugin.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#if defined(FIXTURE_NEEDS_DEP)
extern "C" int gpucore_fixture_dependency_value(void); // from libgpucore-fixture-dep.so
#endif

namespace {

gpucore_status refuse(gpucore_message* msg) {
    std::snprintf(msg->text, sizeof msg->text, "fixture plugin: never usable");
    return GPUCORE_ERROR_PLUGIN;
}

gpucore_status init_slot(const gpucore_host_services*, gpucore_message* msg) {
#if defined(FIXTURE_INIT_FAILS)
    std::snprintf(msg->text, sizeof msg->text, "fixture: the vendor runtime refused to start (code 42)");
    return GPUCORE_ERROR_BACKEND_UNAVAILABLE;
#elif defined(FIXTURE_NEEDS_DEP)
    (void)msg;
    return gpucore_fixture_dependency_value() == 42 ? GPUCORE_OK : GPUCORE_ERROR_PLUGIN;
#else
    (void)msg;
    return GPUCORE_OK;
#endif
}
void shutdown_slot(void) {}
gpucore_status count_slot(int* count, gpucore_message*) {
    *count = 0;
    return GPUCORE_OK;
}
gpucore_status props_slot(int, gpucore_device_properties*, gpucore_message* m) { return refuse(m); }
gpucore_status alloc_slot(int, gpucore_memory_kind, size_t, void**, gpucore_message* m) { return refuse(m); }
gpucore_status dealloc_slot(int, gpucore_memory_kind, void*, gpucore_message* m) { return refuse(m); }
gpucore_status screate(int, gpucore_stream*, gpucore_message* m) { return refuse(m); }
gpucore_status sdestroy(gpucore_stream, gpucore_message* m) { return refuse(m); }
gpucore_status ssync(gpucore_stream, gpucore_message* m) { return refuse(m); }
gpucore_status squery(gpucore_stream, int*, gpucore_message* m) { return refuse(m); }
gpucore_status swait(gpucore_stream, gpucore_event, gpucore_message* m) { return refuse(m); }
gpucore_status ecreate(int, gpucore_event*, gpucore_message* m) { return refuse(m); }
gpucore_status edestroy(gpucore_event, gpucore_message* m) { return refuse(m); }
gpucore_status erecord(gpucore_event, gpucore_stream, gpucore_message* m) { return refuse(m); }
gpucore_status esync(gpucore_event, gpucore_message* m) { return refuse(m); }
gpucore_status equery(gpucore_event, int*, gpucore_message* m) { return refuse(m); }
gpucore_status eelapsed(gpucore_event, gpucore_event, double*, gpucore_message* m) { return refuse(m); }
gpucore_status copy_slot(void*, const void*, size_t, gpucore_copy_kind, gpucore_stream, gpucore_message* m) {
    return refuse(m);
}
[[maybe_unused]] gpucore_status fill_slot(void*, const void*, size_t, size_t, gpucore_stream, gpucore_message* m) {
    return refuse(m);
}
gpucore_status add_slot(gpucore_dtype, const void*, const void*, void*, size_t, gpucore_stream, gpucore_message* m) {
    return refuse(m);
}
gpucore_status transpose_slot(gpucore_dtype, const void*, void*, size_t, size_t, gpucore_stream, gpucore_message* m) {
    return refuse(m);
}
gpucore_status reduce_slot(gpucore_dtype, gpucore_reduce_op, const void*, size_t, void*, gpucore_stream,
                           gpucore_message* m) {
    return refuse(m);
}
gpucore_status rows_slot(gpucore_dtype, gpucore_reduce_op, const void*, size_t, size_t, void*, gpucore_stream,
                         gpucore_message* m) {
    return refuse(m);
}

#if defined(FIXTURE_DATA_ENTRY)
} // namespace
extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api gpucore_plugin_entry_v1;
namespace {
#define FIXTURE_TABLE_DEFINITION const gpucore_plugin_api gpucore_plugin_entry_v1
#else
#define FIXTURE_TABLE_DEFINITION const gpucore_plugin_api table
#endif

#if defined(FIXTURE_ENTRY_V01) || defined(FIXTURE_ENTRY_V1X)
__attribute__((constructor)) void leave_marker() {
    if (const char* marker = std::getenv("GPUCORE_FIXTURE_MARKER")) {
        const int fd = ::open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0) ::close(fd);
    }
}
#endif

} // namespace

FIXTURE_TABLE_DEFINITION = {
    GPUCORE_PLUGIN_ABI_MAJOR, GPUCORE_PLUGIN_ABI_MINOR, sizeof(gpucore_plugin_api),
    FIXTURE_BACKEND_NAME, "fixture",
    init_slot, shutdown_slot, count_slot, props_slot, alloc_slot, dealloc_slot,
    screate, sdestroy, ssync, squery, swait,
    ecreate, edestroy, erecord, esync, equery, eelapsed,
    copy_slot,
#if defined(FIXTURE_NULL_SLOT)
    nullptr,
#else
    fill_slot,
#endif
    add_slot, transpose_slot, reduce_slot, rows_slot,
    nullptr, // memory_info: optional
    nullptr, // stream_native_handle: optional
    nullptr, // pointer_device: optional
    nullptr, // copy_peer: optional
    nullptr, // enqueue_host_task: optional
};

#if defined(FIXTURE_NO_ENTRY)
extern "C" GPUCORE_PLUGIN_EXPORT int not_a_gpucore_plugin(void) { return table.abi_major == 1; }
#elif defined(FIXTURE_WRONG_ABI)
extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* gpucore_plugin_entry_v2(gpucore_message*) {
    return &table;
}
#elif defined(FIXTURE_DATA_ENTRY)
// The table above is the exported symbol.
#elif defined(FIXTURE_ENTRY_V01)
extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* gpucore_plugin_entry_v01(gpucore_message*) {
    return &table;
}
#elif defined(FIXTURE_ENTRY_V1X)
extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* gpucore_plugin_entry_v1x(gpucore_message*) {
    return &table;
}
#else
extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* GPUCORE_PLUGIN_ENTRY(gpucore_message* msg) {
#if defined(FIXTURE_NULL_ENTRY)
    std::snprintf(msg->text, sizeof msg->text, "fixture: no licence for this machine");
    return nullptr;
#else
    (void)msg;
    return &table;
#endif
}
#endif

// SPDX-License-Identifier: Apache-2.0
// The CPU backend's table: each slot validates what the core cannot (enum values), then either
// answers at once or queues a task on the stream's worker. Every slot body runs inside `guarded`,
// so no exception crosses the C boundary.
#include "cpu_backend.h"

#include <chrono>
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <system_error>

#include <unistd.h>

#include "cpu_device_info.hpp"
#include "cpu_kernels.hpp"
#include "cpu_memory.hpp"
#include "cpu_op_slot.hpp"
#include "cpu_status.hpp"
#include "cpu_stream.hpp"
#include "cpu_thread_pool.hpp"
#include "host_mappings.hpp"

namespace gpucore::cpu {
namespace {

// What the core handed us at init; read-only afterwards (init runs before any other slot).
plugin::HostServices g_host;

// Handles are our own objects behind the contract's opaque pointer types (to_stream: cpu_op_slot.hpp).
Event* to_event(gpucore_event handle) noexcept { return reinterpret_cast<Event*>(handle); }

// Turns a failure reported by queued work into the slot's status and message.
gpucore_status report(const std::optional<TaskFailure>& failure, gpucore_message* msg) {
    if (!failure) return GPUCORE_OK;
    static constexpr char prefix[] = "queued work failed: ";
    constexpr std::size_t prefix_length = sizeof prefix - 1;
    const std::size_t length = strnlen(failure->message, sizeof msg->text - prefix_length - 1);
    std::memcpy(msg->text, prefix, prefix_length);
    std::memcpy(msg->text + prefix_length, failure->message, length);
    msg->text[prefix_length + length] = '\0';
    return failure->status;
}

// ---- lifetime and devices ----------------------------------------------------------------------

gpucore_status init(const gpucore_host_services* host, gpucore_message* msg) {
    return guarded(msg, [&] {
        g_host.copy_from(host);
        g_host.log(GPUCORE_LOG_DEBUG, "cpu backend ready");
    });
}

void shutdown() {} // nothing global to free: streams and events belong to their owners

gpucore_status device_count(int* count, gpucore_message* msg) {
    return guarded(msg, [&] { *count = 1; });
}

gpucore_status device_properties(int, gpucore_device_properties* props, gpucore_message* msg) {
    return guarded(msg, [&] { fill_device_properties(props); });
}

// ---- memory ------------------------------------------------------------------------------------

gpucore_status memory_info(int, std::uint64_t* free_bytes, std::uint64_t* total_bytes, gpucore_message* msg) {
    return guarded(msg, [&] {
        const long page = sysconf(_SC_PAGESIZE);
        const long available = sysconf(_SC_AVPHYS_PAGES);
        const long total = sysconf(_SC_PHYS_PAGES);
        if (page <= 0 || available < 0 || total <= 0) {
            throw BackendError(GPUCORE_ERROR_DEVICE, "sysconf cannot report the physical memory size");
        }
        *free_bytes = static_cast<std::uint64_t>(available) * static_cast<std::uint64_t>(page);
        *total_bytes = static_cast<std::uint64_t>(total) * static_cast<std::uint64_t>(page);
    });
}

gpucore_status allocate(int, gpucore_memory_kind kind, std::size_t bytes, void** ptr,
                        gpucore_message* msg) {
    return guarded(msg, [&] {
        const int raw_kind = raw_enum_value(kind);
        if (raw_kind < GPUCORE_MEMORY_DEVICE || raw_kind > GPUCORE_MEMORY_MANAGED) {
            throw BackendError(GPUCORE_ERROR_NOT_SUPPORTED, "unknown memory kind " + std::to_string(raw_kind));
        }
        *ptr = allocate_host(bytes);
        if (*ptr == nullptr) {
            throw BackendError(GPUCORE_ERROR_OUT_OF_MEMORY,
                               "aligned_alloc of " + std::to_string(bytes) + " bytes failed: out of host memory");
        }
    });
}

gpucore_status deallocate(int, gpucore_memory_kind, void* ptr, gpucore_message* msg) {
    return guarded(msg, [&] { free_host(ptr); });
}

// Host memory is this backend's device memory: any readable and writable host address is memory
// of device 0, reported as GPUCORE_MEMORY_DEVICE (every kind is plain host memory here). A null
// address, an unmapped one (a freed mapping) and one without read-write access (a GPU runtime's
// reserved device addresses, read-only data) are refused, and so is an address that cannot be
// checked (the process's memory map cannot be read).
gpucore_status pointer_device(const void* ptr, int* device, gpucore_memory_kind* kind, gpucore_message* msg) {
    return guarded(msg, [&] {
        if (ptr == nullptr) throw BackendError(GPUCORE_ERROR_INVALID_ARGUMENT, "null pointer");
        if (const std::string problem = host_range_problem(ptr, 1); !problem.empty()) {
            throw BackendError(GPUCORE_ERROR_INVALID_ARGUMENT,
                               "the address is not readable and writable host memory of this process: " + problem);
        }
        *device = 0;
        *kind = GPUCORE_MEMORY_DEVICE;
    });
}

// ---- streams -----------------------------------------------------------------------------------

gpucore_status stream_create(int, gpucore_stream* stream, gpucore_message* msg) {
    return guarded(msg, [&] {
        try {
            *stream = reinterpret_cast<gpucore_stream>(new Stream());
        } catch (const std::system_error& e) {
            throw BackendError(GPUCORE_ERROR_DEVICE,
                               std::string("cannot start the stream's worker thread: ") + e.what());
        }
    });
}

// Destroys the stream in every case; a failure of its last work is still reported.
gpucore_status stream_destroy(gpucore_stream stream, gpucore_message* msg) {
    gpucore_status status = GPUCORE_OK;
    const gpucore_status guard = guarded(msg, [&] {
        Stream* s = to_stream(stream);
        std::optional<TaskFailure> failure = s->synchronize();
        delete s;
        status = report(failure, msg);
    });
    return guard != GPUCORE_OK ? guard : status;
}

gpucore_status stream_synchronize(gpucore_stream stream, gpucore_message* msg) {
    gpucore_status status = GPUCORE_OK;
    const gpucore_status guard =
        guarded(msg, [&] { status = report(to_stream(stream)->synchronize(), msg); });
    return guard != GPUCORE_OK ? guard : status;
}

gpucore_status stream_query(gpucore_stream stream, int* done, gpucore_message* msg) {
    return guarded(msg, [&] { *done = to_stream(stream)->idle() ? 1 : 0; });
}

// The cpu backend has no vendor stream: the handle is the stream's own queue object (the same
// address as the gpucore_stream), an identity for the caller, not something to enqueue on.
gpucore_status stream_native_handle(gpucore_stream stream, void** handle, gpucore_message* msg) {
    return guarded(msg, [&] { *handle = to_stream(stream); });
}

gpucore_status stream_wait_event(gpucore_stream stream, gpucore_event event, gpucore_message* msg) {
    return guarded(msg, [&] { cpu::stream_wait_event(*to_stream(stream), *to_event(event)); });
}

// ---- events ------------------------------------------------------------------------------------

gpucore_status event_create(int, gpucore_event* event, gpucore_message* msg) {
    return guarded(msg, [&] { *event = reinterpret_cast<gpucore_event>(new Event()); });
}

gpucore_status event_destroy(gpucore_event event, gpucore_message* msg) {
    // Pending markers and waits hold their own reference to the state: no need to wait.
    return guarded(msg, [&] { delete to_event(event); });
}

gpucore_status event_record(gpucore_event event, gpucore_stream stream, gpucore_message* msg) {
    return guarded(msg, [&] { record_event(*to_event(event), *to_stream(stream)); });
}

gpucore_status event_synchronize(gpucore_event event, gpucore_message* msg) {
    return guarded(msg, [&] {
        const EventState& state = *to_event(event)->state;
        state.wait_for(state.latest_record());
    });
}

gpucore_status event_query(gpucore_event event, int* done, gpucore_message* msg) {
    return guarded(msg, [&] {
        const EventState& state = *to_event(event)->state;
        *done = state.reached(state.latest_record()) ? 1 : 0;
    });
}

gpucore_status event_elapsed_ms(gpucore_event start, gpucore_event end, double* ms,
                                gpucore_message* msg) {
    return guarded(msg, [&] {
        const auto t0 = to_event(start)->state->latest_completion_time();
        const auto t1 = to_event(end)->state->latest_completion_time();
        if (!t0 || !t1) {
            throw BackendError(GPUCORE_ERROR_INVALID_ARGUMENT,
                               std::string("the ") + (!t0 ? "start" : "end") +
                                   " event has not completed or was never recorded");
        }
        *ms = std::chrono::duration<double, std::milli>(*t1 - *t0).count();
    });
}

// ---- data movement -----------------------------------------------------------------------------

gpucore_status copy(void* dst, const void* src, std::size_t bytes, gpucore_copy_kind,
                    gpucore_stream stream, gpucore_message* msg) {
    // Every kind is a host memcpy here.
    return guarded(msg, [&] {
        if (bytes == 0 || dst == src) return;
        to_stream(stream)->enqueue([=] { copy_bytes(dst, src, bytes); }, "copy");
    });
}

// One device: a copy "between devices" is a copy within it.
gpucore_status copy_peer(void* dst, int, const void* src, int, std::size_t bytes, gpucore_stream stream,
                         gpucore_message* msg) {
    return copy(dst, src, bytes, GPUCORE_COPY_DEVICE_TO_DEVICE, stream, msg);
}

gpucore_status fill(void* dst, const void* value, std::size_t element_size, std::size_t count,
                    gpucore_stream stream, gpucore_message* msg) {
    return guarded(msg, [&] {
        if (element_size != 1 && element_size != 2 && element_size != 4 && element_size != 8) {
            throw BackendError(GPUCORE_ERROR_INVALID_ARGUMENT,
                               "fill element size must be 1, 2, 4 or 8, not " + std::to_string(element_size));
        }
        std::uint64_t pattern = 0; // the contract lets us read `value` only during this call
        std::memcpy(&pattern, value, element_size);
        if (count == 0) return;
        to_stream(stream)->enqueue([=] { fill_pattern(dst, pattern, element_size, count); }, "fill");
    });
}

// ---- host tasks (kernel modules built for the CPU) ----------------------------------------------

// Spreads the items (the blocks of a kernel) over the thread pool in runs of consecutive ones,
// kGrabsPerThread runs per thread: a worker then walks its blocks' memory in order, and the
// workers contend for the next run far less often than for the next block, while the runs stay
// short enough to even out blocks of unequal cost.
constexpr std::size_t kGrabsPerThread = 16;

void pool_parallel_for(void*, std::uint64_t count, gpucore_parallel_body_fn body, void* user) {
    const int threads = count > 1 ? max_threads() : 1;
    const std::size_t items = static_cast<std::size_t>(count);
    const std::size_t grain = std::max<std::size_t>(1, items / (static_cast<std::size_t>(threads) * kGrabsPerThread));
    parallel_for(items, grain, threads, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) body(user, i);
    });
}

// Kernels run with 32-lane warps on the CPU, as on NVIDIA GPUs (the device's warp_size property
// says 1: the backend's own kernels use no warps).
constexpr std::uint32_t kModuleWarpSize = 32;

gpucore_status enqueue_host_task(gpucore_stream stream, gpucore_host_task_fn task, void* user,
                                 gpucore_release_fn release, gpucore_message* msg) {
    // Releases `user` exactly once, whether the task runs or is never queued.
    struct Owned {
        Owned(void* u, gpucore_release_fn r) : user(u), release(r) {}
        Owned(const Owned&) = delete;
        Owned& operator=(const Owned&) = delete;
        ~Owned() {
            if (release != nullptr) release(user);
        }
        void* user;
        gpucore_release_fn release;
    };
    auto owned = std::make_shared<Owned>(user, release);
    return guarded(msg, [&] {
        to_stream(stream)->enqueue(
            [task, owned] {
                static const gpucore_host_parallel parallel{sizeof(gpucore_host_parallel), &pool_parallel_for, nullptr,
                                                            kModuleWarpSize};
                gpucore_message message;
                message.text[0] = '\0';
                const gpucore_status status = task(owned->user, &parallel, &message);
                if (status != GPUCORE_OK) throw BackendError(status, message.text);
            },
            "kernel launch");
    });
}

gpucore_plugin_api make_table() {
    gpucore_plugin_api t{};
    t.abi_major = GPUCORE_PLUGIN_ABI_MAJOR;
    t.abi_minor = GPUCORE_PLUGIN_ABI_MINOR;
    t.struct_size = sizeof(gpucore_plugin_api);
    t.name = "cpu";
    t.version = "gpucore-cpu " GPUCORE_PLUGIN_VERSION_STRING " (std::thread pool)";
    t.init = init;
    t.shutdown = shutdown;
    t.device_count = device_count;
    t.device_properties = device_properties;
    t.allocate = allocate;
    t.deallocate = deallocate;
    t.stream_create = stream_create;
    t.stream_destroy = stream_destroy;
    t.stream_synchronize = stream_synchronize;
    t.stream_query = stream_query;
    t.stream_wait_event = stream_wait_event;
    t.event_create = event_create;
    t.event_destroy = event_destroy;
    t.event_record = event_record;
    t.event_synchronize = event_synchronize;
    t.event_query = event_query;
    t.event_elapsed_ms = event_elapsed_ms;
    t.copy = copy;
    t.fill = fill;
    t.memory_info = memory_info;
    t.stream_native_handle = stream_native_handle;
    t.pointer_device = pointer_device;
    t.copy_peer = copy_peer;
    t.enqueue_host_task = enqueue_host_task;
    // The operations: each kernel's file holds its slots and writes them here.
    fill_elementwise_slots(t);
    fill_transpose_slots(t);
    fill_reduce_slots(t);
    return t;
}

} // namespace
} // namespace gpucore::cpu

extern "C" gpucore_status gpucore_cpu_check_host_range(const void* ptr, size_t bytes, gpucore_message* msg) {
    return gpucore::cpu::guarded(msg, [&] {
        if (const std::string problem = gpucore::cpu::host_range_problem(ptr, bytes); !problem.empty()) {
            throw gpucore::cpu::BackendError(GPUCORE_ERROR_INVALID_ARGUMENT,
                                             "not readable and writable host memory of this process: " + problem);
        }
    });
}

extern "C" const gpucore_plugin_api* gpucore_cpu_backend_table(gpucore_message*) {
    static const gpucore_plugin_api table = gpucore::cpu::make_table();
    return &table;
}

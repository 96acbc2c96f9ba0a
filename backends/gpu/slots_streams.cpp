// SPDX-License-Identifier: Apache-2.0
// Slots: streams and events.
#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>

#include "gpu_error.hpp"
#include "plugin_handles.hpp"
#include "plugin_state.hpp"
#include "plugin_table.hpp"
#include "slot_guard.hpp"

namespace gpucore::gpu {
namespace {

// *done = 1 / 0 for a completed / pending query; other results are errors.
void query_result(gpuError_t err, int* done, const char* call) {
    if (err == gpuSuccess) *done = 1;
    else if (err == gpuErrorNotReady) *done = 0;
    else check_call(err, call, __FILE__, __LINE__);
}

// Throws (and clears) the first failure of a host task queued on the stream.
void raise_host_failure(gpucore_stream stream) {
    std::lock_guard<std::mutex> lock(stream->host_failure_mutex);
    if (stream->host_failure_status == GPUCORE_OK) return;
    const gpucore_status status = std::exchange(stream->host_failure_status, GPUCORE_OK);
    throw GpuError(status, std::exchange(stream->host_failure, std::string()));
}

gpucore_status stream_create(int device, gpucore_stream* stream, gpucore_message* msg) {
    return guarded(msg, device, [&] {
        ensure_usable(device);
        DeviceScope scope(device);
        auto impl = std::make_unique<gpucore_stream_impl>();
        impl->device = device;
        // Non-blocking: no implicit ordering with the legacy default stream of other code.
        GPUCORE_GPU_CHECK(gpuStreamCreateWithFlags(&impl->stream, gpuStreamNonBlocking));
        try {
            impl->scratch = device_record(device).scratch.acquire(impl->stream);
        } catch (...) {
            (void)gpuStreamDestroy(impl->stream);
            throw;
        }
        *stream = impl.release();
    });
}

gpucore_status stream_destroy(gpucore_stream stream, gpucore_message* msg) {
    const int device = stream->device;
    const gpucore_status status = guarded(msg, device, [&] {
        DeviceScope scope(device);
        GPUCORE_GPU_CHECK(gpuStreamSynchronize(stream->stream));
        device_record(device).scratch.release(stream->scratch);
        stream->scratch = {};
        raise_host_failure(stream);
    });
    // Whatever the synchronize said, the handle is gone after this call.
    try {
        DeviceScope scope(device);
        (void)gpuStreamDestroy(stream->stream);
    } catch (...) {
    }
    delete stream;
    return status;
}

gpucore_status stream_synchronize(gpucore_stream stream, gpucore_message* msg) {
    return guarded(msg, stream->device, [&] {
        ensure_usable(stream->device);
        GPUCORE_GPU_CHECK(gpuStreamSynchronize(stream->stream));
        raise_host_failure(stream);
    });
}

// A host task of a GPU backend runs on the runtime's callback thread; its parallel_for runs the
// items there, one after another (host tasks are not the GPU backends' fast path).
void serial_parallel_for(void*, std::uint64_t count, gpucore_parallel_body_fn body, void* user) {
    for (std::uint64_t i = 0; i < count; ++i) body(user, i);
}

struct HostTask {
    gpucore_stream stream;
    gpucore_host_task_fn task;
    void* user;
    gpucore_release_fn release;
    std::uint32_t warp_size;
};

void run_host_task(void* data) noexcept {
    std::unique_ptr<HostTask> t(static_cast<HostTask*>(data));
    const gpucore_host_parallel parallel{sizeof(gpucore_host_parallel), &serial_parallel_for, nullptr, t->warp_size};
    gpucore_message message;
    message.text[0] = '\0';
    gpucore_status status = GPUCORE_ERROR_PLUGIN;
    try {
        status = t->task(t->user, &parallel, &message);
    } catch (...) {
        std::snprintf(message.text, sizeof message.text, "a host task threw an exception");
    }
    if (t->release != nullptr) t->release(t->user);
    if (status == GPUCORE_OK) return;
    try {
        std::lock_guard<std::mutex> lock(t->stream->host_failure_mutex);
        if (t->stream->host_failure_status == GPUCORE_OK) {
            t->stream->host_failure_status = status;
            t->stream->host_failure.assign(message.text, strnlen(message.text, sizeof message.text));
        }
    } catch (...) {
        // No memory for the text: the status alone still reaches the next synchronize.
        t->stream->host_failure_status = status;
    }
}

gpucore_status enqueue_host_task(gpucore_stream stream, gpucore_host_task_fn task, void* user, gpucore_release_fn release,
                                 gpucore_message* msg) {
    std::unique_ptr<HostTask> owned;
    const gpucore_status status = guarded(msg, stream->device, [&] {
        ensure_usable(stream->device);
        DeviceScope scope(stream->device);
        int warp = 0;
        GPUCORE_GPU_CHECK(gpuDeviceGetAttribute(&warp, gpuDevAttrWarpSize, stream->device));
        owned = std::make_unique<HostTask>(HostTask{stream, task, user, release, static_cast<std::uint32_t>(warp)});
        GPUCORE_GPU_CHECK(launch_host_function(stream->stream, &run_host_task, owned.get()));
        owned.release();
    });
    if (status != GPUCORE_OK && release != nullptr) release(user);
    return status;
}

gpucore_status stream_query(gpucore_stream stream, int* done, gpucore_message* msg) {
    return guarded(msg, stream->device, [&] {
        ensure_usable(stream->device);
        query_result(gpuStreamQuery(stream->stream), done, "gpuStreamQuery(stream)");
    });
}

gpucore_status stream_native_handle(gpucore_stream stream, void** handle, gpucore_message* msg) {
    return guarded(msg, stream->device, [&] {
        // The vendor stream itself (non-blocking, on stream->device): the caller launches on it.
        *handle = static_cast<void*>(stream->stream);
    });
}

gpucore_status stream_wait_event(gpucore_stream stream, gpucore_event event,
                                 gpucore_message* msg) {
    return guarded(msg, stream->device, [&] {
        ensure_usable(stream->device);
        DeviceScope scope(stream->device);
        GPUCORE_GPU_CHECK(gpuStreamWaitEvent(stream->stream, event->event, 0));
    });
}

gpucore_status event_create(int device, gpucore_event* event, gpucore_message* msg) {
    return guarded(msg, device, [&] {
        ensure_usable(device);
        DeviceScope scope(device);
        auto impl = std::make_unique<gpucore_event_impl>();
        impl->device = device;
        GPUCORE_GPU_CHECK(gpuEventCreate(&impl->event));
        *event = impl.release();
    });
}

gpucore_status event_destroy(gpucore_event event, gpucore_message* msg) {
    const gpucore_status status = guarded(msg, event->device, [&] {
        DeviceScope scope(event->device);
        GPUCORE_GPU_CHECK(gpuEventDestroy(event->event));
    });
    delete event;
    return status;
}

gpucore_status event_record(gpucore_event event, gpucore_stream stream, gpucore_message* msg) {
    return guarded(msg, stream->device, [&] {
        ensure_usable(stream->device);
        DeviceScope scope(stream->device);
        GPUCORE_GPU_CHECK(gpuEventRecord(event->event, stream->stream));
        event->recorded.store(true, std::memory_order_release);
    });
}

gpucore_status event_synchronize(gpucore_event event, gpucore_message* msg) {
    return guarded(msg, event->device, [&] {
        ensure_usable(event->device);
        GPUCORE_GPU_CHECK(gpuEventSynchronize(event->event));
    });
}

gpucore_status event_query(gpucore_event event, int* done, gpucore_message* msg) {
    return guarded(msg, event->device, [&] {
        ensure_usable(event->device);
        query_result(gpuEventQuery(event->event), done, "gpuEventQuery(event)");
    });
}

gpucore_status event_elapsed_ms(gpucore_event start, gpucore_event end, double* ms,
                                gpucore_message* msg) {
    return guarded(msg, start->device, [&] {
        ensure_usable(start->device);
        if (!start->recorded.load(std::memory_order_acquire) ||
            !end->recorded.load(std::memory_order_acquire)) {
            throw GpuError(GPUCORE_ERROR_INVALID_ARGUMENT, "an event was never recorded");
        }
        float elapsed = 0.0f;
        const gpuError_t err = gpuEventElapsedTime(&elapsed, start->event, end->event);
        if (err == gpuErrorNotReady) {
            throw GpuError(GPUCORE_ERROR_INVALID_ARGUMENT,
                           "an event has not completed yet (synchronize it first)");
        }
        GPUCORE_GPU_CHECK(err);
        *ms = static_cast<double>(elapsed);
    });
}

} // namespace

void fill_stream_slots(gpucore_plugin_api& table) noexcept {
    table.stream_create = stream_create;
    table.stream_destroy = stream_destroy;
    table.stream_synchronize = stream_synchronize;
    table.stream_query = stream_query;
    table.stream_wait_event = stream_wait_event;
    table.stream_native_handle = stream_native_handle;
    table.enqueue_host_task = enqueue_host_task;
    table.event_create = event_create;
    table.event_destroy = event_destroy;
    table.event_record = event_record;
    table.event_synchronize = event_synchronize;
    table.event_query = event_query;
    table.event_elapsed_ms = event_elapsed_ms;
}

} // namespace gpucore::gpu

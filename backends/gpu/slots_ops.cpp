// SPDX-License-Identifier: Apache-2.0
// Slots: vector_add, transpose, reduce, reduce_rows. Each enqueues one kernel on the stream.
#include "gpu_error.hpp"
#include "launch.hpp"
#include "plugin_handles.hpp"
#include "plugin_state.hpp"
#include "plugin_table.hpp"
#include "slot_guard.hpp"

namespace gpucore::gpu {
namespace {

// Runs `launch(ctx)` for `stream` on its device, as a guarded slot.
template <class Launch>
gpucore_status enqueue(gpucore_stream stream, gpucore_message* msg, Launch&& launch) {
    return guarded(msg, stream->device, [&] {
        ensure_usable(stream->device);
        DeviceScope scope(stream->device);
        const LaunchContext ctx{stream->stream, device_record(stream->device).shape,
                                stream->scratch};
        launch(ctx);
    });
}

gpucore_status vector_add(gpucore_dtype dtype, const void* a, const void* b, void* c, size_t n,
                          gpucore_stream stream, gpucore_message* msg) {
    return enqueue(stream, msg, [&](const LaunchContext& ctx) {
        launch_vector_add(dtype, a, b, c, n, ctx);
    });
}

gpucore_status transpose(gpucore_dtype dtype, const void* in, void* out, size_t rows, size_t cols,
                         gpucore_stream stream, gpucore_message* msg) {
    return enqueue(stream, msg, [&](const LaunchContext& ctx) {
        launch_transpose(dtype, in, out, rows, cols, ctx);
    });
}

gpucore_status reduce(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, size_t n,
                      void* out, gpucore_stream stream, gpucore_message* msg) {
    return enqueue(stream, msg, [&](const LaunchContext& ctx) {
        launch_reduce(dtype, op, in, n, out, ctx);
    });
}

gpucore_status reduce_rows(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, size_t rows,
                           size_t cols, void* out, gpucore_stream stream, gpucore_message* msg) {
    return enqueue(stream, msg, [&](const LaunchContext& ctx) {
        launch_reduce_rows(dtype, op, in, rows, cols, out, ctx);
    });
}

} // namespace

void fill_op_slots(gpucore_plugin_api& table) noexcept {
    table.vector_add = vector_add;
    table.transpose = transpose;
    table.reduce = reduce;
    table.reduce_rows = reduce_rows;
}

} // namespace gpucore::gpu

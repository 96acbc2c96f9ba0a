// SPDX-License-Identifier: Apache-2.0
// The body of an operation's slot. Each operation's slot lives in its launcher's file
// (launch_<family>.cu), beside its kernel's launch, and is written into the table by that file's
// filler (plugin_table.hpp): a new operation of an existing family touches that one file.
#pragma once

#include "launch.hpp"
#include "plugin_handles.hpp"
#include "plugin_state.hpp"
#include "slot_guard.hpp"

namespace gpucore::gpu {

// Runs `launch(ctx)` for `stream` on its device, as a guarded slot.
template <class Launch>
gpucore_status enqueue_op(gpucore_stream stream, gpucore_message* msg, Launch&& launch) noexcept {
    return guarded(msg, stream->device, [&] {
        ensure_usable(stream->device);
        DeviceScope scope(stream->device);
        const LaunchContext ctx{stream->stream, device_record(stream->device).shape,
                                stream->scratch};
        launch(ctx);
    });
}

} // namespace gpucore::gpu

// SPDX-License-Identifier: Apache-2.0
// The C boundary: every slot runs its body through guarded(), the plugin SDK's guard
// (gpucore/plugin_support.hpp), which turns any exception into a status and a message; here it
// also marks the device lost on a sticky error. Nothing escapes.
#pragma once

#include "gpu_error.hpp"
#include "gpucore/plugin.h"
#include "gpucore/plugin_support.hpp"
#include "plugin_state.hpp"

namespace gpucore::gpu {

using plugin::write_message;

// Runs body(); `device` is the device the slot works on (-1 when none).
template <class Body>
gpucore_status guarded(gpucore_message* msg, int device, Body&& body) noexcept {
    return plugin::guarded(msg, std::forward<Body>(body), [device](gpucore_status, const char*) {
        try {
            throw;
        } catch (const GpuError& e) {
            if (e.sticky()) mark_lost(device, e.what());
        }
    });
}

} // namespace gpucore::gpu

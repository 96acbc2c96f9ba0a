// SPDX-License-Identifier: Apache-2.0
// What the opaque gpucore_stream / gpucore_event handles point to.
#pragma once

#include <atomic>

#include "gpu_vendor.hpp"
#include "gpucore/plugin.h"
#include "launch.hpp"

struct gpucore_stream_impl {
    int device = -1;
    gpuStream_t stream = nullptr;
    gpucore::gpu::StreamScratch scratch; // from the device's pool; back to it on destroy
};

struct gpucore_event_impl {
    int device = -1;
    gpuEvent_t event = nullptr;
    std::atomic<bool> recorded{false}; // elapsed time needs both events recorded
};

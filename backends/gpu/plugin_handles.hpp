// SPDX-License-Identifier: Apache-2.0
// What the opaque gpucore_stream / gpucore_event handles point to.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "gpu_vendor.hpp"
#include "gpucore/plugin.h"
#include "launch.hpp"

struct gpucore_stream_impl {
    int device = -1;
    gpuStream_t stream = nullptr;
    gpucore::gpu::StreamScratch scratch; // from the device's pool; back to it on destroy
    // The first failure of a host task queued on the stream, reported by the next synchronize.
    std::mutex host_failure_mutex;
    gpucore_status host_failure_status = GPUCORE_OK;
    std::string host_failure;
};

struct gpucore_event_impl {
    int device = -1;
    gpuEvent_t event = nullptr;
    std::atomic<bool> recorded{false}; // elapsed time needs both events recorded
};

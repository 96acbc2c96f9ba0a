// SPDX-License-Identifier: Apache-2.0
// DeviceWorkFence: a fence after everything queued on a device so far, made of one event recorded
// on every stream of that device the runtime knows (the users' streams and the internal one), so
// that a stream of another device of the same backend can be made to wait for it without a host wait.
// Copies between devices use it to order themselves after the other device's queued work.
#pragma once

#include <vector>

#include "backend.hpp"

namespace gpucore::detail {

class DeviceWorkFence {
public:
    // Records an event on every known stream of `device` (events come from a per-device pool and
    // go back to it when this object is destroyed). Throws Error(operation) when the backend fails.
    DeviceWorkFence(Backend& backend, int device, const char* operation);
    ~DeviceWorkFence();
    DeviceWorkFence(const DeviceWorkFence&) = delete;
    DeviceWorkFence& operator=(const DeviceWorkFence&) = delete;

    // Work enqueued on `stream` (of `stream_device`, a device of the same backend) after this call
    // waits for the captured work.
    void order_before(gpucore_stream stream, int stream_device, const char* operation) const;
    // Blocks the calling thread until the captured work has finished.
    void wait(const char* operation) const;

private:
    Backend& backend_;
    int device_;
    std::vector<gpucore_event> events_;
};

} // namespace gpucore::detail

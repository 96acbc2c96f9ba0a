// SPDX-License-Identifier: Apache-2.0
// Copies between memory of two different devices, of one backend or of two.
#pragma once

#include <cstddef>

#include "gpucore/device.hpp"
#include "gpucore/stream.hpp"

namespace gpucore::detail {

// A range of device memory: `bytes` at `data` in an allocation of `device` (a whole buffer, or a
// part of one).
struct DeviceRange {
    Device device;
    void* data;
    std::size_t bytes;
};

// Copies `src` into `dst` (same size, > 0 bytes, different devices: the caller checked, and that
// `stream`, when given, is a valid stream of one of the two devices).
//  - Same backend with the copy_peer slot: one peer copy, on `stream` (asynchronous), or on the
//    destination's internal stream (blocking). Ordered after the work queued so far on the other
//    device (and, blocking, on both devices), by events the copy's stream waits on.
//  - Otherwise (another backend, or no copy_peer): staged through pinned host memory in chunks,
//    the source's device-to-host copy of one chunk overlapping the destination's host-to-device
//    copy of the previous one. Ordered after the work queued so far on both devices; returns when
//    the copy is done, also when `stream` is given.
// Errors name both devices: "copy from <src> to <dst>: <cause>".
void copy_between_devices(const DeviceRange& dst, const DeviceRange& src, Stream* stream,
                          const char* operation);

} // namespace gpucore::detail

// SPDX-License-Identifier: Apache-2.0
// detail::Access: the core's one door into the private parts of the public classes (Device's
// constructor, the backend handles inside Stream and Event), so they need no public accessors.
#pragma once

#include "backend.hpp"
#include "gpucore/device.hpp"
#include "gpucore/error.hpp"
#include "gpucore/stream.hpp"

namespace gpucore::detail {

struct Access {
    static Device make_device(Backend* backend, int index) noexcept { return Device(backend, index); }
    static Backend* backend(const Device& device) noexcept { return device.backend_; }
    static int index(const Device& device) noexcept { return device.index_; }
    static gpucore_stream handle(const Stream& stream) noexcept {
        return static_cast<gpucore_stream>(stream.handle_);
    }
    static gpucore_event handle(const Event& event) noexcept {
        return static_cast<gpucore_event>(event.handle_);
    }
    // The core's record of a valid stream (stream_ordering.hpp).
    static StreamRecord& record(const Stream& stream) noexcept {
        return *static_cast<StreamRecord*>(stream.record_);
    }
    // The device of a valid stream, without the throwing accessor.
    static const Device& device(const Stream& stream) noexcept { return stream.device_; }
    static const Device& device(const Event& event) noexcept { return event.device_; }
    // The process generation the object was created in (process_fork.hpp).
    static unsigned generation(const Stream& stream) noexcept { return stream.generation_; }
    static unsigned generation(const Event& event) noexcept { return event.generation_; }
};

// The backend of `device`; Error(invalid_argument, operation) when the device is null.
Backend& backend_of(const Device& device, const char* operation);

// Notes that the core has just enqueued work on the valid `stream` (see StreamRecord).
inline void note_enqueued(const Stream& stream) noexcept { note_enqueued(Access::record(stream)); }

// Notes an enqueue on `stream` when it leaves scope: after the enqueue returned or threw (a failed
// call may still have queued part of its work).
class EnqueueNote {
public:
    explicit EnqueueNote(const Stream& stream) noexcept : stream_(stream) {}
    ~EnqueueNote() { note_enqueued(stream_); }
    EnqueueNote(const EnqueueNote&) = delete;
    EnqueueNote& operator=(const EnqueueNote&) = delete;

private:
    const Stream& stream_;
};

// Error(invalid_argument) naming `operation` when `stream` is moved-from / null.
void require_valid(const Stream& stream, const char* operation);
void require_valid(const Event& event, const char* operation);

} // namespace gpucore::detail

// SPDX-License-Identifier: Apache-2.0
// Stream: an in-order asynchronous queue of work on one device. Event: a marker in a stream.
//
// Thread safety: a Stream may be shared by several threads; work they enqueue concurrently runs in
// some order consistent with each thread's own order. synchronize()/query() may be called from any
// thread. Event::record on one thread racing with synchronize/query on another is allowed (the
// waiter sees either record). Moving or destroying an object while another thread uses it is not.
// Destroying a Stream waits for its pending work first. After fork(), a child process creates and
// uses its own Streams and Events; one inherited from the parent is an Error there.
#pragma once

#include "gpucore/device.hpp"

namespace gpucore {

class Event;

class GPUCORE_API Stream {
public:
    explicit Stream(const Device& device);
    ~Stream();
    Stream(Stream&& other) noexcept;
    Stream& operator=(Stream&& other) noexcept;
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    const Device& device() const;     // throws on a moved-from stream
    bool valid() const noexcept { return handle_ != nullptr; }

    // Blocks until all work enqueued so far has finished. Reports (throws) an error raised by it.
    void synchronize();
    // True when all work enqueued so far has finished. Never blocks.
    bool query() const;
    // Work enqueued after this call waits for `event`'s latest record (cross-stream dependency).
    // The event must belong to the same device.
    void wait(const Event& event);

    // The backend's own handle of this stream, for enqueuing your own kernels and library calls on
    // it in order with gpucore's work: a cudaStream_t (cuda) or hipStream_t (hip) as void*. The cpu
    // backend returns the address of its own queue object: an identity, unique among live streams,
    // not a handle any vendor API accepts. Valid while this Stream lives; do not destroy it. Once
    // taken, every blocking call of the device (Buffer::to_vector, copy_from_host, ...) also waits
    // for whatever you enqueue on it. Error(not_supported) for a backend whose plugin lacks the
    // stream_native_handle slot (plugins built against ABI 1.0 or 1.1).
    void* native_handle();

private:
    friend struct detail::Access;
    void release() noexcept;
    Device device_;
    void* handle_ = nullptr; // the backend's gpucore_stream
    void* record_ = nullptr; // the core's record of it (ordering of blocking calls, set-aside failures)
    unsigned generation_ = 0; // the process that created it (see docs/thread_safety.md, fork)
};

class GPUCORE_API Event {
public:
    explicit Event(const Device& device);
    ~Event();
    Event(Event&& other) noexcept;
    Event& operator=(Event&& other) noexcept;
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;

    const Device& device() const;
    bool valid() const noexcept { return handle_ != nullptr; }

    // Marks the point in `stream` reached by the work enqueued so far (same device required).
    void record(Stream& stream);
    // Blocks until the recorded work has finished.
    void synchronize();
    // True when the recorded work has finished (or the event was never recorded).
    bool query() const;

private:
    friend struct detail::Access;
    void release() noexcept;
    Device device_;
    void* handle_ = nullptr; // the backend's gpucore_event
    unsigned generation_ = 0; // the process that created it (see docs/thread_safety.md, fork)
};

// Milliseconds between two completed records on the same device (end - start).
GPUCORE_API double elapsed_ms(const Event& start, const Event& end);

} // namespace gpucore

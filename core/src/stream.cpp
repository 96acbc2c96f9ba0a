// SPDX-License-Identifier: Apache-2.0
// Stream and Event: thin RAII owners of a backend's stream/event handles.
#include "gpucore/stream.hpp"

#include <utility>

#include "access.hpp"
#include "logging.hpp"
#include "process_fork.hpp"
#include "result_cell.hpp"

namespace gpucore {

namespace detail {

void require_valid(const Stream& stream, const char* operation) {
    if (!stream.valid()) {
        throw Error(ErrorCode::invalid_argument, operation, "", -1, "moved-from or null Stream");
    }
    require_this_process(Access::generation(stream), "the stream", operation);
}

void require_valid(const Event& event, const char* operation) {
    if (!event.valid()) {
        throw Error(ErrorCode::invalid_argument, operation, "", -1, "moved-from or null Event");
    }
    require_this_process(Access::generation(event), "the event", operation);
}

namespace {
void require_same_device(const Device& a, const char* a_what, const Device& b, const char* b_what,
                         const char* operation) {
    if (a != b) {
        throw Error(ErrorCode::invalid_argument, operation, Access::backend(a)->name(), Access::index(a),
                    std::string(a_what) + " is on " + a.to_string() + " but " + b_what + " is on " +
                        b.to_string() + " (they must be on the same device)");
    }
}
} // namespace

} // namespace detail

// ---- Stream ---------------------------------------------------------------------------------

Stream::Stream(const Device& device) {
    auto& backend = detail::backend_of(device, "Stream::Stream");
    const int index = detail::Access::index(device);
    gpucore_stream created = nullptr;
    backend.call("Stream::Stream", index, backend.api().stream_create, index, &created);
    try {
        record_ = backend.streams().register_stream(index, created);
    } catch (...) {
        gpucore_message ignored;
        ignored.text[0] = '\0';
        backend.invoke("Stream::Stream", ignored, backend.api().stream_destroy, created);
        throw;
    }
    device_ = device;
    handle_ = created;
    generation_ = detail::process_generation();
}

Stream::~Stream() { release(); }

Stream::Stream(Stream&& other) noexcept
    : device_(std::exchange(other.device_, Device())), handle_(std::exchange(other.handle_, nullptr)),
      record_(std::exchange(other.record_, nullptr)), generation_(other.generation_) {}

Stream& Stream::operator=(Stream&& other) noexcept {
    if (this != &other) {
        release();
        device_ = std::exchange(other.device_, Device());
        handle_ = std::exchange(other.handle_, nullptr);
        record_ = std::exchange(other.record_, nullptr);
        generation_ = other.generation_;
    }
    return *this;
}

void Stream::release() noexcept {
    if (handle_ == nullptr) return;
    if (generation_ != detail::process_generation()) { // the parent's: its worker is not here
        handle_ = nullptr;
        record_ = nullptr;
        device_ = Device();
        return;
    }
    auto* backend = detail::Access::backend(device_);
    const int index = detail::Access::index(device_);
    auto* stream = static_cast<gpucore_stream>(handle_);
    detail::ResultCellMemory result_cell = detail::take_result_cell(detail::Access::record(*this));
    const gpucore_event order_event = backend->streams().unregister_stream(index, stream);
    gpucore_message message;
    message.text[0] = '\0';
    if (backend->invoke("Stream::~Stream", message, backend->api().stream_destroy, stream) != GPUCORE_OK) {
        // Destructors never throw: the failure (usually an error from pending work) is logged.
        try {
            detail::logger().error("Stream::~Stream on {}: {}", device_.to_string(), message.text);
        } catch (...) {
        }
    }
    backend->streams().destroy_order_event(order_event);
    result_cell.device.free_now(); // only this stream's work used them
    result_cell.host.free_now();
    handle_ = nullptr;
    record_ = nullptr;
    device_ = Device();
}

const Device& Stream::device() const {
    detail::require_valid(*this, "Stream::device");
    return device_;
}

void Stream::synchronize() {
    detail::require_valid(*this, "Stream::synchronize");
    detail::Access::backend(device_)->streams().synchronize_stream(device_.index(), detail::Access::handle(*this),
                                                         "Stream::synchronize");
}

bool Stream::query() const {
    detail::require_valid(*this, "Stream::query");
    const auto& backend = *detail::Access::backend(device_);
    int done = 0;
    backend.call("Stream::query", device_.index(), backend.api().stream_query,
                 detail::Access::handle(*this), &done);
    return done != 0;
}

void Stream::wait(const Event& event) {
    detail::require_valid(*this, "Stream::wait");
    detail::require_valid(event, "Stream::wait");
    detail::require_same_device(device_, "the stream", detail::Access::device(event), "the event",
                                "Stream::wait");
    const auto& backend = *detail::Access::backend(device_);
    backend.call("Stream::wait", device_.index(), backend.api().stream_wait_event,
                 detail::Access::handle(*this), detail::Access::handle(event));
}

void* Stream::native_handle() {
    detail::require_valid(*this, "Stream::native_handle");
    return detail::Access::backend(device_)->streams().native_stream_handle(
        device_.index(), detail::Access::handle(*this), detail::Access::record(*this), "Stream::native_handle");
}

// ---- Event ----------------------------------------------------------------------------------

Event::Event(const Device& device) {
    auto& backend = detail::backend_of(device, "Event::Event");
    const int index = detail::Access::index(device);
    gpucore_event created = nullptr;
    backend.call("Event::Event", index, backend.api().event_create, index, &created);
    device_ = device;
    handle_ = created;
    generation_ = detail::process_generation();
}

Event::~Event() { release(); }

Event::Event(Event&& other) noexcept
    : device_(std::exchange(other.device_, Device())), handle_(std::exchange(other.handle_, nullptr)),
      generation_(other.generation_) {}

Event& Event::operator=(Event&& other) noexcept {
    if (this != &other) {
        release();
        device_ = std::exchange(other.device_, Device());
        handle_ = std::exchange(other.handle_, nullptr);
        generation_ = other.generation_;
    }
    return *this;
}

void Event::release() noexcept {
    if (handle_ == nullptr) return;
    if (generation_ != detail::process_generation()) { // the parent's: not ours to destroy
        handle_ = nullptr;
        device_ = Device();
        return;
    }
    auto* backend = detail::Access::backend(device_);
    gpucore_message message;
    message.text[0] = '\0';
    if (backend->invoke("Event::~Event", message, backend->api().event_destroy,
                        static_cast<gpucore_event>(handle_)) != GPUCORE_OK) {
        try {
            detail::logger().error("Event::~Event on {}: {}", device_.to_string(), message.text);
        } catch (...) {
        }
    }
    handle_ = nullptr;
    device_ = Device();
}

const Device& Event::device() const {
    detail::require_valid(*this, "Event::device");
    return device_;
}

void Event::record(Stream& stream) {
    detail::require_valid(*this, "Event::record");
    detail::require_valid(stream, "Event::record");
    detail::require_same_device(device_, "the event", detail::Access::device(stream), "the stream",
                                "Event::record");
    const auto& backend = *detail::Access::backend(device_);
    backend.call("Event::record", device_.index(), backend.api().event_record,
                 detail::Access::handle(*this), detail::Access::handle(stream));
}

void Event::synchronize() {
    detail::require_valid(*this, "Event::synchronize");
    const auto& backend = *detail::Access::backend(device_);
    backend.call("Event::synchronize", device_.index(), backend.api().event_synchronize,
                 detail::Access::handle(*this));
}

bool Event::query() const {
    detail::require_valid(*this, "Event::query");
    const auto& backend = *detail::Access::backend(device_);
    int done = 0;
    backend.call("Event::query", device_.index(), backend.api().event_query,
                 detail::Access::handle(*this), &done);
    return done != 0;
}

double elapsed_ms(const Event& start, const Event& end) {
    detail::require_valid(start, "elapsed_ms");
    detail::require_valid(end, "elapsed_ms");
    const Device& device = detail::Access::device(start);
    detail::require_same_device(device, "the start event", detail::Access::device(end), "the end event",
                                "elapsed_ms");
    const auto& backend = *detail::Access::backend(device);
    double ms = 0.0;
    backend.call("elapsed_ms", device.index(), backend.api().event_elapsed_ms,
                 detail::Access::handle(start), detail::Access::handle(end), &ms);
    return ms;
}

} // namespace gpucore

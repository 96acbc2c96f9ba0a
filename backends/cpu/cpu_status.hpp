// Errors inside the CPU backend and the one place where they become the contract's status codes.
// Every slot runs its body through `guarded`, so no C++ exception ever crosses the C boundary.
#pragma once

#include <cstddef>
#include <new>
#include <stdexcept>
#include <string>

#include "gpucore/plugin.h"

namespace gpucore::cpu {

// An error that already knows its contract status (e.g. NOT_SUPPORTED for an unknown dtype).
class BackendError : public std::runtime_error {
public:
    BackendError(gpucore_status status, const std::string& what)
        : std::runtime_error(what), status_(status) {}
    gpucore_status status() const noexcept { return status_; }

private:
    gpucore_status status_;
};

// Copies `text` into msg->text, truncated to fit and always NUL-terminated.
void write_message(gpucore_message* msg, const char* text) noexcept;

// Classifies the exception being handled (call only inside a catch block): std::bad_alloc ->
// OUT_OF_MEMORY, BackendError -> its status, anything else -> PLUGIN. Writes the cause, preceded
// by "<operation>: " when `operation` is not null, into text[0 .. capacity) (always terminated).
// Allocates nothing: it also runs when memory is exhausted, and then must still name the cause.
gpucore_status describe_current_exception(const char* operation, char* text, std::size_t capacity) noexcept;

// Runs `body` and turns any exception into a status plus message.
template <class Body>
gpucore_status guarded(gpucore_message* msg, Body&& body) noexcept {
    try {
        body();
        return GPUCORE_OK;
    } catch (...) {
        return describe_current_exception(nullptr, msg->text, sizeof msg->text);
    }
}

} // namespace gpucore::cpu

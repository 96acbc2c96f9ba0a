// Errors inside the CPU backend and the one place where they become the contract's status codes.
// Every slot runs its body through `guarded`, so no C++ exception ever crosses the C boundary.
#pragma once

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
// OUT_OF_MEMORY, BackendError -> its status, anything else -> PLUGIN. Writes the cause to *text.
gpucore_status classify_current_exception(std::string* text) noexcept;

// Runs `body` and turns any exception into a status plus message.
template <class Body>
gpucore_status guarded(gpucore_message* msg, Body&& body) noexcept {
    try {
        body();
        return GPUCORE_OK;
    } catch (...) {
        std::string text;
        const gpucore_status status = classify_current_exception(&text);
        write_message(msg, text.empty() ? "out of host memory while reporting an error" : text.c_str());
        return status;
    }
}

} // namespace gpucore::cpu

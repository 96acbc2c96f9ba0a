// SPDX-License-Identifier: Apache-2.0
#include "gpucore/error.hpp"

#include <utility>

namespace gpucore {

const char* to_string(ErrorCode code) noexcept {
    switch (code) {
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::out_of_memory: return "out_of_memory";
    case ErrorCode::backend_unavailable: return "backend_unavailable";
    case ErrorCode::plugin_error: return "plugin_error";
    case ErrorCode::device_error: return "device_error";
    case ErrorCode::not_supported: return "not_supported";
    }
    return "unknown_error";
}

namespace {
// "<operation> on <backend>:<device>: <cause> [<code>]"; the location part shrinks to what is known.
std::string format_message(ErrorCode code, const std::string& operation, const std::string& backend,
                           int device, const std::string& cause) {
    std::string text = operation.empty() ? std::string("gpucore") : operation;
    if (!backend.empty()) {
        text += " on ";
        text += backend;
        if (device >= 0) {
            text += ':';
            text += std::to_string(device);
        }
    }
    text += ": ";
    text += cause;
    text += " [";
    text += to_string(code);
    text += ']';
    return text;
}
} // namespace

Error::Error(ErrorCode code, std::string operation, std::string backend, int device,
             std::string cause)
    : std::runtime_error(format_message(code, operation, backend, device, cause)), code_(code),
      operation_(std::move(operation)), backend_(std::move(backend)), device_(device),
      cause_(std::move(cause)) {}

} // namespace gpucore

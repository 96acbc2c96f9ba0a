// SPDX-License-Identifier: Apache-2.0
// gpucore::Error: the one exception type the library throws.
#pragma once

#include <stdexcept>
#include <string>

#include "gpucore/export.hpp"

namespace gpucore {

enum class ErrorCode {
    invalid_argument,    // the caller's mistake: sizes, shapes, devices, moved-from objects
    out_of_memory,       // an allocation did not fit
    backend_unavailable, // backend missing, not loadable, or without devices
    plugin_error,        // a plugin misbehaved (bad table, failed init, internal failure)
    device_error,        // the device failed (kernel fault, sticky runtime error)
    not_supported,       // valid request the backend or device cannot do (e.g. managed memory)
};

// Lowercase name of a code, as printed in messages: "invalid_argument".
GPUCORE_API const char* to_string(ErrorCode code) noexcept;

// Thrown by every gpucore function that fails. what() reads
//   "<operation> on <backend>:<device>: <cause> [<code>]"
// e.g. "vector_add on cuda:0: buffer lengths differ (a: 10, b: 10, c: 9) [invalid_argument]".
// backend is empty and device is -1 where the error concerns no particular backend or device.
class GPUCORE_API Error : public std::runtime_error {
public:
    Error(ErrorCode code, std::string operation, std::string backend, int device,
          std::string cause);

    ErrorCode code() const noexcept { return code_; }
    const std::string& operation() const noexcept { return operation_; }
    const std::string& backend() const noexcept { return backend_; }
    int device() const noexcept { return device_; }
    const std::string& cause() const noexcept { return cause_; }

private:
    ErrorCode code_;
    std::string operation_;
    std::string backend_;
    int device_;
    std::string cause_;
};

} // namespace gpucore

// SPDX-License-Identifier: Apache-2.0
// GPU_BACKEND-style selections: "auto" | <backend>[:<device index>], parsed strictly and applied.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "gpucore/device.hpp"

namespace gpucore::detail {

class Runtime;

struct BackendSelection {
    bool automatic = true;     // "auto" or empty
    std::string backend;       // the named backend when not automatic
    std::optional<int> device; // ":N" when given
};

// Parses `text`. Throws Error(invalid_argument, operation) quoting `text` for anything but "",
// "auto", or a valid backend name optionally followed by ":" and a decimal index 0..INT_MAX
// (so "cpu:", "cpu:x", ":1", "cpu:-1", "cpu:99999999999", "CPU", "auto:0" are all invalid).
BackendSelection parse_backend_selection(std::string_view text, const char* operation);

// Applies a selection to the runtime's backends (see gpucore::select_device for the rules).
// Throws Error(invalid_argument / backend_unavailable) naming `operation`; the failure is logged
// at debug level only (the caller owns the error).
Device select_device(const Runtime& runtime, std::string_view text, const char* operation);

} // namespace gpucore::detail

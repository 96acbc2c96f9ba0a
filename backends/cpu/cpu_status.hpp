// SPDX-License-Identifier: Apache-2.0
// Errors inside the CPU backend and the one place where they become the contract's status codes:
// the plugin SDK's StatusError and guarded (gpucore/plugin_support.hpp). Every slot runs its body
// through `guarded`, so no C++ exception ever crosses the C boundary.
#pragma once

#include "gpucore/plugin_support.hpp"

namespace gpucore::cpu {

// An error that already knows its contract status (e.g. NOT_SUPPORTED for an unknown dtype).
using BackendError = plugin::StatusError;

using plugin::describe_current_exception;
using plugin::guarded;
using plugin::write_message;

} // namespace gpucore::cpu

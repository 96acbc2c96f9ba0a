// SPDX-License-Identifier: Apache-2.0
// The C boundary between the core and plugin code: nothing thrown by a plugin may pass it.
#pragma once

#include <string>

namespace gpucore::detail {

// "threw a C++ exception (<what>)" for the exception being handled; call it only inside a catch
// block. Never throws except std::bad_alloc.
std::string describe_current_exception();

} // namespace gpucore::detail

// SPDX-License-Identifier: Apache-2.0
// The command's checks of a device's output: the reference library's (gpucore_reference), under
// the command's names.
#pragma once

#include "gpucore_reference/verify.hpp"

namespace gpucore::cli {

using reference::Expected;
using reference::Verification;
using reference::verify_elements;
using reference::verify_reduce;
using reference::verify_reduce_rows;
using reference::verify_transpose;
using reference::verify_vector_add;

} // namespace gpucore::cli

// SPDX-License-Identifier: Apache-2.0
// The whole public API of gpucore. See README.md for a tour.
#pragma once

#include "gpucore/buffer.hpp"
#include "gpucore/buffer_view.hpp"
#include "gpucore/device.hpp"
#include "gpucore/error.hpp"
#include "gpucore/module.hpp"
#include "gpucore/ops.hpp"
#include "gpucore/stream.hpp"
#include "gpucore/types.hpp"
#include "gpucore/version.hpp"

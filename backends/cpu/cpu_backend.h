/* SPDX-License-Identifier: Apache-2.0 */
// The built-in CPU backend: the same table a plugin exports, compiled into libgpucore.
// The core registers it like a loaded plugin, with source "built-in".
#pragma once

#include "gpucore/plugin.h"

extern "C" const gpucore_plugin_api* gpucore_cpu_backend_table(gpucore_message* msg);

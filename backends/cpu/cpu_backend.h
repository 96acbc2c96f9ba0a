/* SPDX-License-Identifier: Apache-2.0 */
// The built-in CPU backend: the same table a plugin exports, compiled into libgpucore.
// The core registers it like a loaded plugin, with source "built-in".
#pragma once

#include "gpucore/plugin.h"

extern "C" const gpucore_plugin_api* gpucore_cpu_backend_table(gpucore_message* msg);

// Checks that every byte of [ptr, ptr + bytes) is readable and writable host memory of this
// process (the cpu backend's device memory), where the table's pointer_device slot checks one
// address. GPUCORE_ERROR_INVALID_ARGUMENT with the first byte that is not, or with why the check
// cannot be made (the process's memory map cannot be read): the range is refused then.
extern "C" gpucore_status gpucore_cpu_check_host_range(const void* ptr, size_t bytes, gpucore_message* msg);

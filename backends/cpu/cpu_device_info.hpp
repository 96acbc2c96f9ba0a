// SPDX-License-Identifier: Apache-2.0
// What the CPU backend reports about its one device: the host processor.
#pragma once

#include "gpucore/plugin.h"

namespace gpucore::cpu {

// Fills every field of *props that lies within props->struct_size (as set by the core) with the
// host's description: model name and vendor from /proc/cpuinfo, architecture from uname, physical
// memory from sysconf, compute units = the thread pool's max_threads(), warp size 1, peak bandwidth 0
// (unknown). Fields it cannot read are left as a fallback ("unknown", 0). May throw std::bad_alloc.
void fill_device_properties(gpucore_device_properties* props);

} // namespace gpucore::cpu

// SPDX-License-Identifier: Apache-2.0
// Checks a run's memory before it allocates: a run larger than RAM would otherwise be killed by
// the kernel without a word, and one larger than the device would fail half-way through.
#pragma once

#include <cstdint>
#include <string>

#include "gpucore/device.hpp"

namespace gpucore::cli {

// Host memory available to a new allocation now: MemAvailable from /proc/meminfo, else free pages
// (sysconf). 0 when neither can be read.
std::uint64_t available_host_memory();

// Throws ResourceError naming `what` and the numbers when `device_bytes` exceed the device's total
// memory (when known), or `host_bytes` exceed the available host memory. The cpu backend's device
// memory is host memory: there both count against the host.
void require_memory(const Device& device, const std::string& what, double device_bytes, double host_bytes);

} // namespace gpucore::cli

// SPDX-License-Identifier: Apache-2.0
// Checks a run's memory before it allocates: a run larger than RAM would otherwise be killed by
// the kernel without a word, and one larger than the device would fail half-way through.
#pragma once

#include <cstdint>
#include <string>

#include "cgroup_memory.hpp"
#include "gpucore/device.hpp"

namespace gpucore::cli {

struct HostMemory {
    std::uint64_t bytes = 0; // 0 when nothing could be read
    std::string source;      // what set it: "MemAvailable", or the cgroup limit file and its numbers
};

// Host memory available to a new allocation now: MemAvailable from `meminfo` (else free pages,
// sysconf), or less where a memory cgroup of the process allows less (cgroup_memory.hpp).
HostMemory available_host_memory(const std::string& meminfo = "/proc/meminfo",
                                 const CgroupSources& cgroups = CgroupSources{});

// Throws ResourceError naming `what` and the numbers when `device_bytes` exceed the device's total
// memory (when known), or `host_bytes` exceed the available host memory (of `host`, by default
// available_host_memory()). The cpu backend's device memory is host memory: there both count
// against the host.
void require_memory(const Device& device, const std::string& what, double device_bytes, double host_bytes);
void require_memory(const Device& device, const std::string& what, double device_bytes, double host_bytes,
                    const HostMemory& host);

} // namespace gpucore::cli

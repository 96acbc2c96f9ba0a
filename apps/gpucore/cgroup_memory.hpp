// SPDX-License-Identifier: Apache-2.0
// The memory the process's control groups still allow it (Linux cgroup v2 memory.max and v1
// memory.limit_in_bytes, of its own group and every group above), so that a run larger than a
// container's limit is refused with a message instead of being killed by the OOM killer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpucore::cli {

// Where the cgroup information is read; tests point these at a fake tree.
struct CgroupSources {
    std::string proc_self_cgroup = "/proc/self/cgroup";
    std::string mountinfo = "/proc/self/mountinfo";
    std::string root_prefix; // prepended to every mount point of `mountinfo` (a fake root); "" for /
};

struct CgroupHeadroom {
    std::uint64_t bytes = 0;    // limit - usage (less reclaimable page cache) of the tightest group
    std::uint64_t limit = 0;    // that group's limit
    std::string limit_file;     // ".../memory.max" or ".../memory.limit_in_bytes" that set it
};

// The least headroom over every memory limit that applies to this process (v2 and v1, its group
// and each group above it up to its hierarchy's mount); nullopt when no limit applies or none can
// be read. Usage counts what the group uses now less its inactive file cache (which the kernel
// reclaims before it kills). Never throws except std::bad_alloc.
std::optional<CgroupHeadroom> cgroup_memory_headroom(const CgroupSources& sources = CgroupSources{});

} // namespace gpucore::cli

// SPDX-License-Identifier: Apache-2.0
#include "cpu_device_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "cpu_thread_pool.hpp"

namespace gpucore::cpu {
namespace {

// The value of the first "key : value" line of /proc/cpuinfo whose key is `key`, or "".
std::string cpuinfo_value(const std::string& key) {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string name = line.substr(0, colon);
        name.erase(name.find_last_not_of(" \t") + 1);
        if (name != key) continue;
        const std::size_t start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? std::string() : line.substr(start);
    }
    return {};
}

template <std::size_t N>
void copy_text(char (&field)[N], const std::string& text) {
    const std::size_t length = std::min(text.size(), N - 1);
    std::memcpy(field, text.data(), length);
    field[length] = '\0';
}

std::uint64_t sysconf_product(int count_name, int size_name) {
    const long count = sysconf(count_name);
    const long size = sysconf(size_name);
    if (count <= 0 || size <= 0) return 0;
    return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
}

} // namespace

void fill_device_properties(gpucore_device_properties* props) {
    gpucore_device_properties info{};
    info.struct_size = props->struct_size;

    // x86 names the model "model name"; other architectures use other keys, tried in turn.
    std::string name = cpuinfo_value("model name");
    if (name.empty()) name = cpuinfo_value("Model");
    if (name.empty()) name = cpuinfo_value("cpu model");
    copy_text(info.name, name.empty() ? std::string("unknown CPU") : name);

    std::string vendor = cpuinfo_value("vendor_id");
    if (vendor.empty()) vendor = cpuinfo_value("CPU implementer");
    copy_text(info.vendor, vendor.empty() ? std::string("unknown") : vendor);

    utsname system{};
    copy_text(info.architecture, uname(&system) == 0 ? std::string(system.machine) : "unknown");

    info.total_memory_bytes = sysconf_product(_SC_PHYS_PAGES, _SC_PAGESIZE);
    info.compute_units = static_cast<std::uint32_t>(max_threads());
    info.warp_size = 1;
#if defined(_SC_LEVEL2_CACHE_SIZE)
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    info.l2_cache_bytes = l2 > 0 ? static_cast<std::uint64_t>(l2) : 0;
#endif
    info.peak_memory_bandwidth_gbps = 0.0; // not knowable portably from user space
    info.supports_pinned_host = 1;
    info.supports_managed = 1;

    // Write no further than the core's struct_size: an older core knows a shorter struct.
    const std::size_t bytes = std::min<std::size_t>(props->struct_size, sizeof(info));
    std::memcpy(props, &info, bytes);
}

} // namespace gpucore::cpu

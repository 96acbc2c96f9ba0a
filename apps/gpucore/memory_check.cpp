// SPDX-License-Identifier: Apache-2.0
#include "memory_check.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <locale>
#include <sstream>

#include "exit_codes.hpp"

namespace gpucore::cli {

namespace {

std::string bytes_text(double bytes) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int unit = 0;
    while (bytes >= 1024.0 && unit < 6) {
        bytes /= 1024.0;
        ++unit;
    }
    char text[48];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
    return text;
}

} // namespace

HostMemory available_host_memory(const std::string& meminfo_path, const CgroupSources& cgroups) {
    HostMemory result;
    std::ifstream meminfo(meminfo_path);
    std::string line;
    while (std::getline(meminfo, line)) {
        std::istringstream fields(line);
        fields.imbue(std::locale::classic()); // a file format: never the process's locale
        std::string key;
        std::uint64_t kib = 0;
        if (fields >> key >> kib && key == "MemAvailable:") {
            result = {kib * 1024, "MemAvailable"};
            break;
        }
    }
    if (result.bytes == 0) {
        const long pages = sysconf(_SC_AVPHYS_PAGES);
        const long page_size = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page_size > 0) {
            result = {static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size), "free pages"};
        }
    }
    // A container's limit is often far below the machine's free memory: past it the OOM killer
    // ends the run without a word.
    if (const auto headroom = cgroup_memory_headroom(cgroups); headroom && (result.bytes == 0 || headroom->bytes < result.bytes)) {
        result = {headroom->bytes, "the memory cgroup's limit, " + headroom->limit_file + " = " +
                                       bytes_text(static_cast<double>(headroom->limit)) + ", less what the group uses"};
    }
    return result;
}

void require_memory(const Device& device, const std::string& what, double device_bytes, double host_bytes) {
    require_memory(device, what, device_bytes, host_bytes, available_host_memory());
}

void require_memory(const Device& device, const std::string& what, double device_bytes, double host_bytes,
                    const HostMemory& host) {
    const bool device_is_host = device.backend_name() == "cpu";
    const double total = static_cast<double>(device.properties().total_memory_bytes);
    if (!device_is_host && total > 0 && device_bytes > total) {
        throw ResourceError(what + " needs " + bytes_text(device_bytes) + " of device memory, but " +
                            device.to_string() + " has " + bytes_text(total) + " in all");
    }
    const double host_needed = host_bytes + (device_is_host ? device_bytes : 0.0);
    const std::uint64_t available = host.bytes;
    if (available > 0 && host_needed > static_cast<double>(available)) {
        throw ResourceError(what + " needs " + bytes_text(host_needed) + " of host memory" +
                            (device_is_host ? " (the cpu backend's buffers plus the host reference)"
                                            : " (inputs and reference kept on the host)") +
                            ", but only " + bytes_text(static_cast<double>(available)) +
                            " is available (" + host.source + "); use a smaller --n, --rows or --cols");
    }
}

} // namespace gpucore::cli

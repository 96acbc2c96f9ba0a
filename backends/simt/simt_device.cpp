// SPDX-License-Identifier: Apache-2.0
// The simt devices (one, or GPUCORE_SIMT_DEVICE_COUNT): their names, sizes, attributes and peers.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <utility>

#include "simt_internal.hpp"

namespace gpucore::simt {
namespace {

thread_local int t_current_device = 0;

std::size_t physical_memory_bytes() noexcept {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

constexpr int kMaxThreadsPerWorker = 2048;
constexpr int kMaxDevices = 8;

int device_count() noexcept {
    static const int count = [] {
        // secure_getenv: a privileged program ignores the variable.
        const char* text = ::secure_getenv("GPUCORE_SIMT_DEVICE_COUNT");
        const int wanted = text != nullptr ? std::atoi(text) : 1;
        return std::clamp(wanted, 1, kMaxDevices);
    }();
    return count;
}

bool valid_device(int device) noexcept { return device >= 0 && device < device_count(); }

struct PeerTable {
    std::mutex mutex;
    std::set<std::pair<int, int>> enabled;
};
PeerTable& peer_table() {
    static PeerTable* table = new PeerTable(); // used until the process ends
    return *table;
}

} // namespace

int worker_count() noexcept {
    static const int count = [] {
        const unsigned hardware = std::thread::hardware_concurrency();
        return static_cast<int>(std::clamp(hardware, 2u, 8u));
    }();
    return count;
}

} // namespace gpucore::simt

using gpucore::simt::record;

simtError_t simtRuntimeGetVersion(int* version) noexcept {
    *version = 1;
    return simtSuccess;
}

simtError_t simtDriverGetVersion(int* version) noexcept {
    *version = 1;
    return simtSuccess;
}

simtError_t simtGetDeviceCount(int* count) noexcept {
    *count = gpucore::simt::device_count();
    return simtSuccess;
}

simtError_t simtGetDevice(int* device) noexcept {
    *device = gpucore::simt::t_current_device;
    return simtSuccess;
}

simtError_t simtSetDevice(int device) noexcept {
    if (!gpucore::simt::valid_device(device)) return record(simtErrorInvalidDevice);
    gpucore::simt::t_current_device = device;
    return simtSuccess;
}

simtError_t simtGetDeviceProperties(simtDeviceProp* props, int device) noexcept {
    if (!gpucore::simt::valid_device(device)) return record(simtErrorInvalidDevice);
    std::snprintf(props->name, sizeof props->name,
                  "gpucore simt, %d-lane wavefronts (CPU execution, test only)",
                  GPUCORE_SIMT_WARP_SIZE);
    props->totalGlobalMem = gpucore::simt::physical_memory_bytes();
    return simtSuccess;
}

simtError_t simtDeviceGetAttribute(int* value, simtDeviceAttr attr, int device) noexcept {
    if (!gpucore::simt::valid_device(device)) return record(simtErrorInvalidDevice);
    switch (attr) {
    case simtDevAttrMultiProcessorCount: *value = gpucore::simt::worker_count(); break;
    case simtDevAttrWarpSize: *value = GPUCORE_SIMT_WARP_SIZE; break;
    case simtDevAttrL2CacheSize: *value = 0; break;
    case simtDevAttrMemoryClockRate: *value = 0; break;
    case simtDevAttrGlobalMemoryBusWidth: *value = 0; break;
    case simtDevAttrManagedMemory: *value = 1; break;
    case simtDevAttrMaxThreadsPerMultiProcessor: *value = gpucore::simt::kMaxThreadsPerWorker; break;
    default: return record(simtErrorInvalidValue);
    }
    return simtSuccess;
}

simtError_t simtDeviceCanAccessPeer(int* can_access, int device, int peer) noexcept {
    if (!gpucore::simt::valid_device(device) || !gpucore::simt::valid_device(peer)) {
        return record(simtErrorInvalidDevice);
    }
    *can_access = device != peer ? 1 : 0;
    return simtSuccess;
}

simtError_t simtDeviceEnablePeerAccess(int peer, unsigned int /*flags*/) noexcept {
    const int device = gpucore::simt::t_current_device;
    if (!gpucore::simt::valid_device(peer) || peer == device) return record(simtErrorInvalidDevice);
    try {
        auto& table = gpucore::simt::peer_table();
        std::lock_guard<std::mutex> lock(table.mutex);
        if (!table.enabled.insert({device, peer}).second) return record(simtErrorPeerAccessAlreadyEnabled);
    } catch (...) {
        return record(simtErrorMemoryAllocation);
    }
    return simtSuccess;
}

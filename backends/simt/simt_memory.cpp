// SPDX-License-Identifier: Apache-2.0
// Device memory is host memory (256-byte aligned, as the GPU runtimes align); the runtime keeps
// its allocations in a table so that a copy can tell its own memory from pageable host memory.
#include <unistd.h>

#include <cstdlib>
#include <map>

#include "simt_internal.hpp"

namespace gpucore::simt {
namespace {

constexpr std::size_t kAlignment = 256;

struct Allocations {
    std::mutex mutex;
    std::map<std::uintptr_t, std::size_t> sizes; // start -> bytes
};

Allocations& allocations() {
    static Allocations* table = new Allocations(); // used until the process ends
    return *table;
}

std::size_t physical_bytes() noexcept {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

simtError_t allocate(void** ptr, std::size_t bytes) noexcept {
    if (ptr == nullptr) return record(simtErrorInvalidValue);
    if (faulted()) return record(simtErrorLaunchFailure);
    *ptr = nullptr;
    if (bytes == 0) return simtSuccess;
    if (bytes > physical_bytes()) return record(simtErrorMemoryAllocation);
    void* p = nullptr;
    if (posix_memalign(&p, kAlignment, bytes) != 0 || p == nullptr) {
        return record(simtErrorMemoryAllocation);
    }
    try {
        Allocations& table = allocations();
        std::lock_guard<std::mutex> lock(table.mutex);
        table.sizes.emplace(reinterpret_cast<std::uintptr_t>(p), bytes);
    } catch (...) {
        std::free(p);
        return record(simtErrorMemoryAllocation);
    }
    *ptr = p;
    return simtSuccess;
}

simtError_t release(void* ptr) noexcept {
    if (ptr == nullptr) return simtSuccess;
    Allocations& table = allocations();
    {
        std::lock_guard<std::mutex> lock(table.mutex);
        if (table.sizes.erase(reinterpret_cast<std::uintptr_t>(ptr)) == 0) {
            return record(simtErrorInvalidValue);
        }
    }
    std::free(ptr);
    return simtSuccess;
}

} // namespace

bool is_runtime_memory(const void* p, std::size_t bytes) noexcept {
    const auto start = reinterpret_cast<std::uintptr_t>(p);
    Allocations& table = allocations();
    std::lock_guard<std::mutex> lock(table.mutex);
    auto it = table.sizes.upper_bound(start);
    if (it == table.sizes.begin()) return false;
    --it;
    return start - it->first <= it->second && bytes <= it->second - (start - it->first);
}

} // namespace gpucore::simt

using gpucore::simt::faulted;
using gpucore::simt::record;

simtError_t simtMalloc(void** ptr, std::size_t bytes) noexcept {
    return gpucore::simt::allocate(ptr, bytes);
}

simtError_t simtMallocHost(void** ptr, std::size_t bytes) noexcept {
    return gpucore::simt::allocate(ptr, bytes);
}

simtError_t simtMallocManaged(void** ptr, std::size_t bytes, unsigned int /*flags*/) noexcept {
    return gpucore::simt::allocate(ptr, bytes);
}

simtError_t simtFree(void* ptr) noexcept { return gpucore::simt::release(ptr); }

simtError_t simtFreeHost(void* ptr) noexcept { return gpucore::simt::release(ptr); }

simtError_t simtMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) noexcept {
    const long available = sysconf(_SC_AVPHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    *total_bytes = gpucore::simt::physical_bytes();
    *free_bytes = available > 0 && page > 0
                      ? static_cast<std::size_t>(available) * static_cast<std::size_t>(page)
                      : 0;
    return simtSuccess;
}

simtError_t simtPointerGetAttributes(simtPointerAttributes* attributes, const void* ptr) noexcept {
    if (attributes == nullptr) return record(simtErrorInvalidValue);
    const bool known = ptr != nullptr && gpucore::simt::is_runtime_memory(ptr, 1);
    attributes->type = known ? simtMemoryTypeDevice : simtMemoryTypeUnregistered;
    attributes->device = known ? 0 : -1;
    return simtSuccess;
}

simtError_t simtMemcpyAsync(void* dst, const void* src, std::size_t bytes, simtMemcpyKind /*kind*/,
                            simtStream_t stream) noexcept {
    if (stream == nullptr) return record(simtErrorInvalidResourceHandle);
    if (faulted()) return record(simtErrorLaunchFailure);
    if (bytes == 0) return simtSuccess;
    if (dst == nullptr || src == nullptr) return record(simtErrorInvalidValue);
    try {
        if (gpucore::simt::is_runtime_memory(dst, bytes) &&
            gpucore::simt::is_runtime_memory(src, bytes)) {
            stream->enqueue([dst, src, bytes] { std::memmove(dst, src, bytes); });
        } else {
            stream->wait_idle();
            std::memmove(dst, src, bytes);
        }
    } catch (...) {
        return record(simtErrorMemoryAllocation);
    }
    return simtSuccess;
}

simtError_t simtMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
                                simtStream_t stream) noexcept {
    int count = 0;
    (void)simtGetDeviceCount(&count);
    if (dst_device < 0 || dst_device >= count || src_device < 0 || src_device >= count) {
        return record(simtErrorInvalidDevice);
    }
    return simtMemcpyAsync(dst, src, bytes, simtMemcpyDefault, stream);
}

simtError_t simtMemset(void* dst, int value, std::size_t bytes) noexcept {
    if (faulted()) return record(simtErrorLaunchFailure);
    if (bytes != 0 && dst == nullptr) return record(simtErrorInvalidValue);
    if (bytes != 0) std::memset(dst, value, bytes);
    return simtSuccess;
}

simtError_t simtMemsetAsync(void* dst, int value, std::size_t bytes, simtStream_t stream) noexcept {
    if (stream == nullptr) return record(simtErrorInvalidResourceHandle);
    if (faulted()) return record(simtErrorLaunchFailure);
    if (bytes == 0) return simtSuccess;
    if (dst == nullptr) return record(simtErrorInvalidValue);
    try {
        stream->enqueue([dst, value, bytes] { std::memset(dst, value, bytes); });
    } catch (...) {
        return record(simtErrorMemoryAllocation);
    }
    return simtSuccess;
}

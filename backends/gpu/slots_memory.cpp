// SPDX-License-Identifier: Apache-2.0
// Slots: memory_info, allocate, deallocate, pointer_device, copy, fill.
#include <string>

#include "gpu_error.hpp"
#include "launch.hpp"
#include "plugin_handles.hpp"
#include "plugin_state.hpp"
#include "plugin_table.hpp"
#include "slot_guard.hpp"

namespace gpucore::gpu {
namespace {

// Managed memory may oversubscribe the device, but an oversubscribed allocation can stall the
// whole GPU on some systems; we refuse more than is free instead, as out of memory.
void check_managed_fits(std::size_t bytes) {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    GPUCORE_GPU_CHECK(gpuMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > free_bytes) {
        throw GpuError(GPUCORE_ERROR_OUT_OF_MEMORY,
                       "managed allocation of " + std::to_string(bytes) + " bytes exceeds the " +
                           std::to_string(free_bytes) + " bytes free on the device");
    }
}

gpucore_status memory_info(int device, uint64_t* free_bytes, uint64_t* total_bytes,
                           gpucore_message* msg) {
    return guarded(msg, device, [&] {
        ensure_usable(device);
        DeviceScope scope(device);
        std::size_t free_now = 0;
        std::size_t total = 0;
        GPUCORE_GPU_CHECK(gpuMemGetInfo(&free_now, &total));
        *free_bytes = free_now;
        *total_bytes = total;
    });
}

gpucore_status allocate(int device, gpucore_memory_kind kind, size_t bytes, void** ptr,
                        gpucore_message* msg) {
    return guarded(msg, device, [&] {
        ensure_usable(device);
        DeviceScope scope(device);
        void* p = nullptr;
        switch (kind) {
        case GPUCORE_MEMORY_DEVICE: GPUCORE_GPU_CHECK(gpuMalloc(&p, bytes)); break;
        case GPUCORE_MEMORY_PINNED_HOST: GPUCORE_GPU_CHECK(gpuMallocHost(&p, bytes)); break;
        case GPUCORE_MEMORY_MANAGED:
            if (device_record(device).properties.supports_managed == 0) {
                throw GpuError(GPUCORE_ERROR_NOT_SUPPORTED,
                               "this device cannot allocate managed memory");
            }
            check_managed_fits(bytes);
            GPUCORE_GPU_CHECK(gpuMallocManaged(&p, bytes, gpuMemAttachGlobal));
            break;
        default:
            throw GpuError(GPUCORE_ERROR_NOT_SUPPORTED,
                           "unknown memory kind " + std::to_string(kind));
        }
        *ptr = p;
    });
}

gpucore_status deallocate(int device, gpucore_memory_kind kind, void* ptr, gpucore_message* msg) {
    return guarded(msg, device, [&] {
        DeviceScope scope(device);
        if (kind == GPUCORE_MEMORY_PINNED_HOST) GPUCORE_GPU_CHECK(gpuFreeHost(ptr));
        else GPUCORE_GPU_CHECK(gpuFree(ptr));
    });
}

// Device memory and managed memory of one of this plugin's devices, and page-locked host memory
// of the runtime, are this plugin's memory; pageable host memory and unknown addresses are not
// (copies take pageable memory through copy_from_host / copy_to_host instead).
gpucore_status pointer_device(const void* ptr, int* device, gpucore_memory_kind* kind,
                              gpucore_message* msg) {
    return guarded(msg, -1, [&] {
        if (ptr == nullptr) throw GpuError(GPUCORE_ERROR_INVALID_ARGUMENT, "null pointer");
        PointerInfo info;
        GPUCORE_GPU_CHECK(query_pointer(ptr, &info));
        const int devices = static_cast<int>(plugin_state().devices.size());
        switch (info.location) {
        case PointerLocation::unknown:
            throw GpuError(GPUCORE_ERROR_INVALID_ARGUMENT,
                           "the " GPUCORE_GPU_RUNTIME_NAME " does not know this address (pageable host "
                           "memory, freed memory, or memory of another runtime)");
        case PointerLocation::device: *kind = GPUCORE_MEMORY_DEVICE; break;
        case PointerLocation::managed: *kind = GPUCORE_MEMORY_MANAGED; break;
        case PointerLocation::pinned_host: *kind = GPUCORE_MEMORY_PINNED_HOST; break;
        }
        if (info.device < 0 || info.device >= devices) {
            throw GpuError(GPUCORE_ERROR_INVALID_ARGUMENT,
                           "the address is memory of runtime device " + std::to_string(info.device) +
                               ", which this plugin does not serve");
        }
        *device = info.device;
    });
}

gpucore_status copy(void* dst, const void* src, size_t bytes, gpucore_copy_kind /*kind*/,
                    gpucore_stream stream, gpucore_message* msg) {
    return guarded(msg, stream->device, [&] {
        ensure_usable(stream->device);
        if (bytes == 0) return;
        DeviceScope scope(stream->device);
        // Unified addressing: the runtime infers the direction (and stages pageable memory).
        GPUCORE_GPU_CHECK(gpuMemcpyAsync(dst, src, bytes, gpuMemcpyDefault, stream->stream));
    });
}

gpucore_status fill(void* dst, const void* value, size_t element_size, size_t count,
                    gpucore_stream stream, gpucore_message* msg) {
    return guarded(msg, stream->device, [&] {
        ensure_usable(stream->device);
        DeviceScope scope(stream->device);
        LaunchContext ctx{stream->stream, device_record(stream->device).shape, stream->scratch};
        launch_fill(dst, value, element_size, count, ctx);
    });
}

} // namespace

void fill_memory_slots(gpucore_plugin_api& table) noexcept {
    table.allocate = allocate;
    table.deallocate = deallocate;
    table.copy = copy;
    table.fill = fill;
    table.memory_info = memory_info;
    table.pointer_device = pointer_device;
}

} // namespace gpucore::gpu

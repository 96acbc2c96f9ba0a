// SPDX-License-Identifier: Apache-2.0
// Facts about one compiled kernel on one device, asked of the runtime once per device: how many
// blocks can be resident (registers and shared memory counted), and whether the device runs the
// kernel's code for its own architecture (not a JIT from older PTX).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>

#include "device_shape.hpp"
#include "gpu_error.hpp"
#include "gpu_vendor.hpp"

namespace gpucore::gpu {

// A positive int per device ordinal, computed on first use; `compute` runs with the kernel's
// device current. Devices numbered past the cache are asked every time. Races only repeat the
// question (the answer is the same).
using PerDeviceInts = std::array<std::atomic<int>, 64>; // 0: not asked yet

template <class Compute>
int ask_once_per_device(PerDeviceInts& cache, const DeviceShape& device, Compute compute) {
    const auto slot = static_cast<std::size_t>(device.ordinal);
    const bool cached = device.ordinal >= 0 && slot < cache.size();
    int value = cached ? cache[slot].load(std::memory_order_relaxed) : 0;
    if (value == 0) {
        value = compute();
        if (cached) cache[slot].store(value, std::memory_order_relaxed);
    }
    return value;
}

// Blocks of kKernel (kThreads threads, kSharedBytes of dynamic shared memory) resident at once:
// unlike resident_blocks(), it counts the registers and shared memory the compiler gave the
// kernel, so a grid of that many blocks is one full wave (a grid a little over one wave leaves
// SMs idle for the tail).
template <auto kKernel, int kThreads, std::size_t kSharedBytes = 0>
std::size_t resident_blocks_of(const DeviceShape& device) {
    static PerDeviceInts blocks_per_sm{};
    const int per_sm = ask_once_per_device(blocks_per_sm, device, [] {
        int blocks = 0;
        GPUCORE_GPU_CHECK(gpuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kKernel, kThreads,
                                                                        kSharedBytes));
        return blocks > 0 ? blocks : 1;
    });
    return static_cast<std::size_t>(device.sm_count) * static_cast<std::size_t>(per_sm);
}

// True when kKernel runs machine code built for at least `min_arch` (major * 10 + minor) on this
// device, after allowing it kSharedBytes of dynamic shared memory (asked before launches past the
// default 48 KiB).
template <auto kKernel, std::size_t kSharedBytes>
bool kernel_runs_arch(const DeviceShape& device, int min_arch) {
    static PerDeviceInts binary_arch{};
    const int arch = ask_once_per_device(binary_arch, device, [] {
        gpuFuncAttributes attributes{};
        if (gpuFuncGetAttributes(&attributes, kKernel) != gpuSuccess ||
            gpuFuncSetAttribute(kKernel, gpuFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(kSharedBytes)) != gpuSuccess) {
            (void)gpuGetLastError(); // not sticky: the caller falls back to another kernel
            return -1;
        }
        return attributes.binaryVersion > 0 ? attributes.binaryVersion : -1;
    });
    return arch >= min_arch;
}

} // namespace gpucore::gpu

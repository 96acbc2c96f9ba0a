// SPDX-License-Identifier: Apache-2.0
// gpucore's CPU execution of GPU kernels ("simt"): the runtime API that backends/gpu's host glue
// calls through gpu_vendor.hpp (simtMalloc for cudaMalloc/hipMalloc, ...) and the device-side
// language its kernels are written in (threadIdx, __syncthreads, shuffles, atomics).
//
// The device is the CPU: memory is host memory, blocks are spread over worker threads, and the
// threads of a block run as fibers on their worker, switched by a deterministic scheduler at every
// __syncthreads (per block) and every shuffle (per warp only). The warp width is a compile-time
// constant, GPUCORE_SIMT_WARP_SIZE (64 or 32), so the kernels compile as they do for an AMD CDNA or
// RDNA/NVIDIA target. Barriers and shuffles that a real GPU cannot complete (a block barrier
// reached by only part of the block, a shuffle without every lane of the warp) stop the kernel
// with a launch failure whose text says where; the failure is sticky, as a kernel fault is on a GPU.
//
// Test-only: this executes the real kernel source to prove it at both wavefront widths; it is not
// a fast CPU backend (backends/cpu is that).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "gpucore/kernel/cpu.hpp"

#if !defined(GPUCORE_SIMT_WARP_SIZE)
#error "GPUCORE_SIMT_WARP_SIZE (the wavefront width: 32 or 64) must be defined"
#endif
static_assert(GPUCORE_SIMT_WARP_SIZE == 32 || GPUCORE_SIMT_WARP_SIZE == 64,
              "the simt execution models warps of 32 or 64 lanes");

// ---- runtime API ----------------------------------------------------------------------------------
enum simtError_t : int {
    simtSuccess = 0,
    simtErrorInvalidValue = 1,
    simtErrorMemoryAllocation = 2,
    simtErrorInvalidDevice = 3,
    simtErrorInvalidConfiguration = 4,
    simtErrorInvalidResourceHandle = 5,
    simtErrorNotReady = 6,
    simtErrorLaunchFailure = 7, // a kernel fault: sticky until simtDeviceReset
    simtErrorNoDevice = 8,
    simtErrorNotSupported = 9,
    simtErrorPeerAccessAlreadyEnabled = 10,
};

enum simtDeviceAttr {
    simtDevAttrMultiProcessorCount,
    simtDevAttrWarpSize,
    simtDevAttrL2CacheSize,
    simtDevAttrMemoryClockRate,
    simtDevAttrGlobalMemoryBusWidth,
    simtDevAttrManagedMemory,
    simtDevAttrMaxThreadsPerMultiProcessor,
};

enum simtMemcpyKind { simtMemcpyDefault = 4 };
enum simtFuncAttribute { simtFuncAttributeMaxDynamicSharedMemorySize = 8 };
inline constexpr unsigned int simtStreamNonBlocking = 1;
inline constexpr unsigned int simtMemAttachGlobal = 1;

struct simtDeviceProp {
    char name[256];
    std::size_t totalGlobalMem;
};
struct simtFuncAttributes {
    int binaryVersion;
};

struct simt_stream;
struct simt_event;
using simtStream_t = simt_stream*;
using simtEvent_t = simt_event*;

const char* simtGetErrorName(simtError_t err) noexcept;
// The text of a launch failure says where the kernel faulted; other errors have fixed texts.
const char* simtGetErrorString(simtError_t err) noexcept;
// The last error of a launch or call on this thread; reading resets it unless it is sticky.
simtError_t simtGetLastError() noexcept;
simtError_t simtRuntimeGetVersion(int* version) noexcept;
simtError_t simtDriverGetVersion(int* version) noexcept;
// 1, or GPUCORE_SIMT_DEVICE_COUNT (1 to 8) when set: the tests of copies between devices of one
// backend run on several simt devices. They share the host's memory and the worker threads.
simtError_t simtGetDeviceCount(int* count) noexcept;
simtError_t simtGetDevice(int* device) noexcept;
simtError_t simtSetDevice(int device) noexcept;
simtError_t simtGetDeviceProperties(simtDeviceProp* props, int device) noexcept;
simtError_t simtDeviceGetAttribute(int* value, simtDeviceAttr attr, int device) noexcept;
// Every pair of distinct simt devices can access each other's memory (it is all host memory).
simtError_t simtDeviceCanAccessPeer(int* can_access, int device, int peer) noexcept;
// Enables the current device's access to `peer`; simtErrorPeerAccessAlreadyEnabled the second time.
simtError_t simtDeviceEnablePeerAccess(int peer, unsigned int flags) noexcept;
// Clears a sticky kernel fault (tests of the fault detection run several faults in one process).
simtError_t simtDeviceReset() noexcept;

simtError_t simtMalloc(void** ptr, std::size_t bytes) noexcept;
simtError_t simtMallocHost(void** ptr, std::size_t bytes) noexcept;
simtError_t simtMallocManaged(void** ptr, std::size_t bytes, unsigned int flags) noexcept;
simtError_t simtFree(void* ptr) noexcept;
simtError_t simtFreeHost(void* ptr) noexcept;
simtError_t simtMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) noexcept;
// Memory of this runtime (any kind; all live on device 0) is simtMemoryTypeDevice; any other
// address simtMemoryTypeUnregistered (as CUDA reports pageable host memory).
enum simtMemoryType { simtMemoryTypeUnregistered = 0, simtMemoryTypeDevice = 2 };
struct simtPointerAttributes {
    simtMemoryType type;
    int device;
};
simtError_t simtPointerGetAttributes(simtPointerAttributes* attributes, const void* ptr) noexcept;
// Between two allocations of this runtime the copy is queued on the stream; with pageable host
// memory on either side it is done before the call returns (after the stream's earlier work),
// as the GPU runtimes do for pageable memory.
simtError_t simtMemcpyAsync(void* dst, const void* src, std::size_t bytes, simtMemcpyKind kind,
                            simtStream_t stream) noexcept;
// A copy between allocations of two devices: queued on the stream as simtMemcpyAsync queues it.
simtError_t simtMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
                                simtStream_t stream) noexcept;
simtError_t simtMemset(void* dst, int value, std::size_t bytes) noexcept;
simtError_t simtMemsetAsync(void* dst, int value, std::size_t bytes, simtStream_t stream) noexcept;

simtError_t simtStreamCreateWithFlags(simtStream_t* stream, unsigned int flags) noexcept;
simtError_t simtStreamDestroy(simtStream_t stream) noexcept;
simtError_t simtStreamSynchronize(simtStream_t stream) noexcept;
simtError_t simtStreamQuery(simtStream_t stream) noexcept;
// Queues fn(user) on the stream: it runs on the host after the work queued before it.
using simtHostFn_t = void (*)(void* user);
simtError_t simtLaunchHostFunc(simtStream_t stream, simtHostFn_t fn, void* user) noexcept;
simtError_t simtStreamWaitEvent(simtStream_t stream, simtEvent_t event, unsigned int flags) noexcept;
simtError_t simtEventCreate(simtEvent_t* event) noexcept;
simtError_t simtEventDestroy(simtEvent_t event) noexcept;
simtError_t simtEventRecord(simtEvent_t event, simtStream_t stream) noexcept;
simtError_t simtEventSynchronize(simtEvent_t event) noexcept;
simtError_t simtEventQuery(simtEvent_t event) noexcept;
simtError_t simtEventElapsedTime(float* ms, simtEvent_t start, simtEvent_t end) noexcept;

// Blocks of `threads` threads resident per "multiprocessor" (one worker thread), by thread count.
template <class Kernel>
simtError_t simtOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, Kernel, int threads,
                                                          std::size_t /*shared_bytes*/) noexcept {
    int per_sm = 0;
    const simtError_t err = simtDeviceGetAttribute(&per_sm, simtDevAttrMaxThreadsPerMultiProcessor, 0);
    if (err != simtSuccess) return err;
    if (threads <= 0) return simtErrorInvalidValue;
    *blocks = per_sm / threads;
    return simtSuccess;
}
// No machine code and no dynamic shared memory here: kernels that ask for them are not run.
template <class Kernel>
simtError_t simtFuncGetAttributes(simtFuncAttributes*, Kernel) noexcept {
    return simtErrorNotSupported;
}
template <class Kernel>
simtError_t simtFuncSetAttribute(Kernel, simtFuncAttribute, int) noexcept {
    return simtErrorNotSupported;
}

namespace gpucore::simt {

// One kernel launch: `body` runs once per GPU thread (it reads threadIdx and friends). Queued on
// `stream` (in order with its other work); the error is that of the launch itself (configuration).
simtError_t launch_grid(std::function<void()> body, dim3 grid, dim3 block, std::size_t shared_bytes,
                        simtStream_t stream) noexcept;

} // namespace gpucore::simt

namespace gpucore::simt {

// Queues kernel(args...) for every thread of the grid. Arguments convert to the kernel's
// parameter types here and are kept by value until the kernel has run, as a GPU launch copies them.
template <class... Params, class... Args>
simtError_t launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
                          simtStream_t stream, Args&&... args) {
    return launch_grid(
        [kernel, params = std::tuple<std::decay_t<Params>...>(std::forward<Args>(args)...)]() {
            std::apply(kernel, params);
        },
        grid, block, shared_bytes, stream);
}

} // namespace gpucore::simt

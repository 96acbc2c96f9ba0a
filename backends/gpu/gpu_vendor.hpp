// SPDX-License-Identifier: Apache-2.0
// The ONE place where CUDA and HIP differ. Everything else in backends/gpu is written once against
// the neutral names below (gpuMalloc, gpuStream_t, kWarpSize, shfl_xor, ...).
//
// Vendor choice: the CPU execution ("simt", backends/simt: test-only plugins that run these kernels
// on the CPU with 64- or 32-lane warps) when the build defines GPUCORE_GPU_VENDOR_SIMT; HIP when it
// defines GPUCORE_GPU_VENDOR_HIP (backends/hip does) or the compiler targets AMD
// (__HIP_PLATFORM_AMD__); CUDA otherwise.
//
// What differs, and why it lives here:
//  - runtime API names (cudaMalloc vs hipMalloc, ...), mapped by macros so overloads still resolve;
//  - which runtime errors are sticky (the context is lost and every later call fails);
//  - the architecture string ("sm_90" from the compute capability vs gcnArchName "gfx90a");
//  - the warp (wavefront) width: 32 on NVIDIA, 64 on gfx9 CDNA, 32 on gfx10+ RDNA (wave32 default);
//  - the bulk tensor copy engine (Hopper's TMA): CUDA only, GPUCORE_GPU_HAS_BULK_TENSOR_COPY;
//  - cache hints of loads and stores (the kernel dialect, gpucore/kernel.hpp, covers the rest of
//    what kernels use: element types, warp operations, barriers, atomics, fences);
//  - how a kernel is launched: launch_kernel() below, the one place with <<<>>> (CUDA launches
//    through the driver, with each kernel's function looked up once), and how launches report
//    their failure (take_launch_error()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#if defined(GPUCORE_GPU_VENDOR_SIMT)
#define GPUCORE_GPU_IS_SIMT 1
#define GPUCORE_GPU_IS_HIP 0
#include "simt_runtime.hpp"
#include "gpucore/kernel.hpp"
#elif defined(GPUCORE_GPU_VENDOR_HIP) || defined(__HIP_PLATFORM_AMD__)
#define GPUCORE_GPU_IS_SIMT 0
#define GPUCORE_GPU_IS_HIP 1
#if !defined(__HIP_PLATFORM_AMD__)
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif
#else
#define GPUCORE_GPU_IS_SIMT 0
#define GPUCORE_GPU_IS_HIP 0
#include <cuda.h> // CUtensorMap and its enums (types only: the plugin never links the driver API)
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h> // PFN_cuTensorMapEncodeTiled, reached through the runtime

#include "gpucore/kernel/cuda_launch.hpp"
#endif

// ---- runtime API names ---------------------------------------------------------------------------
#define GPUCORE_GPU_STR_(x) #x
#define GPUCORE_GPU_STR(x) GPUCORE_GPU_STR_(x)
#if GPUCORE_GPU_IS_SIMT
// Backend names start with "test-": the core never picks such a backend for GPU_BACKEND=auto.
#define GPUCORE_GPU_BACKEND_NAME "test-wave" GPUCORE_GPU_STR(GPUCORE_SIMT_WARP_SIZE)
#define GPUCORE_GPU_API_PREFIX "simt" // what "gpu" in gpuMalloc(...) stands for, in messages
#define GPUCORE_GPU_VENDOR_NAME "gpucore simt (CPU execution, test only)"
#define GPUCORE_GPU_RUNTIME_NAME "simt runtime"
#define GPUCORE_GPU_RUNTIME_VERSION_TEXT "wave" GPUCORE_GPU_STR(GPUCORE_SIMT_WARP_SIZE)
using gpuError_t = simtError_t;
using gpuStream_t = simtStream_t;
using gpuEvent_t = simtEvent_t;
using gpuDeviceProp_t = simtDeviceProp;
using gpuDeviceAttr_t = simtDeviceAttr;
#define gpuSuccess simtSuccess
#define gpuErrorNotReady simtErrorNotReady
#define gpuErrorMemoryAllocation simtErrorMemoryAllocation
#define gpuGetErrorName simtGetErrorName
#define gpuGetErrorString simtGetErrorString
#define gpuGetLastError simtGetLastError
#define gpuRuntimeGetVersion simtRuntimeGetVersion
#define gpuDriverGetVersion simtDriverGetVersion
#define gpuGetDeviceCount simtGetDeviceCount
#define gpuGetDevice simtGetDevice
#define gpuSetDevice simtSetDevice
#define gpuGetDeviceProperties simtGetDeviceProperties
#define gpuDeviceGetAttribute simtDeviceGetAttribute
#define gpuDevAttrMultiProcessorCount simtDevAttrMultiProcessorCount
#define gpuDevAttrWarpSize simtDevAttrWarpSize
#define gpuDevAttrL2CacheSize simtDevAttrL2CacheSize
#define gpuDevAttrMemoryClockRate simtDevAttrMemoryClockRate
#define gpuDevAttrGlobalMemoryBusWidth simtDevAttrGlobalMemoryBusWidth
#define gpuDevAttrManagedMemory simtDevAttrManagedMemory
#define gpuDevAttrMaxThreadsPerMultiProcessor simtDevAttrMaxThreadsPerMultiProcessor
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor simtOccupancyMaxActiveBlocksPerMultiprocessor
using gpuFuncAttributes = simtFuncAttributes;
#define gpuFuncGetAttributes simtFuncGetAttributes
#define gpuFuncSetAttribute simtFuncSetAttribute
#define gpuFuncAttributeMaxDynamicSharedMemorySize simtFuncAttributeMaxDynamicSharedMemorySize
#define gpuMalloc simtMalloc
#define gpuFree simtFree
#define gpuMallocHost(ptr, bytes) simtMallocHost((ptr), (bytes))
#define gpuFreeHost simtFreeHost
#define gpuMallocManaged simtMallocManaged
#define gpuMemAttachGlobal simtMemAttachGlobal
#define gpuMemGetInfo simtMemGetInfo
#define gpuMemcpyAsync simtMemcpyAsync
#define gpuMemcpyDefault simtMemcpyDefault
#define gpuMemcpyPeerAsync simtMemcpyPeerAsync
#define gpuDeviceCanAccessPeer simtDeviceCanAccessPeer
#define gpuDeviceEnablePeerAccess simtDeviceEnablePeerAccess
#define gpuErrorPeerAccessAlreadyEnabled simtErrorPeerAccessAlreadyEnabled
#define gpuMemset simtMemset
#define gpuMemsetAsync simtMemsetAsync
#define gpuStreamCreateWithFlags simtStreamCreateWithFlags
#define gpuStreamNonBlocking simtStreamNonBlocking
#define gpuStreamDestroy simtStreamDestroy
#define gpuStreamSynchronize simtStreamSynchronize
#define gpuStreamQuery simtStreamQuery
#define gpuLaunchHostFunc simtLaunchHostFunc
#define gpuStreamWaitEvent simtStreamWaitEvent
#define gpuEventCreate simtEventCreate
#define gpuEventDestroy simtEventDestroy
#define gpuEventRecord simtEventRecord
#define gpuEventSynchronize simtEventSynchronize
#define gpuEventQuery simtEventQuery
#define gpuEventElapsedTime simtEventElapsedTime
#elif GPUCORE_GPU_IS_HIP
#define GPUCORE_GPU_BACKEND_NAME "hip"
#define GPUCORE_GPU_API_PREFIX "hip" // what "gpu" in gpuMalloc(...) stands for, in messages
#define GPUCORE_GPU_VENDOR_NAME "AMD"
#define GPUCORE_GPU_RUNTIME_NAME "HIP runtime"
#define GPUCORE_GPU_RUNTIME_VERSION_TEXT                                                          \
    GPUCORE_GPU_STR(HIP_VERSION_MAJOR) "." GPUCORE_GPU_STR(HIP_VERSION_MINOR) "." GPUCORE_GPU_STR(HIP_VERSION_PATCH)
using gpuError_t = hipError_t;
using gpuStream_t = hipStream_t;
using gpuEvent_t = hipEvent_t;
using gpuDeviceProp_t = hipDeviceProp_t;
using gpuDeviceAttr_t = hipDeviceAttribute_t;
#define gpuSuccess hipSuccess
#define gpuErrorNotReady hipErrorNotReady
#define gpuErrorMemoryAllocation hipErrorOutOfMemory
#define gpuGetErrorName hipGetErrorName
#define gpuGetErrorString hipGetErrorString
#define gpuGetLastError hipGetLastError
#define gpuRuntimeGetVersion hipRuntimeGetVersion
#define gpuDriverGetVersion hipDriverGetVersion
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuGetDevice hipGetDevice
#define gpuSetDevice hipSetDevice
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDeviceGetAttribute hipDeviceGetAttribute
#define gpuDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define gpuDevAttrWarpSize hipDeviceAttributeWarpSize
#define gpuDevAttrL2CacheSize hipDeviceAttributeL2CacheSize
#define gpuDevAttrMemoryClockRate hipDeviceAttributeMemoryClockRate
#define gpuDevAttrGlobalMemoryBusWidth hipDeviceAttributeMemoryBusWidth
#define gpuDevAttrManagedMemory hipDeviceAttributeManagedMemory
#define gpuDevAttrMaxThreadsPerMultiProcessor hipDeviceAttributeMaxThreadsPerMultiProcessor
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor
using gpuFuncAttributes = hipFuncAttributes;
#define gpuFuncGetAttributes hipFuncGetAttributes
#define gpuFuncSetAttribute hipFuncSetAttribute
#define gpuFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMallocHost(ptr, bytes) hipHostMalloc((ptr), (bytes), hipHostMallocDefault)
#define gpuFreeHost hipHostFree
#define gpuMallocManaged hipMallocManaged
#define gpuMemAttachGlobal hipMemAttachGlobal
#define gpuMemGetInfo hipMemGetInfo
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemcpyDefault hipMemcpyDefault
#define gpuMemcpyPeerAsync hipMemcpyPeerAsync
#define gpuDeviceCanAccessPeer hipDeviceCanAccessPeer
#define gpuDeviceEnablePeerAccess hipDeviceEnablePeerAccess
#define gpuErrorPeerAccessAlreadyEnabled hipErrorPeerAccessAlreadyEnabled
#define gpuMemset hipMemset
#define gpuMemsetAsync hipMemsetAsync
#define gpuStreamCreateWithFlags hipStreamCreateWithFlags
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuStreamQuery hipStreamQuery
#define gpuStreamWaitEvent hipStreamWaitEvent
#define gpuEventCreate hipEventCreate
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventQuery hipEventQuery
#define gpuEventElapsedTime hipEventElapsedTime
#else
#define GPUCORE_GPU_BACKEND_NAME "cuda"
#define GPUCORE_GPU_API_PREFIX "cuda" // what "gpu" in gpuMalloc(...) stands for, in messages
#define GPUCORE_GPU_VENDOR_NAME "NVIDIA"
#define GPUCORE_GPU_RUNTIME_NAME "CUDA runtime"
#define GPUCORE_GPU_RUNTIME_VERSION_TEXT GPUCORE_GPU_STR(CUDART_VERSION)
using gpuError_t = cudaError_t;
using gpuStream_t = cudaStream_t;
using gpuEvent_t = cudaEvent_t;
using gpuDeviceProp_t = cudaDeviceProp;
using gpuDeviceAttr_t = cudaDeviceAttr;
#define gpuSuccess cudaSuccess
#define gpuErrorNotReady cudaErrorNotReady
#define gpuErrorMemoryAllocation cudaErrorMemoryAllocation
#define gpuGetErrorName cudaGetErrorName
#define gpuGetErrorString cudaGetErrorString
#define gpuGetLastError cudaGetLastError
#define gpuRuntimeGetVersion cudaRuntimeGetVersion
#define gpuDriverGetVersion cudaDriverGetVersion
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuGetDevice cudaGetDevice
#define gpuSetDevice cudaSetDevice
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDeviceGetAttribute cudaDeviceGetAttribute
#define gpuDevAttrMultiProcessorCount cudaDevAttrMultiProcessorCount
#define gpuDevAttrWarpSize cudaDevAttrWarpSize
#define gpuDevAttrL2CacheSize cudaDevAttrL2CacheSize
#define gpuDevAttrMemoryClockRate cudaDevAttrMemoryClockRate
#define gpuDevAttrGlobalMemoryBusWidth cudaDevAttrGlobalMemoryBusWidth
#define gpuDevAttrManagedMemory cudaDevAttrManagedMemory
#define gpuDevAttrMaxThreadsPerMultiProcessor cudaDevAttrMaxThreadsPerMultiProcessor
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
using gpuFuncAttributes = cudaFuncAttributes;
#define gpuFuncGetAttributes cudaFuncGetAttributes
#define gpuFuncSetAttribute cudaFuncSetAttribute
#define gpuFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMallocHost(ptr, bytes) cudaMallocHost((ptr), (bytes))
#define gpuFreeHost cudaFreeHost
#define gpuMallocManaged cudaMallocManaged
#define gpuMemAttachGlobal cudaMemAttachGlobal
#define gpuMemGetInfo cudaMemGetInfo
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemcpyDefault cudaMemcpyDefault
#define gpuMemcpyPeerAsync cudaMemcpyPeerAsync
#define gpuDeviceCanAccessPeer cudaDeviceCanAccessPeer
#define gpuDeviceEnablePeerAccess cudaDeviceEnablePeerAccess
#define gpuErrorPeerAccessAlreadyEnabled cudaErrorPeerAccessAlreadyEnabled
#define gpuMemset cudaMemset
#define gpuMemsetAsync cudaMemsetAsync
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuStreamQuery cudaStreamQuery
#define gpuLaunchHostFunc cudaLaunchHostFunc
#define gpuStreamWaitEvent cudaStreamWaitEvent
#define gpuEventCreate cudaEventCreate
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventQuery cudaEventQuery
#define gpuEventElapsedTime cudaEventElapsedTime
#endif

namespace gpucore::gpu {

// Errors after which the device context is lost: every later call fails the same way, so the
// plugin marks the device unusable instead of pretending the next call may work.
inline bool is_sticky_error(gpuError_t err) noexcept {
#if GPUCORE_GPU_IS_SIMT
    return err == simtErrorLaunchFailure;
#elif GPUCORE_GPU_IS_HIP
    return err == hipErrorIllegalAddress || err == hipErrorLaunchFailure ||
           err == hipErrorAssert || err == hipErrorLaunchTimeOut ||
           err == hipErrorECCNotCorrectable;
#else
    return err == cudaErrorIllegalAddress || err == cudaErrorLaunchFailure ||
           err == cudaErrorIllegalInstruction || err == cudaErrorMisalignedAddress ||
           err == cudaErrorInvalidAddressSpace || err == cudaErrorInvalidPc ||
           err == cudaErrorHardwareStackError || err == cudaErrorAssert ||
           err == cudaErrorLaunchTimeout || err == cudaErrorECCUncorrectable ||
           err == cudaErrorContextIsDestroyed;
#endif
}

// Errors that mean "this machine has no usable GPU of this vendor" (driver missing or too old,
// no device): the plugin then reports 0 devices with the reason instead of failing.
inline bool is_no_device_error(gpuError_t err) noexcept {
#if GPUCORE_GPU_IS_SIMT
    return err == simtErrorNoDevice;
#elif GPUCORE_GPU_IS_HIP
    return err == hipErrorNoDevice || err == hipErrorInsufficientDriver;
#else
    return err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
           err == cudaErrorCompatNotSupportedOnDevice || err == cudaErrorSystemDriverMismatch;
#endif
}

// The architecture string users see: "sm_90" on NVIDIA, "gfx90a:sramecc+:xnack-" on AMD.
inline void format_architecture(const gpuDeviceProp_t& props, char* out, std::size_t capacity) {
#if GPUCORE_GPU_IS_SIMT
    (void)props;
    std::snprintf(out, capacity, "simt-wave%d", GPUCORE_SIMT_WARP_SIZE);
#elif GPUCORE_GPU_IS_HIP
    // The precision bounds the copy (gcnArchName holds 256 bytes): truncation is intended.
    std::snprintf(out, capacity, "%.*s", static_cast<int>(capacity > 0 ? capacity - 1 : 0),
                  props.gcnArchName);
#else
    std::snprintf(out, capacity, "sm_%d%d", props.major, props.minor);
#endif
}

// ---- where a pointer's memory lives ------------------------------------------------------------
// What the runtime knows of the memory at an address: device memory or managed memory of a
// device, page-locked host memory, or nothing (pageable host memory, a freed or foreign address).
enum class PointerLocation { unknown, device, pinned_host, managed };
struct PointerInfo {
    PointerLocation location = PointerLocation::unknown;
    int device = -1; // the owning device (for pinned host memory: the device it was allocated on)
};

// gpuSuccess with location unknown for an address the runtime does not know; an error only when
// the runtime itself fails. Leaves no error behind for the next call to find.
inline gpuError_t query_pointer(const void* ptr, PointerInfo* info) noexcept {
    *info = PointerInfo{};
#if GPUCORE_GPU_IS_SIMT
    simtPointerAttributes attributes{};
    const simtError_t err = simtPointerGetAttributes(&attributes, ptr);
    if (err != simtSuccess) return err;
    if (attributes.type == simtMemoryTypeDevice) info->location = PointerLocation::device;
    info->device = attributes.device;
    return simtSuccess;
#elif GPUCORE_GPU_IS_HIP
    hipPointerAttribute_t attributes{};
    const hipError_t err = hipPointerGetAttributes(&attributes, ptr);
    if (err == hipErrorInvalidValue) { // memory HIP does not know (pageable host memory)
        (void)hipGetLastError();
        return hipSuccess;
    }
    if (err != hipSuccess) return err;
#if HIP_VERSION_MAJOR >= 6
    const hipMemoryType type = attributes.type;
#else
    const hipMemoryType type = attributes.memoryType; // ROCm 5.x names the field memoryType
#endif
    if (attributes.isManaged) info->location = PointerLocation::managed;
    else if (type == hipMemoryTypeDevice) info->location = PointerLocation::device;
    else if (type == hipMemoryTypeHost) info->location = PointerLocation::pinned_host;
    info->device = attributes.device;
    return hipSuccess;
#else
    cudaPointerAttributes attributes{};
    const cudaError_t err = cudaPointerGetAttributes(&attributes, ptr);
    if (err == cudaErrorInvalidValue) { // older runtimes: memory CUDA does not know
        (void)cudaGetLastError();
        return cudaSuccess;
    }
    if (err != cudaSuccess) return err;
    switch (attributes.type) {
    case cudaMemoryTypeDevice: info->location = PointerLocation::device; break;
    case cudaMemoryTypeManaged: info->location = PointerLocation::managed; break;
    case cudaMemoryTypeHost: info->location = PointerLocation::pinned_host; break;
    default: break; // cudaMemoryTypeUnregistered: pageable host memory
    }
    info->device = attributes.device;
    return cudaSuccess;
#endif
}

// ---- host functions in stream order ------------------------------------------------------------
// Queues fn(user) on `stream`: it runs on a runtime thread after the work queued before it.
inline gpuError_t launch_host_function(gpuStream_t stream, void (*fn)(void*), void* user) noexcept {
#if GPUCORE_GPU_IS_HIP
    // ROCm 5.2's library exports no hipLaunchHostFunc: a stream callback carries the call instead.
    struct Call {
        void (*fn)(void*);
        void* user;
    };
    auto* call = new (std::nothrow) Call{fn, user};
    if (call == nullptr) return hipErrorOutOfMemory;
    const hipError_t err = hipStreamAddCallback(
        stream,
        [](hipStream_t, hipError_t, void* data) {
            const Call c = *static_cast<Call*>(data);
            delete static_cast<Call*>(data);
            c.fn(c.user);
        },
        call, 0);
    if (err != hipSuccess) delete call;
    return err;
#else
    return gpuLaunchHostFunc(stream, fn, user);
#endif
}

// ---- the bulk tensor copy engine (TMA, compute capability 9.0+; CUDA only) -----------------------
// A tensor map describes a 2-D row-major array of 2-, 4- or 8-byte words (inner = elements per row,
// outer = rows) and the box one copy moves (box_inner x box_outer, 128-byte swizzle, so the box's
// rows must be 128 bytes). Encoding is host-only work. Returns false where the engine is missing
// or the array does not qualify (row pitch a multiple of 16 bytes, base 16-byte aligned, extents
// below 2^31): the caller then uses a kernel without it.
#if GPUCORE_GPU_IS_HIP || GPUCORE_GPU_IS_SIMT
#define GPUCORE_GPU_HAS_BULK_TENSOR_COPY 0
#define GPUCORE_GRID_CONSTANT
struct alignas(64) BulkTensorMap {
    unsigned char opaque[128];
};
inline bool encode_bulk_tensor_map(BulkTensorMap*, const void*, std::uint64_t, std::uint64_t, int,
                                   std::uint32_t, std::uint32_t) {
    return false;
}
#else
#define GPUCORE_GPU_HAS_BULK_TENSOR_COPY 1
#define GPUCORE_GRID_CONSTANT __grid_constant__
using BulkTensorMap = CUtensorMap;
inline bool encode_bulk_tensor_map(BulkTensorMap* map, const void* base, std::uint64_t inner,
                                   std::uint64_t outer, int word_bytes, std::uint32_t box_inner,
                                   std::uint32_t box_outer) {
    static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
        void* fn = nullptr;
        cudaDriverEntryPointQueryResult found{};
        const cudaError_t err = cudaGetDriverEntryPointByVersion(
            "cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
        const bool ok = err == cudaSuccess && found == cudaDriverEntryPointSuccess;
        return ok ? reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn) : nullptr;
    }();
    const std::uint64_t pitch = inner * static_cast<std::uint64_t>(word_bytes);
    const std::uint64_t limit = std::uint64_t{1} << 31;
    if (encode == nullptr || pitch % 16 != 0 || reinterpret_cast<std::uintptr_t>(base) % 16 != 0 ||
        inner >= limit || outer >= limit) {
        return false;
    }
    const cuuint64_t dims[2] = {inner, outer};
    const cuuint64_t strides[1] = {pitch};
    const cuuint32_t box[2] = {box_inner, box_outer};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUtensorMapDataType type = word_bytes == 8   ? CU_TENSOR_MAP_DATA_TYPE_UINT64
                                     : word_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                                       : CU_TENSOR_MAP_DATA_TYPE_UINT16;
    return encode(map, type,
                  2, const_cast<void*>(base), dims, strides, box, element_strides,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}
#endif

// ---- how launches report their failure ------------------------------------------------------------
// take_launch_error(): the failure of this thread's launches since the last call (and resets it), as
// cudaGetLastError() reports <<<>>>'s. On CUDA the launches go through the driver (launch_kernel
// below, gpucore/kernel/cuda_launch.hpp) and keep their own record: a runtime error left by another
// call is not theirs.
#if GPUCORE_GPU_IS_SIMT || GPUCORE_GPU_IS_HIP
inline gpuError_t take_launch_error() noexcept {
    return gpuGetLastError();
}
#else
inline cudaError_t& launch_error_of_this_thread() noexcept {
    static thread_local cudaError_t error = cudaSuccess;
    return error;
}
inline cudaError_t take_launch_error() noexcept {
    const cudaError_t error = launch_error_of_this_thread();
    launch_error_of_this_thread() = cudaSuccess;
    return error;
}

// After a <<<>>> launch: keeps its failure for take_launch_error(), out of the runtime's slot.
inline void keep_runtime_launch_error() noexcept {
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) launch_error_of_this_thread() = err;
}
#endif

} // namespace gpucore::gpu

// The one error-check macro: keeps the call's text, file and line and forwards to one function
// (gpu_error.hpp), which throws a GpuError that the plugin's slot guard turns into a status.
#define GPUCORE_GPU_CHECK(call) ::gpucore::gpu::check_call((call), #call, __FILE__, __LINE__)

// ---- device-side differences (only in translation units compiled by nvcc / hipcc, or for simt) ---
// The kernels are written in the public kernel dialect (gpucore/kernel.hpp: element types, warp
// operations, barriers, atomics, fences). What follows adds only what the dialect leaves out: the
// warp width as a compile-time constant of the target, and loads and stores with cache hints.
#if defined(__CUDACC__) || defined(__HIPCC__) || GPUCORE_GPU_IS_SIMT
#include "gpucore/kernel.hpp"
#if !GPUCORE_GPU_IS_SIMT && !GPUCORE_GPU_IS_HIP
#include <cuda/ptx>
#include <nv/target>
#endif
namespace gpucore::gpu {

using kernel::atomic_add;
using kernel::bfloat16_t;
using kernel::dynamic_shared;
using kernel::fence_device;
using kernel::half_t;
using kernel::round_to;
using kernel::shfl_down;
using kernel::shfl_xor;
using kernel::sync_block;
using kernel::to_float;
static_assert(sizeof(half_t) == 2 && sizeof(bfloat16_t) == 2, "16-bit float elements");

#if GPUCORE_GPU_IS_SIMT
// The simt execution's warp width, fixed when the plugin is built (64 like CDNA, 32 like RDNA and
// NVIDIA).
inline constexpr int kWarpSize = GPUCORE_SIMT_WARP_SIZE;

inline uint4 load_readonly_16(const void* p) {
    uint4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Load of a value another block wrote (and fenced) during this kernel: read from memory, once.
template <class T>
inline T load_coherent(const T* p) {
    return simt::load_relaxed(p);
}

inline void store_streaming_16(void* p, uint4 v) { std::memcpy(p, &v, sizeof v); }
#elif GPUCORE_GPU_IS_HIP
// Wavefront width of the target being compiled. The host pass has no target: it sees 64, the
// largest width, and host code never derives launch shapes from it (it asks the device).
// clang defines __AMDGCN_WAVEFRONT_SIZE per offload target (64 on gfx9, 32 on gfx10+ by default).
#if defined(__AMDGCN_WAVEFRONT_SIZE)
inline constexpr int kWarpSize = __AMDGCN_WAVEFRONT_SIZE;
#else
inline constexpr int kWarpSize = 64;
#endif

// 16-byte load of data the kernel never writes.
__device__ __forceinline__ uint4 load_readonly_16(const void* p) {
    return *static_cast<const uint4*>(p);
}

// Load of a value another block wrote (and fenced) during this kernel: never from a stale L1.
template <class T>
__device__ __forceinline__ T load_coherent(const T* p) {
    return *static_cast<const volatile T*>(p);
}

// 16-byte store of data no thread of this kernel reads again (streaming, evict-first).
__device__ __forceinline__ void store_streaming_16(void* p, uint4 v) {
    *static_cast<uint4*>(p) = v;
}
#else
inline constexpr int kWarpSize = 32;

// 16-byte load of data the kernel never writes: through the read-only (non-coherent) data path.
__device__ __forceinline__ uint4 load_readonly_16(const void* p) {
    return __ldg(static_cast<const uint4*>(p));
}

// Load of a value another block wrote (and fenced) during this kernel: cached in L2 only, so
// never from a stale L1 line; independent loads can still be in flight together.
template <class T>
__device__ __forceinline__ T load_coherent(const T* p) {
    return __ldcg(p);
}

// 16-byte store of data no thread of this kernel reads again (streaming, evict-first).
__device__ __forceinline__ void store_streaming_16(void* p, uint4 v) {
    __stcs(static_cast<uint4*>(p), v);
}
#endif

// Bulk copies (tensor boxes, or contiguous bytes), completion on a shared-memory barrier (loads)
// or in bulk groups (stores).
// Declared for HIP too, never defined there: kernels using them are instantiated only when
// GPUCORE_GPU_HAS_BULK_TENSOR_COPY. On CUDA targets below sm_90 the bodies trap; the launcher
// runs such a kernel only where the device runs sm_90+ code (kernel_runs_arch, occupancy.hpp).
#if GPUCORE_GPU_IS_HIP || GPUCORE_GPU_IS_SIMT
__device__ void bulk_barrier_init(std::uint64_t* barrier, std::uint32_t arrivals);
__device__ bool bulk_barrier_try_wait(std::uint64_t* barrier, std::uint32_t parity);
__device__ void bulk_load_2d(void* smem, const BulkTensorMap* map, int x, int y,
                             std::uint64_t* barrier, std::uint32_t bytes);
__device__ void bulk_store_2d(const BulkTensorMap* map, int x, int y, const void* smem);
__device__ void bulk_barrier_expect(std::uint64_t* barrier, std::uint32_t bytes);
__device__ void bulk_load_1d(void* smem, const void* global, std::uint32_t bytes, std::uint64_t* barrier);
__device__ void bulk_store_1d(void* global, const void* smem, std::uint32_t bytes);
__device__ void bulk_store_commit();
__device__ void bulk_store_wait_read_all_but_one();
__device__ void bulk_store_wait_all();
__device__ void fence_shared_for_bulk_copy();
#else
#define GPUCORE_SM90_OR_TRAP(...) NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, (__VA_ARGS__), (__trap();))
__device__ __forceinline__ void bulk_barrier_init(std::uint64_t* barrier, std::uint32_t arrivals) {
    GPUCORE_SM90_OR_TRAP(cuda::ptx::mbarrier_init(barrier, arrivals);
                         cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release,
                                                        cuda::ptx::scope_cluster);)
}
__device__ __forceinline__ bool bulk_barrier_try_wait(std::uint64_t* barrier, std::uint32_t parity) {
    GPUCORE_SM90_OR_TRAP(return cuda::ptx::mbarrier_try_wait_parity(barrier, parity);)
    return false;
}
// Arms `barrier` for `bytes` and starts the load of box (x, y) into `smem` (1024-byte aligned).
__device__ __forceinline__ void bulk_load_2d(void* smem, const BulkTensorMap* map, int x, int y,
                                             std::uint64_t* barrier, std::uint32_t bytes) {
    GPUCORE_SM90_OR_TRAP(
        const std::int32_t coords[2] = {x, y};
        cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                             cuda::ptx::space_shared, barrier, bytes);
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, smem,
                                        map, coords, barrier);)
}
__device__ __forceinline__ void bulk_store_2d(const BulkTensorMap* map, int x, int y,
                                              const void* smem) {
    GPUCORE_SM90_OR_TRAP(const std::int32_t coords[2] = {x, y};
                         cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global,
                                                         cuda::ptx::space_shared, map, coords,
                                                         smem);)
}
// Arms `barrier` for `bytes`, the sum of the bulk_load_1d calls that complete on it.
__device__ __forceinline__ void bulk_barrier_expect(std::uint64_t* barrier, std::uint32_t bytes) {
    GPUCORE_SM90_OR_TRAP(cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                              cuda::ptx::space_shared, barrier, bytes);)
}
// Starts the load of `bytes` contiguous bytes (addresses and size multiples of 16) into `smem`,
// completing on an armed `barrier`.
__device__ __forceinline__ void bulk_load_1d(void* smem, const void* global, std::uint32_t bytes,
                                             std::uint64_t* barrier) {
    GPUCORE_SM90_OR_TRAP(cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, smem, global,
                                                  bytes, barrier);)
}
// Starts the store of `bytes` contiguous bytes (addresses and size multiples of 16) from `smem`,
// in the current bulk group.
__device__ __forceinline__ void bulk_store_1d(void* global, const void* smem, std::uint32_t bytes) {
    GPUCORE_SM90_OR_TRAP(cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, global, smem,
                                                  bytes);)
}
__device__ __forceinline__ void bulk_store_commit() {
    GPUCORE_SM90_OR_TRAP(cuda::ptx::cp_async_bulk_commit_group();)
}
// The shared memory of every committed store group but the newest may be reused.
__device__ __forceinline__ void bulk_store_wait_read_all_but_one() {
    GPUCORE_SM90_OR_TRAP(cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<1>{});)
}
// Every committed store is complete (before the block exits).
__device__ __forceinline__ void bulk_store_wait_all() {
    GPUCORE_SM90_OR_TRAP(cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});)
}
// Ordinary shared-memory writes become visible to the copy engine (each writer, before a barrier).
__device__ __forceinline__ void fence_shared_for_bulk_copy() {
    GPUCORE_SM90_OR_TRAP(cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);)
}
#undef GPUCORE_SM90_OR_TRAP
#endif

// The one kernel launch of all three vendors: kernel<<<grid, block, shared_bytes, stream>>>(args),
// with the arguments converted to the kernel's parameter types as <<<>>> converts them (on CUDA
// through the driver: gpucore/kernel/cuda_launch.hpp). Check last_launch_error() afterwards, as
// after <<<>>>.
template <class T>
struct LaunchParameter {
    using type = T;
};
template <class... Params>
inline void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
                          gpuStream_t stream, typename LaunchParameter<Params>::type... args) {
#if GPUCORE_GPU_IS_SIMT
    (void)simt::launch_kernel(kernel, grid, block, shared_bytes, stream, std::move(args)...);
#elif GPUCORE_GPU_IS_HIP
    kernel<<<grid, block, shared_bytes, stream>>>(args...);
#else
    void* params[] = {static_cast<void*>(&args)..., nullptr};
    if (!gpucore::kernel::cuda_launch::launched(reinterpret_cast<const void*>(kernel), grid, block, shared_bytes,
                                                stream, params)) {
        // The runtime's launch, as on the other vendors: it reports the failure with its own error.
        kernel<<<grid, block, shared_bytes, stream>>>(args...);
        keep_runtime_launch_error();
    }
#endif
}

} // namespace gpucore::gpu
#endif

// The ONE place where CUDA and HIP differ. Everything else in backends/gpu is written once against
// the neutral names below (gpuMalloc, gpuStream_t, kWarpSize, shfl_xor, ...).
//
// Vendor choice: HIP when the build defines GPUCORE_GPU_VENDOR_HIP (backends/hip does) or the
// compiler targets AMD (__HIP_PLATFORM_AMD__); CUDA otherwise.
//
// What differs, and why it lives here:
//  - runtime API names (cudaMalloc vs hipMalloc, ...), mapped by macros so overloads still resolve;
//  - which runtime errors are sticky (the context is lost and every later call fails);
//  - the architecture string ("sm_90" from the compute capability vs gcnArchName "gfx90a");
//  - the warp (wavefront) width: 32 on NVIDIA, 64 on gfx9 CDNA, 32 on gfx10+ RDNA (wave32 default);
//  - the lane-mask type (64-bit on HIP) and the shuffle intrinsics (CUDA's *_sync forms take the
//    mask of participating lanes; HIP's take none).
#pragma once

#include <cstdint>
#include <cstdio>

#if defined(GPUCORE_GPU_VENDOR_HIP) || defined(__HIP_PLATFORM_AMD__)
#define GPUCORE_GPU_IS_HIP 1
#if !defined(__HIP_PLATFORM_AMD__)
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif
#else
#define GPUCORE_GPU_IS_HIP 0
#include <cuda_runtime_api.h>
#endif

// ---- runtime API names ---------------------------------------------------------------------------
#define GPUCORE_GPU_STR_(x) #x
#define GPUCORE_GPU_STR(x) GPUCORE_GPU_STR_(x)
#if GPUCORE_GPU_IS_HIP
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
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMallocHost(ptr, bytes) hipHostMalloc((ptr), (bytes), hipHostMallocDefault)
#define gpuFreeHost hipHostFree
#define gpuMallocManaged hipMallocManaged
#define gpuMemAttachGlobal hipMemAttachGlobal
#define gpuMemGetInfo hipMemGetInfo
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemcpyDefault hipMemcpyDefault
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
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMallocHost(ptr, bytes) cudaMallocHost((ptr), (bytes))
#define gpuFreeHost cudaFreeHost
#define gpuMallocManaged cudaMallocManaged
#define gpuMemAttachGlobal cudaMemAttachGlobal
#define gpuMemGetInfo cudaMemGetInfo
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemcpyDefault cudaMemcpyDefault
#define gpuMemset cudaMemset
#define gpuMemsetAsync cudaMemsetAsync
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuStreamQuery cudaStreamQuery
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
#if GPUCORE_GPU_IS_HIP
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
#if GPUCORE_GPU_IS_HIP
    return err == hipErrorNoDevice || err == hipErrorInsufficientDriver;
#else
    return err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
           err == cudaErrorCompatNotSupportedOnDevice || err == cudaErrorSystemDriverMismatch;
#endif
}

// The architecture string users see: "sm_90" on NVIDIA, "gfx90a:sramecc+:xnack-" on AMD.
inline void format_architecture(const gpuDeviceProp_t& props, char* out, std::size_t capacity) {
#if GPUCORE_GPU_IS_HIP
    // The precision bounds the copy (gcnArchName holds 256 bytes): truncation is intended.
    std::snprintf(out, capacity, "%.*s", static_cast<int>(capacity > 0 ? capacity - 1 : 0),
                  props.gcnArchName);
#else
    std::snprintf(out, capacity, "sm_%d%d", props.major, props.minor);
#endif
}

} // namespace gpucore::gpu

// The one error-check macro: keeps the call's text, file and line and forwards to one function
// (gpu_error.hpp), which throws a GpuError that the plugin's slot guard turns into a status.
#define GPUCORE_GPU_CHECK(call) ::gpucore::gpu::check_call((call), #call, __FILE__, __LINE__)

// ---- device-side differences (only in translation units compiled by nvcc / hipcc) ----------------
#if defined(__CUDACC__) || defined(__HIPCC__)
namespace gpucore::gpu {

#if GPUCORE_GPU_IS_HIP
// Wavefront width of the target being compiled. The host pass has no target: it sees 64, the
// largest width, and host code never derives launch shapes from it (it asks the device).
// clang defines __AMDGCN_WAVEFRONT_SIZE per offload target (64 on gfx9, 32 on gfx10+ by default).
#if defined(__AMDGCN_WAVEFRONT_SIZE)
inline constexpr int kWarpSize = __AMDGCN_WAVEFRONT_SIZE;
#else
inline constexpr int kWarpSize = 64;
#endif
using lane_mask_t = std::uint64_t;
inline constexpr lane_mask_t kFullLaneMask = ~lane_mask_t{0};

template <class T>
__device__ __forceinline__ T shfl_xor(T value, int lane_mask, int width) {
    return __shfl_xor(value, lane_mask, width);
}

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
using lane_mask_t = std::uint32_t;
inline constexpr lane_mask_t kFullLaneMask = ~lane_mask_t{0};

// Every lane of the warp must call this (all our warp reductions keep the whole warp converged).
template <class T>
__device__ __forceinline__ T shfl_xor(T value, int lane_mask, int width) {
    return __shfl_xor_sync(kFullLaneMask, value, lane_mask, width);
}

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

} // namespace gpucore::gpu
#endif

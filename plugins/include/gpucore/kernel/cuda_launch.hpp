// SPDX-License-Identifier: Apache-2.0
// Kernel launches through the CUDA driver, for host code compiled with the CUDA runtime (the CUDA
// plugin's launches and kernel modules' launchers).
//
// cudaLaunchKernel (and <<<>>>) looks up the kernel's function in the current context on every
// launch; that lookup is a good part of the host time of a small launch. The driver's
// cuLaunchKernel, given the function looked up once per thread, device and kernel, skips it. The
// driver is reached through the runtime (nothing here links libcuda). A caller launches through the
// runtime instead where launched() returns false: the runtime then reports the cause with its own
// error.
#pragma once

#include <cstddef>
#include <functional>
#include <unordered_map>

#include <cuda.h> // CUfunction, CUstream, CUresult (types only)
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h> // PFN_cuLaunchKernel_v4000

namespace gpucore::kernel::cuda_launch {

// The driver's cuLaunchKernel; null where the driver does not give it, or where the runtime is older
// than CUDA 12.5 (no versioned entry points: launches go through the runtime there).
inline PFN_cuLaunchKernel_v4000 entry() noexcept {
#if CUDART_VERSION < 12050
    return nullptr;
#else
    static const PFN_cuLaunchKernel_v4000 launch = [] {
        void* fn = nullptr;
        cudaDriverEntryPointQueryResult found{};
        const cudaError_t err = cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fn, 4000, cudaEnableDefault, &found);
        const bool ok = err == cudaSuccess && found == cudaDriverEntryPointSuccess;
        if (!ok) (void)cudaGetLastError();
        return ok ? reinterpret_cast<PFN_cuLaunchKernel_v4000>(fn) : nullptr;
    }();
    return launch;
#endif
}

struct KernelOnDevice {
    const void* kernel;
    int device;
    bool operator==(const KernelOnDevice& other) const noexcept {
        return kernel == other.kernel && device == other.device;
    }
};
struct KernelOnDeviceHash {
    std::size_t operator()(const KernelOnDevice& key) const noexcept {
        return std::hash<const void*>()(key.kernel) ^ (static_cast<std::size_t>(key.device) * 0x9e3779b97f4a7c15ULL);
    }
};

// The function of `kernel` (a __global__ function's address) in the current device's context; null
// when the runtime has none (the runtime's launch then names the cause).
inline CUfunction function_of(const void* kernel) noexcept {
    // Per thread: no lock on the launch path (each thread asks the runtime once per kernel).
    static thread_local std::unordered_map<KernelOnDevice, CUfunction, KernelOnDeviceHash> functions;
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess) {
        (void)cudaGetLastError();
        return nullptr;
    }
    const KernelOnDevice key{kernel, device};
    const auto found = functions.find(key);
    if (found != functions.end()) return found->second;
    cudaFunction_t function = nullptr;
    if (cudaGetFuncBySymbol(&function, kernel) != cudaSuccess || function == nullptr) {
        (void)cudaGetLastError();
        return nullptr;
    }
    try {
        functions.emplace(key, reinterpret_cast<CUfunction>(function));
    } catch (...) {
        // No memory for the entry: asked again at the next launch.
    }
    return reinterpret_cast<CUfunction>(function);
}

// Launches `kernel` on the current device with `params` (a pointer to each argument, as
// cudaLaunchKernel takes them) through the driver. False when the driver or the kernel's function
// is missing or the driver refused the launch: nothing was launched then.
inline bool launched(const void* kernel, dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
                     void** params) noexcept {
    const PFN_cuLaunchKernel_v4000 driver = entry();
    const CUfunction function = driver != nullptr ? function_of(kernel) : nullptr;
    return function != nullptr &&
           driver(function, grid.x, grid.y, grid.z, block.x, block.y, block.z, static_cast<unsigned int>(shared_bytes),
                  reinterpret_cast<CUstream>(stream), params, nullptr) == CUDA_SUCCESS;
}

} // namespace gpucore::kernel::cuda_launch

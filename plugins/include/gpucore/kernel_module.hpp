// SPDX-License-Identifier: Apache-2.0
// GPUCORE_MODULE_KERNEL(kernel): makes a kernel of a module launchable by name through
// gpucore::Module. Its parameter list (each parameter's kind, element type and size) is derived
// from the kernel's signature here, at compile time, never written by hand; gpucore checks every
// launch's arguments against it before anything is enqueued.
//
//   GPUCORE_KERNEL saxpy(float a, const float* x, float* y, std::size_t n) { ... }
//   GPUCORE_MODULE_KERNEL(saxpy);
//   GPUCORE_MODULE_KERNEL_AS("scale_f64", scale<double>);  // a template instance, named
//
// Parameters: pointers to elements are buffers (const T*: read only; T*: written), anything else
// trivially copyable is a scalar passed by value.
#pragma once

#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "gpucore/kernel.hpp"
#include "gpucore/kernel_registry.hpp"
#if defined(GPUCORE_KERNEL_VENDOR_CUDA)
#include "gpucore/kernel/cuda_launch.hpp" // launches through the driver
#endif

namespace gpucore::module_detail {

template <class T>
constexpr gpucore_param_type type_of() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, float>) return GPUCORE_PARAM_F32;
    else if constexpr (std::is_same_v<U, double>) return GPUCORE_PARAM_F64;
    else if constexpr (std::is_same_v<U, kernel::half_t>) return GPUCORE_PARAM_F16;
    else if constexpr (std::is_same_v<U, kernel::bfloat16_t>) return GPUCORE_PARAM_BF16;
    else if constexpr (std::is_integral_v<U> && !std::is_same_v<U, bool>) {
        constexpr bool s = std::is_signed_v<U>;
        if constexpr (sizeof(U) == 1) return s ? GPUCORE_PARAM_I8 : GPUCORE_PARAM_U8;
        else if constexpr (sizeof(U) == 2) return s ? GPUCORE_PARAM_I16 : GPUCORE_PARAM_U16;
        else if constexpr (sizeof(U) == 4) return s ? GPUCORE_PARAM_I32 : GPUCORE_PARAM_U32;
        else if constexpr (sizeof(U) == 8) return s ? GPUCORE_PARAM_I64 : GPUCORE_PARAM_U64;
        else return GPUCORE_PARAM_RAW;
    } else {
        return GPUCORE_PARAM_RAW;
    }
}

template <class P>
constexpr gpucore_kernel_param param_of() {
    static_assert(std::is_trivially_copyable_v<P>, "kernel parameters are trivially copyable (passed by value)");
    static_assert(!std::is_reference_v<P>, "kernel parameters are values or pointers, never references");
    if constexpr (std::is_pointer_v<P>) {
        using E = std::remove_pointer_t<P>;
        static_assert(!std::is_void_v<std::remove_cv_t<E>>, "a buffer parameter points to typed elements, not void");
        static_assert(!std::is_pointer_v<E>, "a buffer parameter points to elements, not to pointers");
        return gpucore_kernel_param{std::is_const_v<E> ? GPUCORE_PARAM_CONST_BUFFER : GPUCORE_PARAM_BUFFER,
                                    type_of<E>(), static_cast<std::uint32_t>(sizeof(P)),
                                    static_cast<std::uint32_t>(sizeof(E))};
    } else {
        return gpucore_kernel_param{GPUCORE_PARAM_SCALAR, type_of<P>(), static_cast<std::uint32_t>(sizeof(P)),
                                    static_cast<std::uint32_t>(sizeof(P))};
    }
}

inline gpucore_status report(gpucore_message* msg, gpucore_status status, const char* format, ...)
    __attribute__((format(printf, 3, 4)));
inline gpucore_status report(gpucore_message* msg, gpucore_status status, const char* format, ...) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(msg->text, sizeof msg->text, format, args);
    va_end(args);
    return status;
}

// Runs body() (a launch, returning its status); an exception becomes a PLUGIN status with its text,
// so none crosses the module boundary.
template <class Body>
gpucore_status guarded_launch(gpucore_message* msg, Body&& body) noexcept {
    try {
        return body();
    } catch (const std::exception& e) {
        return report(msg, GPUCORE_ERROR_PLUGIN, "launch threw: %s", e.what());
    } catch (...) {
        return report(msg, GPUCORE_ERROR_PLUGIN, "launch threw an exception");
    }
}

// The arguments of one launch, copied out of `args` (the kernelParams convention) into the types
// of the kernel's parameters.
template <class... P, std::size_t... I>
std::tuple<P...> unpack(void* const* args, std::index_sequence<I...>) {
    std::tuple<P...> values;
    (std::memcpy(&std::get<I>(values), args[I], sizeof(P)), ...);
    return values;
}

#if defined(GPUCORE_KERNEL_VENDOR_CUDA) || defined(GPUCORE_KERNEL_VENDOR_HIP)
#if defined(GPUCORE_KERNEL_VENDOR_CUDA)
#define GPUCORE_MODULE_RT(name) cuda##name
inline constexpr auto kSharedOptinAttribute = cudaDevAttrMaxSharedMemoryPerBlockOptin;
#else
#define GPUCORE_MODULE_RT(name) hip##name
inline constexpr auto kSharedOptinAttribute = hipDeviceAttributeMaxSharedMemoryPerBlock;
#endif
using RuntimeError = GPUCORE_MODULE_RT(Error_t);

// What the device allows one kernel, read once per device and kept. `known` publishes the fields
// before it (set once, under the kernel's lock); `dynamic_allowed` only grows, under that lock. A
// launch reads them without the lock.
struct KernelLimits {
    std::atomic<bool> known{false};
    int max_threads = 0;          // threads per block (registers and launch bounds included)
    std::size_t static_shared = 0;
    std::size_t max_shared = 0;   // static + dynamic per block, the opt-in maximum
    std::atomic<std::size_t> dynamic_allowed{0}; // dynamic bytes the kernel is configured for now
};
inline constexpr int kLimitDevices = 64;

inline gpucore_status runtime_failure(gpucore_message* msg, const char* call, RuntimeError err) {
    const bool bad_launch = err == GPUCORE_MODULE_RT(ErrorInvalidConfiguration) ||
                            err == GPUCORE_MODULE_RT(ErrorInvalidValue);
#if defined(GPUCORE_KERNEL_VENDOR_CUDA)
    const bool no_code = err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction;
#else
    const bool no_code = err == hipErrorNoBinaryForGpu || err == hipErrorInvalidDeviceFunction;
#endif
    return report(msg, no_code ? GPUCORE_ERROR_NOT_SUPPORTED : bad_launch ? GPUCORE_ERROR_INVALID_ARGUMENT : GPUCORE_ERROR_DEVICE,
                  "%s: %s (%s)", call, GPUCORE_MODULE_RT(GetErrorString)(err), GPUCORE_MODULE_RT(GetErrorName)(err));
}

template <auto Kernel>
gpucore_status launch_gpu(const gpucore_launch_config* c, const gpucore_launch_target* target, void* const* args,
                          gpucore_message* msg) noexcept {
    static KernelLimits limits[kLimitDevices];
    static std::mutex limits_mutex;
    return guarded_launch(msg, [&]() -> gpucore_status {
        // The caller's current device is theirs: set only when it differs, and put it back.
        int current = -1;
        RuntimeError err = GPUCORE_MODULE_RT(GetDevice)(&current);
        if (err != GPUCORE_MODULE_RT(Success)) return runtime_failure(msg, "read the current device", err);
        if (current != target->device) {
            err = GPUCORE_MODULE_RT(SetDevice)(target->device);
            if (err != GPUCORE_MODULE_RT(Success)) return runtime_failure(msg, "set device", err);
        }
        struct RestoreDevice {
            int previous, target;
            ~RestoreDevice() {
                if (previous >= 0 && previous != target) (void)GPUCORE_MODULE_RT(SetDevice)(previous);
            }
        } restore{current, target->device};
        if (target->device < 0 || target->device >= kLimitDevices) {
            return report(msg, GPUCORE_ERROR_NOT_SUPPORTED, "device %d: modules run on the first %d devices",
                          target->device, kLimitDevices);
        }
        KernelLimits& limit = limits[target->device];
        if (!limit.known.load(std::memory_order_acquire)) {
            std::lock_guard<std::mutex> lock(limits_mutex);
            if (!limit.known.load(std::memory_order_relaxed)) {
                GPUCORE_MODULE_RT(FuncAttributes) attributes{};
                err = GPUCORE_MODULE_RT(FuncGetAttributes)(&attributes, reinterpret_cast<const void*>(Kernel));
                if (err != GPUCORE_MODULE_RT(Success)) return runtime_failure(msg, "read the kernel's attributes", err);
                int optin = 0;
                err = GPUCORE_MODULE_RT(DeviceGetAttribute)(&optin, kSharedOptinAttribute, target->device);
                if (err != GPUCORE_MODULE_RT(Success)) return runtime_failure(msg, "read the device's shared memory limit", err);
                limit.max_threads = attributes.maxThreadsPerBlock;
                limit.static_shared = attributes.sharedSizeBytes;
                limit.max_shared = static_cast<std::size_t>(optin);
                limit.dynamic_allowed.store(static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes),
                                            std::memory_order_relaxed);
                limit.known.store(true, std::memory_order_release);
            }
        }
        const std::uint64_t threads = std::uint64_t{c->block[0]} * c->block[1] * c->block[2];
        if (threads > static_cast<std::uint64_t>(limit.max_threads)) {
            return report(msg, GPUCORE_ERROR_INVALID_ARGUMENT,
                          "a block of %llu threads is more than this kernel runs per block on device %d (%d: "
                          "the device's limit, the kernel's registers and launch bounds)",
                          static_cast<unsigned long long>(threads), target->device, limit.max_threads);
        }
        if (limit.static_shared + c->shared_bytes > limit.max_shared) {
            return report(msg, GPUCORE_ERROR_INVALID_ARGUMENT,
                          "%u bytes of dynamic shared memory plus the kernel's %zu static bytes exceed the %zu "
                          "bytes a block may use on device %d",
                          c->shared_bytes, limit.static_shared, limit.max_shared, target->device);
        }
        if (c->shared_bytes > limit.dynamic_allowed.load(std::memory_order_acquire)) {
            std::lock_guard<std::mutex> lock(limits_mutex);
            if (c->shared_bytes > limit.dynamic_allowed.load(std::memory_order_relaxed)) {
                err = GPUCORE_MODULE_RT(FuncSetAttribute)(reinterpret_cast<const void*>(Kernel),
                                                         GPUCORE_MODULE_RT(FuncAttributeMaxDynamicSharedMemorySize),
                                                         static_cast<int>(c->shared_bytes));
                if (err != GPUCORE_MODULE_RT(Success)) return runtime_failure(msg, "allow the dynamic shared memory", err);
                limit.dynamic_allowed.store(c->shared_bytes, std::memory_order_release);
            }
        }
        const dim3 grid(c->grid[0], c->grid[1], c->grid[2]);
        const dim3 block(c->block[0], c->block[1], c->block[2]);
        const auto stream = static_cast<GPUCORE_MODULE_RT(Stream_t)>(target->native_stream);
#if defined(GPUCORE_KERNEL_VENDOR_CUDA)
        if (gpucore::kernel::cuda_launch::launched(reinterpret_cast<const void*>(Kernel), grid, block, c->shared_bytes,
                                                   stream, const_cast<void**>(args))) {
            return GPUCORE_OK;
        }
#endif
        // The runtime's launch: on HIP, and on CUDA where the driver refused (the runtime names why).
        err = GPUCORE_MODULE_RT(LaunchKernel)(reinterpret_cast<const void*>(Kernel), grid, block,
                                              const_cast<void**>(args), c->shared_bytes, stream);
        if (err != GPUCORE_MODULE_RT(Success)) {
            (void)GPUCORE_MODULE_RT(GetLastError)(); // a launch error is not sticky: clear it
            return runtime_failure(msg, "launch", err);
        }
        return GPUCORE_OK;
    });
}

template <auto Kernel, class... P>
constexpr LaunchFn launcher_of(void (*)(P...)) {
    return &launch_gpu<Kernel>;
}
#else // the CPU
template <auto Kernel, class... P>
struct CpuGrid {
    std::tuple<P...> params;
    const gpucore_launch_config* config;
    unsigned warp_size;
    std::mutex mutex;
    std::string fault;

    static void thread_body(void* user) { std::apply(Kernel, static_cast<CpuGrid*>(user)->params); }
    // Flattened: the kernel is inlined into the loop over the block's threads (see
    // simt::run_direct_threads). The parameters are copied into the loop's frame: the kernel's
    // stores then cannot alias them, and they stay in registers across threads.
    __attribute__((flatten)) static void thread_loop(void* user, simt::DirectThreads& threads) {
        const std::tuple<P...> params = static_cast<CpuGrid*>(user)->params;
        simt::run_direct_threads(threads, [&] { std::apply(Kernel, params); });
    }
    static void block_body(void* user, std::uint64_t b) {
        auto* grid = static_cast<CpuGrid*>(user);
        const gpucore_launch_config& c = *grid->config;
        simt::BlockLaunch launch;
        launch.block_idx = dim3(static_cast<unsigned>(b % c.grid[0]), static_cast<unsigned>((b / c.grid[0]) % c.grid[1]),
                                static_cast<unsigned>(b / (std::uint64_t{c.grid[0]} * c.grid[1])));
        launch.block_dim = dim3(c.block[0], c.block[1], c.block[2]);
        launch.grid_dim = dim3(c.grid[0], c.grid[1], c.grid[2]);
        launch.warp_size = grid->warp_size;
        launch.shared_bytes = c.shared_bytes;
        std::string fault = simt::run_block(&thread_loop, &thread_body, user, launch);
        if (!fault.empty()) {
            std::lock_guard<std::mutex> lock(grid->mutex);
            if (grid->fault.empty()) grid->fault = std::move(fault);
        }
    }
};

template <auto Kernel, class... P>
gpucore_status launch_cpu(const gpucore_launch_config* c, const gpucore_launch_target* target, void* const* args,
                          gpucore_message* msg) noexcept {
    return guarded_launch(msg, [&]() -> gpucore_status {
        const gpucore_host_parallel* parallel = target->parallel;
        if (parallel == nullptr || parallel->parallel_for == nullptr) {
            return report(msg, GPUCORE_ERROR_INVALID_ARGUMENT, "a cpu module needs the backend's worker threads");
        }
        CpuGrid<Kernel, P...> grid{unpack<P...>(args, std::index_sequence_for<P...>{}), c, parallel->warp_size, {}, {}};
        const std::uint64_t blocks = std::uint64_t{c->grid[0]} * c->grid[1] * c->grid[2];
        parallel->parallel_for(parallel->context, blocks, &CpuGrid<Kernel, P...>::block_body, &grid);
        if (!grid.fault.empty()) return report(msg, GPUCORE_ERROR_DEVICE, "kernel fault: %s", grid.fault.c_str());
        return GPUCORE_OK;
    });
}

template <auto Kernel, class... P>
constexpr LaunchFn launcher_of(void (*)(P...)) {
    return &launch_cpu<Kernel, std::decay_t<P>...>;
}
#endif

template <auto Kernel, class... P>
struct Parameters {
    static constexpr std::size_t count = sizeof...(P);
    // One extra entry: a kernel without parameters still has an array.
    static constexpr gpucore_kernel_param list[count + 1] = {param_of<std::decay_t<P>>()..., gpucore_kernel_param{}};
};
template <auto Kernel, class... P>
constexpr const gpucore_kernel_param* parameters_of(void (*)(P...)) {
    return Parameters<Kernel, P...>::list;
}
template <class... P>
constexpr std::uint32_t parameter_count_of(void (*)(P...)) {
    return static_cast<std::uint32_t>(sizeof...(P));
}

template <auto Kernel>
struct Registrar {
    KernelRegistration registration;
    explicit Registrar(const char* name)
        : registration{name, parameters_of<Kernel>(Kernel), parameter_count_of(Kernel), launcher_of<Kernel>(Kernel)} {
        register_kernel(&registration);
    }
};

} // namespace gpucore::module_detail

#define GPUCORE_MODULE_CONCAT_(a, b) a##b
#define GPUCORE_MODULE_CONCAT(a, b) GPUCORE_MODULE_CONCAT_(a, b)
#if defined(GPUCORE_MODULE_NAME)
#define GPUCORE_MODULE_KERNEL_AS(name, ...)                                                                \
    static ::gpucore::module_detail::Registrar<&__VA_ARGS__> GPUCORE_MODULE_CONCAT(gpucore_module_kernel_, \
                                                                                 __COUNTER__)(name)
#else
// Outside a module build (gpucore_add_kernel_module defines GPUCORE_MODULE_NAME) the same source
// compiles into an ordinary CUDA, HIP or C++ program: the parameters are still checked, nothing
// is registered.
#define GPUCORE_MODULE_KERNEL_AS(name, ...)                                                          \
    static_assert(::gpucore::module_detail::parameters_of<&__VA_ARGS__>(&__VA_ARGS__) != nullptr, \
                  "kernel " name " has checked parameters")
#endif
#define GPUCORE_MODULE_KERNEL(kernel) GPUCORE_MODULE_KERNEL_AS(#kernel, kernel)

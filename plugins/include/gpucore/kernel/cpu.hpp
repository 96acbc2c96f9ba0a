// SPDX-License-Identifier: Apache-2.0
// The kernel dialect on the CPU ("simt": the CPU execution of GPU kernels). Included by
// gpucore/kernel.hpp when the compiler is neither nvcc nor hipcc; do not include it directly.
//
// The device is the CPU: a grid's blocks are spread over worker threads, and a block runs its GPU
// threads one after another. Thread 0 runs as a plain call; only when a thread first reaches a
// block barrier or a warp operation does the block switch to fibers (one per GPU thread, switched
// by a deterministic scheduler at every barrier and warp operation). So kernels without barriers
// or warp operations run at the speed of a plain loop, and the others still run exactly.
//
// The warp width is a run-time value (warp_size()): 32 or 64 lanes, as the device says. What a GPU
// cannot complete (a barrier reached by part of the block, a warp operation without its whole
// warp) stops the block with a fault whose text names the call site.
//
// This header also names the CUDA spellings (__global__, __shared__, threadIdx, __syncthreads,
// atomicAdd, ...) that gpucore's own kernels use, so that one kernel source compiles as CUDA, HIP
// and C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "gpucore/float16.hpp"

// ---- CUDA/HIP vocabulary types --------------------------------------------------------------------
struct dim3 {
    unsigned int x = 1, y = 1, z = 1;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
};
struct alignas(16) uint4 {
    unsigned int x, y, z, w;
};
struct alignas(16) float4 {
    float x, y, z, w;
};

// The CPU execution's own symbols stay inside the library or module that links it (each loaded
// module runs its kernels with its own copy).
#define GPUCORE_SIMT_HIDDEN __attribute__((visibility("hidden")))

namespace gpucore::simt {

// What a running GPU thread sees.
struct ThreadPosition {
    dim3 thread_idx;
    dim3 block_idx;
    dim3 block_dim;
    dim3 grid_dim;
};

// The state of the GPU thread running on this OS thread; valid inside a kernel only. One per OS
// thread: a worker runs one block at a time, and the fibers of that block share its thread.
struct ExecutionState {
    ThreadPosition position;
    unsigned warp_size = 32;
    unsigned char* dynamic_shared = nullptr;
};
// Constant-initialized, and said so: a compiler may then read it directly in every unit, where
// an `extern thread_local` of class type otherwise goes through a call to a possible dynamic
// initializer (which clang cannot link to a hidden symbol in a shared object).
#if defined(__clang__)
#define GPUCORE_SIMT_CONSTANT_INIT [[clang::require_constant_initialization]]
#elif defined(__GNUC__)
#define GPUCORE_SIMT_CONSTANT_INIT __constinit
#else
#define GPUCORE_SIMT_CONSTANT_INIT
#endif
GPUCORE_SIMT_CONSTANT_INIT GPUCORE_SIMT_HIDDEN extern thread_local ExecutionState t_execution;

// The built-in positions, by value, each read straight from the thread-local state. Through a
// reference to the position, every read is a member access that -fsanitize=undefined null-checks,
// and g++ 12 has emitted that check after a call, against flags the call had clobbered: a false
// null-pointer report that stopped a kernel whose tiles loop after barriers and shuffles.
inline dim3 thread_index() noexcept { return t_execution.position.thread_idx; }
inline dim3 block_index() noexcept { return t_execution.position.block_idx; }
inline dim3 block_size() noexcept { return t_execution.position.block_dim; }
inline dim3 grid_size() noexcept { return t_execution.position.grid_dim; }

// One block of a launch.
struct BlockLaunch {
    dim3 block_idx;
    dim3 block_dim;
    dim3 grid_dim;
    unsigned warp_size = 32;
    std::size_t shared_bytes = 0; // dynamic shared memory
};
// Runs thread_body(user) once per thread of the block on the calling OS thread; returns "" or the
// fault's description. Not reentrant.
GPUCORE_SIMT_HIDDEN std::string run_block(void (*thread_body)(void*), void* user, const BlockLaunch& launch);

// A block's threads in direct mode: they run one after another, in index order, as plain calls.
struct DirectThreads {
    bool direct = true; // cleared when the running thread reaches a barrier or warp operation
    unsigned index = 0; // the thread that left direct mode (set when it does)
};
// Runs the kernel for every thread of the block in index order, until the last one ends or the
// running one leaves direct mode. `body` runs the thread whose position t_execution holds; the
// loop's counters are that position, so a thread costs what an iteration of a plain loop does
// once the kernel is inlined here (kernel_module.hpp's launcher), and the compiler keeps what the
// threads share (parameters, block index) in registers.
template <class Body>
inline void run_direct_threads(DirectThreads& d, Body&& body) {
    dim3& idx = t_execution.position.thread_idx;
    const dim3 dim = t_execution.position.block_dim;
    for (unsigned z = 0; z < dim.z; ++z) {
        idx.z = z;
        for (unsigned y = 0; y < dim.y; ++y) {
            idx.y = y;
            for (unsigned x = 0; x < dim.x; ++x) {
                idx.x = x;
                body();
                if (!d.direct) return;
            }
        }
    }
}
// As run_block, with `thread_loop(user, d)` running the direct-mode threads (it calls
// run_direct_threads) and thread_body(user) one thread once the block has gone to fibers.
GPUCORE_SIMT_HIDDEN std::string run_block(void (*thread_loop)(void*, DirectThreads&), void (*thread_body)(void*),
                                          void* user, const BlockLaunch& launch);

// Waits until every thread of the block arrives (`file`:`line` is the call site, for messages).
GPUCORE_SIMT_HIDDEN void block_barrier(const char* file, int line);

// How a lane picks the lane it reads in a warp exchange.
enum class ExchangeMode { xor_lane, from_lane, down, up, ballot };
// Exchanges `bytes` (<= kShuffleBytes) of `value` among the lanes of this warp. Every lane of the
// warp must call it at the same call site. Lanes are grouped in segments of `width` (a power of
// two up to the warp width); as CUDA's __shfl_*_sync and HIP's __shfl_*, a lane keeps its own
// value where the lane its mode names lies past its segment's end (xor, down) or before its
// start (up), and `from_lane` wraps its index into the segment. A mask or offset counts by its
// low log2(warp width) bits, as the hardware does. `ballot`
// ignores `operand` and writes the warp's predicates (nonzero first byte) as a 64-bit lane mask.
inline constexpr std::size_t kShuffleBytes = 16;
GPUCORE_SIMT_HIDDEN void warp_exchange(void* value, std::size_t bytes, ExchangeMode mode, int operand, int width,
                   const char* file, int line);

#if defined(__SANITIZE_THREAD__)
#define GPUCORE_SIMT_TSAN_ORDERS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GPUCORE_SIMT_TSAN_ORDERS 1
#endif
#endif
// Atomics are relaxed and fences sequentially consistent, as on CUDA/HIP (atomicAdd orders
// nothing; __threadfence does). ThreadSanitizer does not model fences, so under it atomics carry
// acquire/release order instead and fence-based protocols are checked through them.
#if defined(GPUCORE_SIMT_TSAN_ORDERS)
inline constexpr int kAtomicOrder = __ATOMIC_ACQ_REL;
inline constexpr int kLoadOrder = __ATOMIC_ACQUIRE;
#else
inline constexpr int kAtomicOrder = __ATOMIC_RELAXED;
inline constexpr int kLoadOrder = __ATOMIC_RELAXED;
#endif

// A value another thread may write during the kernel: read once, from memory.
template <class T>
inline T load_relaxed(const T* p) {
    static_assert(std::is_trivially_copyable_v<T>, "loaded as raw bytes");
    T value;
    __atomic_load(p, &value, kLoadOrder);
    return value;
}

// Atomically replaces *p by apply(*p, operand) (a compare-and-swap loop); returns the old value.
template <class T>
inline T fetch_and_apply(T* p, T (*apply)(T, T), T operand) {
    T old = load_relaxed(p);
    for (;;) {
        T desired = apply(old, operand);
        if (__atomic_compare_exchange(p, &old, &desired, true, kAtomicOrder, kLoadOrder)) return old;
    }
}

} // namespace gpucore::simt

// ---- the CUDA spellings ---------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
// A block-scope thread_local is static per OS thread; a worker runs one block at a time and the
// fibers of that block share its thread, so each __shared__ variable is per block, as on a GPU.
#define __shared__ thread_local

#define threadIdx (::gpucore::simt::thread_index())
#define blockIdx (::gpucore::simt::block_index())
#define blockDim (::gpucore::simt::block_size())
#define gridDim (::gpucore::simt::grid_size())

inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::gpucore::simt::block_barrier(file, line);
}

inline unsigned int atomicAdd(unsigned int* p, unsigned int v) {
    return __atomic_fetch_add(p, v, ::gpucore::simt::kAtomicOrder);
}
inline int atomicAdd(int* p, int v) { return __atomic_fetch_add(p, v, ::gpucore::simt::kAtomicOrder); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    return __atomic_fetch_add(p, v, ::gpucore::simt::kAtomicOrder);
}
inline unsigned int atomicExch(unsigned int* p, unsigned int v) {
    return __atomic_exchange_n(p, v, ::gpucore::simt::kAtomicOrder);
}
inline unsigned int atomicCAS(unsigned int* p, unsigned int expected, unsigned int desired) {
    __atomic_compare_exchange_n(p, &expected, desired, false, ::gpucore::simt::kAtomicOrder,
                                ::gpucore::simt::kLoadOrder);
    return expected;
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// ---- the dialect's vendor layer (see gpucore/kernel.hpp for what each one promises) -------------
#define GPUCORE_KERNEL_VENDOR_CPU 1
#define GPUCORE_KERNEL_KIND "cpu"

namespace gpucore::kernel::vendor {

using half_t = ::gpucore::half;
using bfloat16_t = ::gpucore::bfloat16;
inline float to_float(half_t x) { return static_cast<float>(x); }
inline float to_float(bfloat16_t x) { return static_cast<float>(x); }
inline half_t to_half(float x) { return half_t(x); }
inline bfloat16_t to_bfloat16(float x) { return bfloat16_t(x); }

inline int warp_size() { return static_cast<int>(::gpucore::simt::t_execution.warp_size); }
inline unsigned char* dynamic_shared_bytes() { return ::gpucore::simt::t_execution.dynamic_shared; }

template <class T>
inline T exchange(T value, ::gpucore::simt::ExchangeMode mode, int operand, int width, const char* file,
                  int line) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= ::gpucore::simt::kShuffleBytes,
                  "warp exchanges move trivially copyable values of at most 16 bytes");
    ::gpucore::simt::warp_exchange(&value, sizeof(T), mode, operand, width, file, line);
    return value;
}
template <class T>
inline T shfl_xor(T v, int mask, int width, const char* file, int line) {
    return exchange(v, ::gpucore::simt::ExchangeMode::xor_lane, mask, width, file, line);
}
template <class T>
inline T shfl(T v, int lane, int width, const char* file, int line) {
    return exchange(v, ::gpucore::simt::ExchangeMode::from_lane, lane, width, file, line);
}
template <class T>
inline T shfl_down(T v, unsigned delta, int width, const char* file, int line) {
    return exchange(v, ::gpucore::simt::ExchangeMode::down, static_cast<int>(delta), width, file, line);
}
template <class T>
inline T shfl_up(T v, unsigned delta, int width, const char* file, int line) {
    return exchange(v, ::gpucore::simt::ExchangeMode::up, static_cast<int>(delta), width, file, line);
}
inline std::uint64_t ballot(bool predicate, const char* file, int line) {
    std::uint64_t bits = predicate ? 1 : 0;
    ::gpucore::simt::warp_exchange(&bits, sizeof bits, ::gpucore::simt::ExchangeMode::ballot, 0,
                                   warp_size(), file, line);
    return bits;
}

template <class T>
inline T atomic_add(T* p, T v) {
    if constexpr (std::is_integral_v<T>) {
        return __atomic_fetch_add(p, v, ::gpucore::simt::kAtomicOrder);
    } else {
        return ::gpucore::simt::fetch_and_apply<T>(p, [](T a, T b) { return a + b; }, v);
    }
}
template <class T>
inline T atomic_min(T* p, T v) {
    return ::gpucore::simt::fetch_and_apply<T>(p, [](T a, T b) { return b < a ? b : a; }, v);
}
template <class T>
inline T atomic_max(T* p, T v) {
    return ::gpucore::simt::fetch_and_apply<T>(p, [](T a, T b) { return a < b ? b : a; }, v);
}
template <class T>
inline T atomic_exchange(T* p, T v) {
    return __atomic_exchange_n(p, v, ::gpucore::simt::kAtomicOrder);
}
template <class T>
inline T atomic_cas(T* p, T expected, T desired) {
    __atomic_compare_exchange_n(p, &expected, desired, false, ::gpucore::simt::kAtomicOrder,
                                ::gpucore::simt::kLoadOrder);
    return expected;
}

inline void fence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void fence_device() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void fence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

} // namespace gpucore::kernel::vendor

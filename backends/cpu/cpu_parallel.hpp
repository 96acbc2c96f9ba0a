// SPDX-License-Identifier: Apache-2.0
// How the kernels share work over the backend's thread pool (cpu_thread_pool.hpp), and the cache
// facts they tune for.
#pragma once

#include <algorithm>
#include <cstddef>

#include "cpu_thread_pool.hpp"

namespace gpucore::cpu {

// Below this many bytes of traffic a kernel runs on the calling thread: waking the pool costs a few
// microseconds, which is more than the work itself.
inline constexpr std::size_t kParallelThresholdBytes = std::size_t{256} << 10;

// Work is handed out in blocks of about this many bytes: each thread starts on a range of blocks of
// its own and then helps with the others' (cpu_thread_pool.hpp), so a thread that shares its core
// with another process (common on small shared machines) takes fewer blocks instead of holding up
// all the others, as a static split would. 256 KiB keeps the scheduling cost (one atomic per
// block) negligible and each block long enough for the prefetchers.
inline constexpr std::size_t kBlockBytes = std::size_t{256} << 10;

// Marks a hot kernel function to be compiled twice, for AVX2 and for the baseline, with the choice
// made once at load time (an ifunc): the library stays runnable on any x86-64, yet uses 256-bit
// vectors where they exist. GCC only: clang 14 cannot multiversion templates.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GPUCORE_CPU_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GPUCORE_CPU_SIMD_CLONES
#endif

// Threads to use for `bytes` of traffic: 1 below the threshold, else max_threads().
inline int threads_for(std::size_t bytes) {
    return bytes < kParallelThresholdBytes ? 1 : max_threads();
}

// Calls body(begin, end) for consecutive blocks covering [0, n) elements of `element_bytes` each;
// blocks hold a multiple of 4 KiB, so they start on page (and cache line) boundaries when the
// data does. `traffic_bytes` (all bytes read and written) decides whether the pool is used.
template <class Body>
void parallel_blocks(std::size_t n, std::size_t element_bytes, std::size_t traffic_bytes,
                     const Body& body) {
    const std::size_t block = kBlockBytes / element_bytes;
    const std::size_t blocks = (n + block - 1) / block;
    parallel_for(blocks, 1, threads_for(traffic_bytes), [&](std::size_t first, std::size_t last) {
        for (std::size_t k = first; k < last; ++k) body(k * block, std::min(n, (k + 1) * block));
    });
}

// Outputs larger than the last-level cache are written with non-temporal stores: the data would be
// evicted before anyone reads them, and streaming skips the read-for-ownership of every output
// line (a quarter of vector_add's traffic, a third of transpose's). Returns the size from which
// kernels stream: the LLC size (sysconf), unless a test set another. Thread-safe.
std::size_t streaming_threshold_bytes();
// Overrides the threshold (0: always stream; SIZE_MAX: never); for tests of both store paths.
void set_streaming_threshold_bytes(std::size_t bytes);

// Whether the half kernels use the F16C conversion instructions: the processor has AVX2 and F16C,
// the compiler can target them (GCC on x86-64; clang 14 lacks the "f16c" feature test), and no
// test turned them off. Thread-safe.
bool f16c_enabled() noexcept;
// false: the portable half conversion even where F16C exists; true: F16C where it exists. For
// tests of both conversion paths.
void set_f16c_enabled(bool enabled) noexcept;

// Whether the 16-bit reductions use AVX-512 (16-lane conversions): the processor has AVX-512F
// (and AVX2, F16C), the compiler can target it (as for F16C), and no test turned it off.
// Thread-safe.
bool avx512_enabled() noexcept;
// false: the AVX2 kernels even where AVX-512 exists; for tests of both widths.
void set_avx512_enabled(bool enabled) noexcept;

} // namespace gpucore::cpu

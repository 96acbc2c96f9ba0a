// SPDX-License-Identifier: Apache-2.0
// Element-wise kernels: vector_add (c = a + b) and fill (dst = pattern). Blocks stride over tiles
// of kThreads * kPacksInFlight 16-byte packs; each thread issues all its loads before its stores.
// Scalar head (until 16-byte alignment) and tail elements are done by the first threads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "element_math.cuh"
#include "packed_access.cuh"

namespace gpucore::gpu {

// a + b with wrap-around for integers (signed overflow is undefined in C++; unsigned is not); the
// 16-bit floats add in float and round once (element_math.cuh), which is the correctly rounded sum.
template <class T>
__device__ __forceinline__ T wrapping_add(T a, T b) {
    return narrow<T>(widen(a) + widen(b));
}
template <>
__device__ __forceinline__ std::int32_t wrapping_add(std::int32_t a, std::int32_t b) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// Requires a, b and c to share their offset from 16-byte alignment (the launcher checks; it uses
// kPacked = false otherwise, treating every element as a scalar). kStreamingStores: evict-first
// stores (a tuning option).
template <class T, int kThreads, int kPacksInFlight, bool kPacked, bool kStreamingStores = false>
__global__ void __launch_bounds__(kThreads)
    vector_add_kernel(const T* a, const T* b, T* c, std::size_t n) {
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * kThreads;
    if constexpr (kPacked) {
        const std::size_t head = elements_to_alignment(a, n);
        if (thread < head) c[thread] = wrapping_add(a[thread], b[thread]);
        constexpr int kLanes = Pack<T>::kCount;
        const T* pa = a + head;
        const T* pb = b + head;
        T* pc = c + head;
        const std::size_t packs = (n - head) / kLanes;
        // Packs p, p + threads, ... (kPacksInFlight of them, each loaded before any is stored).
        const auto add_round = [&](std::size_t p) {
            Pack<T> va[kPacksInFlight], vb[kPacksInFlight];
#pragma unroll
            for (int j = 0; j < kPacksInFlight; ++j) {
                if (p + j * threads < packs) {
                    va[j] = load_pack(pa, p + j * threads);
                    vb[j] = load_pack(pb, p + j * threads);
                }
            }
#pragma unroll
            for (int j = 0; j < kPacksInFlight; ++j) {
                if (p + j * threads >= packs) continue;
#pragma unroll
                for (int l = 0; l < kLanes; ++l) va[j].v[l] = wrapping_add(va[j].v[l], vb[j].v[l]);
                if constexpr (kStreamingStores) store_pack_streaming(pc, p + j * threads, va[j]);
                else store_pack(pc, p + j * threads, va[j]);
            }
        };
        // The launcher's grid (uncapped) gives every thread one round at most: that round is
        // straight-line code, and only a capped grid loops (a loop around the one round cost up to
        // 0.4 us per launch: BENCHMARKS.md, vector_add's one round).
        const std::size_t round = threads * kPacksInFlight;
        add_round(thread);
        for (std::size_t p = thread + round; p < packs; p += round) add_round(p);
        const std::size_t tail_start = head + packs * kLanes;
        if (thread < n - tail_start) {
            c[tail_start + thread] = wrapping_add(a[tail_start + thread], b[tail_start + thread]);
        }
    } else {
        for (std::size_t i = thread; i < n; i += threads) c[i] = wrapping_add(a[i], b[i]);
    }
}

// Writes `count` copies of `value` (Word: 2-, 4- or 8-byte unsigned) to dst.
template <class Word, int kThreads>
__global__ void __launch_bounds__(kThreads) fill_kernel(Word* dst, Word value, std::size_t count) {
    constexpr int kLanes = Pack<Word>::kCount;
    const std::size_t head = elements_to_alignment(dst, count);
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * kThreads;
    if (thread < head) dst[thread] = value;
    Pack<Word> pack;
#pragma unroll
    for (int l = 0; l < kLanes; ++l) pack.v[l] = value;
    Word* body = dst + head;
    const std::size_t packs = (count - head) / kLanes;
    for (std::size_t p = thread; p < packs; p += threads) store_pack(body, p, pack);
    const std::size_t tail_start = head + packs * kLanes;
    if (thread < count - tail_start) dst[tail_start + thread] = value;
}

} // namespace gpucore::gpu

// SPDX-License-Identifier: Apache-2.0
// vector_add through the bulk copy engine (sm_90+; see gpu_vendor.hpp), the way CUB's
// DeviceTransform runs on Hopper: thread 0 of each block keeps kStages tiles of a and b
// (kTileBytes of each) loading into shared memory ahead of the threads, which add from shared
// memory and store c with 16-byte stores. A few instructions keep many bytes in flight per SM,
// where the plain kernel needs a thread per 16-byte pack (BENCHMARKS.md: vector_add through the
// bulk copy engine). Persistent blocks walk the tiles; any length and any offset from 16-byte
// boundaries shared by a, b and c (a scalar head and tail, as vector_add_kernel).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../gpu_vendor.hpp"
#include "elementwise_kernels.cuh"
#include "packed_access.cuh"

namespace gpucore::gpu {

struct VectorAddBulk {
    // Dynamic shared memory: kStages tiles of a and of b.
    __host__ __device__ static constexpr std::size_t shared_bytes(int tile_bytes, int stages) {
        return static_cast<std::size_t>(2) * stages * tile_bytes;
    }
    // Tiles of whole 16-byte packs after the scalar head.
    __host__ __device__ static constexpr std::size_t tiles(std::size_t packs, int tile_bytes) {
        const std::size_t tile_packs = static_cast<std::size_t>(tile_bytes) / TuningPolicy::kPackBytes;
        return (packs + tile_packs - 1) / tile_packs;
    }
};

// Requires a, b and c to share their offset from 16-byte alignment, on an element boundary (the
// launcher checks).
template <class T, int kThreads, int kTileBytes, int kStages>
__global__ void __launch_bounds__(kThreads)
    vector_add_bulk_kernel(const T* a, const T* b, T* c, std::size_t n) {
    constexpr int kLanes = Pack<T>::kCount;
    constexpr std::size_t kTilePacks = static_cast<std::size_t>(kTileBytes) / TuningPolicy::kPackBytes;
    static_assert(kTileBytes % TuningPolicy::kPackBytes == 0 && kStages >= 1, "tiles of whole packs");
    Pack<T>* const shared = dynamic_shared<Pack<T>>(); // stage s: a's tile, then b's
    __shared__ std::uint64_t loaded[kStages];           // one barrier per stage

    const std::size_t head = elements_to_alignment(a, n);
    const std::size_t packs = (n - head) / kLanes;
    const T* pa = a + head;
    const T* pb = b + head;
    T* pc = c + head;
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
    const std::size_t tail_start = head + packs * kLanes;
    if (thread < head) c[thread] = wrapping_add(a[thread], b[thread]);
    if (thread < n - tail_start) c[tail_start + thread] = wrapping_add(a[tail_start + thread], b[tail_start + thread]);

    const std::size_t tiles = VectorAddBulk::tiles(packs, kTileBytes);
    const std::size_t first = blockIdx.x;
    const std::size_t step = gridDim.x;
    const std::size_t mine = first < tiles ? (tiles - first + step - 1) / step : 0;
    // Tile i of this block: packs from (first + i * step) * kTilePacks, at most kTilePacks of them.
    const auto tile_start = [&](std::size_t i) { return (first + i * step) * kTilePacks; };
    const auto tile_packs = [&](std::size_t i) {
        const std::size_t left = packs - tile_start(i);
        return left < kTilePacks ? left : kTilePacks;
    };
    const auto load = [&](std::size_t i, int stage) {
        const auto bytes = static_cast<std::uint32_t>(tile_packs(i) * TuningPolicy::kPackBytes);
        bulk_barrier_expect(&loaded[stage], 2 * bytes);
        bulk_load_1d(shared + 2 * stage * kTilePacks, pa + tile_start(i) * kLanes, bytes, &loaded[stage]);
        bulk_load_1d(shared + (2 * stage + 1) * kTilePacks, pb + tile_start(i) * kLanes, bytes, &loaded[stage]);
    };

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) bulk_barrier_init(&loaded[s], 1);
        for (std::size_t i = 0; i < mine && i < static_cast<std::size_t>(kStages); ++i) load(i, static_cast<int>(i));
    }
    sync_block();

    for (std::size_t i = 0; i < mine; ++i) {
        const int stage = static_cast<int>(i % kStages);
        const auto parity = static_cast<std::uint32_t>((i / kStages) & 1);
        while (!bulk_barrier_try_wait(&loaded[stage], parity)) {
        }
        const Pack<T>* tile_a = shared + 2 * stage * kTilePacks;
        const Pack<T>* tile_b = tile_a + kTilePacks;
        const std::size_t count = tile_packs(i);
        for (std::size_t p = threadIdx.x; p < count; p += kThreads) {
            Pack<T> sum = tile_a[p];
            const Pack<T> addend = tile_b[p];
#pragma unroll
            for (int l = 0; l < kLanes; ++l) sum.v[l] = wrapping_add(sum.v[l], addend.v[l]);
            store_pack(pc, tile_start(i) + p, sum);
        }
        // Every thread has finished reading this stage: refill it.
        sync_block();
        if (threadIdx.x == 0 && i + kStages < mine) load(i + kStages, stage);
    }
}

} // namespace gpucore::gpu

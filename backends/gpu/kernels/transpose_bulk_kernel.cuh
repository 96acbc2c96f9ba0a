// SPDX-License-Identifier: Apache-2.0
// transpose through the bulk tensor copy engine (TMA, sm_90+; see gpu_vendor.hpp): the engine
// loads a box of kInner input columns (128 bytes) x kBoxRows rows into shared memory, the threads
// transpose it 16 bytes at a time into kBoxRows / kInner output boxes, and the engine stores
// those. Persistent blocks walk the tiles; kStages input boxes are in flight per block, and the
// output boxes are double-buffered, so loads, the shared-memory transpose and stores overlap.
// Boxes use the 128-byte swizzle: byte x of box row r sits at r * 128 + ((x / 16) ^ (r % 8)) * 16
// + x % 16, which keeps both shared-memory passes free of bank conflicts. The engine clips boxes
// at the array's edges, so any shape whose rows are multiples of 16 bytes works.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../gpu_vendor.hpp"
#include "bulk_pipeline.cuh"

namespace gpucore::gpu {

struct BulkTranspose {
    static constexpr int kRowBytes = 128; // a box row: the 128-byte swizzle's span
    static constexpr int kChunk = 16;     // bytes moved by one thread access
    static constexpr int kAlignment = 1024; // the swizzle pattern repeats every 8 rows

    template <class Word>
    __host__ __device__ static constexpr int inner() { return kRowBytes / static_cast<int>(sizeof(Word)); }

    // Dynamic shared memory: kStages input boxes, 2 output buffers, room to align the start.
    __host__ __device__ static constexpr std::size_t shared_bytes(int box_rows, int stages) {
        return static_cast<std::size_t>(stages + 2) * box_rows * kRowBytes + kAlignment;
    }
};

__device__ __forceinline__ int swizzled(int row, int chunk) {
    return row * BulkTranspose::kRowBytes + ((chunk ^ (row & 7)) * BulkTranspose::kChunk);
}

// The shared-memory step for 2-byte words in 4-byte pairs: a thread reads the same 16-byte chunk
// of two adjacent input rows and writes 4-byte (row r, row r + 1) pairs, half the store
// instructions of one 2-byte store per word (BENCHMARKS.md: 2-byte transposes in the bulk-copy
// kernel). A warp takes 64 input rows (one output box) and two chunks: lanes 0-3 of every group of
// 8 read rows 0-6 of one chunk, lanes 4-7 rows 32-38 of the other, so the 16-byte reads land on 8
// distinct swizzled slots, and the two halves of the warp write the two halves of an output row
// (distinct banks). The second pass swaps the chunks between the halves.
template <int kBoxRows, int kThreads>
__device__ __forceinline__ void transpose_box_pairs(const unsigned char* src, unsigned char* dst) {
    using Word = std::uint16_t;
    constexpr int kInner = BulkTranspose::inner<Word>(); // 64: the rows of one output box
    constexpr int kVec = BulkTranspose::kChunk / static_cast<int>(sizeof(Word));
    constexpr int kChunks = BulkTranspose::kRowBytes / BulkTranspose::kChunk;
    constexpr int kRowBlocks = kBoxRows / kInner;
    constexpr int kUnits = kRowBlocks * kChunks; // row block x chunk pair x which half takes the even chunk
    static_assert(kBoxRows % kInner == 0 && kThreads % 32 == 0 && kChunks % 2 == 0, "whole units");
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int group = lane / 4;
    const int half = group % 2;
    const int pair_row = 2 * (lane % 4 + 4 * (group / 2)) + (kInner / 2) * half; // even, 0..62
    for (int v = static_cast<int>(threadIdx.x) / 32; v < kUnits; v += kThreads / 32) {
        const int r = kInner * (v % kRowBlocks) + pair_row;
        const int swap = (v / kRowBlocks) % 2;
        const int q = 2 * (v / (2 * kRowBlocks)) + (half ^ swap);
        const uint4 upper = *reinterpret_cast<const uint4*>(src + swizzled(r, q));
        const uint4 lower = *reinterpret_cast<const uint4*>(src + swizzled(r + 1, q));
        Word first[kVec];
        Word second[kVec];
        std::memcpy(first, &upper, sizeof first);
        std::memcpy(second, &lower, sizeof second);
        unsigned char* box = dst + (r / kInner) * kInner * BulkTranspose::kRowBytes;
        const int byte = (r % kInner) * static_cast<int>(sizeof(Word));
#pragma unroll
        for (int k = 0; k < kVec; ++k) {
            *reinterpret_cast<std::uint32_t*>(box + swizzled(q * kVec + k, byte / BulkTranspose::kChunk) +
                                              byte % BulkTranspose::kChunk) =
                std::uint32_t{first[k]} | std::uint32_t{second[k]} << 16;
        }
    }
}

template <class Word, int kBoxRows, int kStages, int kThreads>
__global__ void __launch_bounds__(kThreads)
    transpose_bulk_kernel(const GPUCORE_GRID_CONSTANT BulkTensorMap in_map,
                          const GPUCORE_GRID_CONSTANT BulkTensorMap out_map, std::size_t rows,
                          std::size_t cols) {
    constexpr int kInner = BulkTranspose::inner<Word>();        // input columns per box
    constexpr int kVec = BulkTranspose::kChunk / sizeof(Word);  // words per 16-byte chunk
    constexpr int kChunks = BulkTranspose::kRowBytes / BulkTranspose::kChunk;
    constexpr int kBoxBytes = kBoxRows * BulkTranspose::kRowBytes;
    static_assert(kBoxRows % kInner == 0 && kBoxRows % 32 == 0, "whole output boxes, whole warps");
    unsigned char* const shared_raw = dynamic_shared<unsigned char>();
    __shared__ std::uint64_t loaded[kStages]; // one barrier per input stage
    auto* base = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(shared_raw) + BulkTranspose::kAlignment - 1) &
        ~static_cast<std::uintptr_t>(BulkTranspose::kAlignment - 1));
    unsigned char* in_boxes = base;                            // kStages x kBoxBytes
    unsigned char* out_boxes = base + kStages * kBoxBytes;     // 2 x kBoxBytes

    const std::size_t tiles_x = (cols + kInner - 1) / kInner;
    const std::size_t tiles = tiles_x * ((rows + kBoxRows - 1) / kBoxRows);
    const std::size_t first = blockIdx.x;
    const std::size_t step = gridDim.x;
    const std::size_t mine = first < tiles ? (tiles - first + step - 1) / step : 0;
    // Tile i of this block: input rows from (t / tiles_x) * kBoxRows, columns from (t % tiles_x)
    // * kInner (both below 2^31: the launcher checks the extents). Rows of tiles at any size: down
    // the columns (tiles_per_line in transpose_kernel.cuh) was slower here (f16 16384^2 0.85 of a
    // copy against 0.89, 4096^2 0.95 against 0.96; BENCHMARKS.md: tiles down the columns).
    const auto tile_row = [&](std::size_t i) {
        return static_cast<int>(((first + i * step) / tiles_x) * kBoxRows);
    };
    const auto tile_col = [&](std::size_t i) {
        return static_cast<int>(((first + i * step) % tiles_x) * kInner);
    };
    const auto load = [&](std::size_t i, int stage) {
        bulk_load_2d(in_boxes + stage * kBoxBytes, &in_map, tile_col(i), tile_row(i), &loaded[stage], kBoxBytes);
    };
    const auto reorder = [&](std::size_t, int stage, int out_index) {
        const unsigned char* src = in_boxes + stage * kBoxBytes;
        unsigned char* dst = out_boxes + out_index * kBoxBytes;
        if constexpr (sizeof(Word) == 2) {
            transpose_box_pairs<kBoxRows, kThreads>(src, dst);
        } else {
            // Unit u: input row r (consecutive across a warp), 16-byte chunk q of it, i.e. input
            // columns q*kVec .. q*kVec+kVec-1; they become row q*kVec+k, column r % kInner of
            // output box r / kInner.
            for (int u = static_cast<int>(threadIdx.x); u < kBoxRows * kChunks; u += kThreads) {
                const int r = u % kBoxRows;
                const int q = u / kBoxRows;
                const uint4 chunk = *reinterpret_cast<const uint4*>(src + swizzled(r, q));
                Word words[kVec];
                std::memcpy(words, &chunk, sizeof words);
                unsigned char* box = dst + (r / kInner) * kInner * BulkTranspose::kRowBytes;
                const int byte = (r % kInner) * static_cast<int>(sizeof(Word));
#pragma unroll
                for (int k = 0; k < kVec; ++k) {
                    *reinterpret_cast<Word*>(box + swizzled(q * kVec + k, byte / BulkTranspose::kChunk) +
                                             byte % BulkTranspose::kChunk) = words[k];
                }
            }
        }
    };
    const auto store = [&](std::size_t i, int out_index) {
        // Output box j: output rows tile_col .. + kInner, columns tile_row + j * kInner ...
        for (int j = 0; j < kBoxRows / kInner; ++j) {
            bulk_store_2d(&out_map, tile_row(i) + j * kInner, tile_col(i),
                          out_boxes + out_index * kBoxBytes + j * kInner * BulkTranspose::kRowBytes);
        }
    };
    run_bulk_pipeline<kStages>(loaded, mine, load, reorder, store);
}

} // namespace gpucore::gpu

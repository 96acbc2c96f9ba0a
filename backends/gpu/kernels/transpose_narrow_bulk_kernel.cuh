// SPDX-License-Identifier: Apache-2.0
// Narrow transposes of 2-byte words (a side of 2..NarrowBulk::kMaxNarrow) through the bulk copy
// engine (TMA, sm_90+; see gpu_vendor.hpp). The thread-staged narrow kernel (transpose_kernel.cuh)
// holds a chunk's loads in registers and issues an instruction or more per word: for 2-byte words
// instruction issue, not memory, bounds it (BENCHMARKS.md: narrow transposes through the bulk copy
// engine). Here the engine loads kStages chunks ahead into shared memory without registers, each
// thread reorders 8 positions within shared memory in 16-byte reads and writes, and the engine
// stores the chunk.
//
// A chunk is NarrowBulk::positions() consecutive positions of the long side. Its narrow-side
// elements form one contiguous run of one array (the output for few rows, the input for few
// columns) and `narrow` pieces, one per narrow index, of the other, back to back in shared memory.
// A warp's 16-byte accesses to the pieces are contiguous, so they meet no bank conflicts; those to
// the run are 16 * narrow bytes apart: two-way conflicts for 2, 6, 10 and 14, four-way for 4 and
// 12, and for multiples of 8 a swizzled run (NarrowBulk::swizzled_run). Every copy starts and ends
// on 16 bytes: the launcher checks that the long side is a multiple of 8 words and both arrays
// start on 16 bytes, so every chunk's span is a multiple of 8 positions too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../gpu_vendor.hpp"
#include "bulk_pipeline.cuh"
#include "transpose_bulk_kernel.cuh"

namespace gpucore::gpu {

struct NarrowBulk {
    static constexpr int kMaxNarrow = 16;
    static constexpr int kRunBytes = 8192;    // the most bytes of a chunk: its run, or its pieces
    static constexpr int kPositionStep = 128; // bytes: pieces start on whole 128-byte lines
    // Narrow sides that are multiples of 8 put a quarter-warp's 16-byte run accesses on one bank
    // group (16 * narrow bytes apart). There the run moves through a tensor map of 128-byte rows
    // with the 128-byte swizzle (BulkTranspose's layout): a chunk's run is one box of kRunRows
    // rows, whose 16-byte accesses the swizzle spreads over the banks.
    __host__ __device__ static constexpr bool swizzled_run(int narrow) { return narrow % 8 == 0; }
    static constexpr int kRunRows = kRunBytes / BulkTranspose::kRowBytes;

    // Positions per chunk for `narrow` words of `word_bytes`: the most that fit kRunBytes.
    __host__ __device__ static constexpr unsigned int positions(unsigned int narrow, unsigned int word_bytes) {
        const unsigned int step = kPositionStep / word_bytes;
        return kRunBytes / word_bytes / (narrow * step) * step;
    }
    // Dynamic shared memory: kStages input buffers, 2 output buffers, room to align the start for
    // the swizzle.
    __host__ __device__ static constexpr std::size_t shared_bytes(int stages) {
        return static_cast<std::size_t>(stages + 2) * kRunBytes + BulkTranspose::kAlignment;
    }
};

// One thread's reorder of 8 consecutive positions (16 bytes of each piece, 16 * kNarrow bytes of
// the run): kNarrow 16-byte reads and kNarrow 16-byte writes. kFewRows: piece row r, words k =
// 0..7 become run words k * kNarrow + r; otherwise the reverse.
template <int kNarrow, bool kFewRows>
__device__ __forceinline__ void reorder_eight_positions(const unsigned char* src, unsigned char* dst,
                                                        unsigned int piece_pitch, unsigned int group) {
    using Word = std::uint16_t;
    constexpr int kGroup = 8; // positions, 16 bytes of a piece
    Word from[kGroup * kNarrow];
    Word to[kGroup * kNarrow];
    constexpr unsigned int kChunk = BulkTranspose::kChunk; // 16 bytes
    const unsigned int piece_byte = group * kChunk;
    // The run's 16-byte chunk v of this group.
    const auto run_byte = [&](int v) {
        const unsigned int chunk = group * kNarrow + v;
        if constexpr (NarrowBulk::swizzled_run(kNarrow)) {
            constexpr unsigned int kPerRow = BulkTranspose::kRowBytes / kChunk;
            return static_cast<unsigned int>(swizzled(chunk / kPerRow, chunk % kPerRow));
        } else {
            return chunk * kChunk;
        }
    };
#pragma unroll
    for (int v = 0; v < kNarrow; ++v) {
        const unsigned int byte = kFewRows ? v * piece_pitch + piece_byte : run_byte(v);
        const uint4 chunk = *reinterpret_cast<const uint4*>(src + byte);
        std::memcpy(from + kGroup * v, &chunk, sizeof chunk);
    }
#pragma unroll
    for (int r = 0; r < kNarrow; ++r) {
#pragma unroll
        for (int k = 0; k < kGroup; ++k) {
            if constexpr (kFewRows) to[k * kNarrow + r] = from[r * kGroup + k];
            else to[r * kGroup + k] = from[k * kNarrow + r];
        }
    }
#pragma unroll
    for (int v = 0; v < kNarrow; ++v) {
        const unsigned int byte = kFewRows ? run_byte(v) : v * piece_pitch + piece_byte;
        uint4 chunk;
        std::memcpy(&chunk, to + kGroup * v, sizeof chunk);
        *reinterpret_cast<uint4*>(dst + byte) = chunk;
    }
}

// kFewRows: kNarrow input rows of `length` 2-byte words; chunk c moves columns [c * positions, ...)
// of every row to the output run out[c * positions * kNarrow ...]. Otherwise `length` input rows
// of kNarrow words; chunk c moves the input run in[c * positions * kNarrow ...] to columns
// [c * positions, ...) of every output row. `run_map` (swizzled runs only): the run's array as rows
// of 128 bytes, boxes of kRunRows rows.
template <int kNarrow, int kThreads, int kStages, bool kFewRows>
__global__ void __launch_bounds__(kThreads)
    transpose_narrow_bulk_kernel(const std::uint16_t* in, std::uint16_t* out, std::size_t length,
                                 const GPUCORE_GRID_CONSTANT BulkTensorMap run_map) {
    static_assert(kNarrow >= 2 && kNarrow <= NarrowBulk::kMaxNarrow, "a narrow side");
    using Word = std::uint16_t;
    constexpr unsigned int kWord = sizeof(Word);
    constexpr unsigned int kPositions = NarrowBulk::positions(kNarrow, kWord);
    constexpr unsigned int kPiecePitch = kPositions * kWord; // bytes
    constexpr bool kSwizzled = NarrowBulk::swizzled_run(kNarrow);
    static_assert(!kSwizzled || kNarrow * kPositions * kWord == NarrowBulk::kRunBytes, "a run is one box");
    __shared__ std::uint64_t loaded[kStages]; // one barrier per input stage
    unsigned char* const shared = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(dynamic_shared<unsigned char>()) + BulkTranspose::kAlignment - 1) &
        ~static_cast<std::uintptr_t>(BulkTranspose::kAlignment - 1));
    unsigned char* const in_buffers = shared;                                     // kStages buffers
    unsigned char* const out_buffers = shared + kStages * NarrowBulk::kRunBytes; // 2 buffers
    // The row of the run's tensor map where position p0's run starts (below 2^31: the launcher
    // checks).
    const auto run_row = [](std::size_t p0) {
        return static_cast<int>(p0 * kNarrow * kWord / BulkTranspose::kRowBytes);
    };

    const std::size_t chunks = (length + kPositions - 1) / kPositions;
    const std::size_t first = blockIdx.x;
    const std::size_t step = gridDim.x;
    const std::size_t mine = first < chunks ? (chunks - first + step - 1) / step : 0;
    const auto chunk_start = [&](std::size_t i) { return (first + i * step) * kPositions; };
    const auto chunk_span = [&](std::size_t i) {
        const std::size_t left = length - chunk_start(i);
        return static_cast<unsigned int>(left < kPositions ? left : kPositions);
    };

    const auto load = [&](std::size_t i, int stage) {
        unsigned char* buffer = in_buffers + stage * NarrowBulk::kRunBytes;
        const std::size_t p0 = chunk_start(i);
        if constexpr (!kFewRows && kSwizzled) {
            // A box clipped at the array's end still counts its whole bytes.
            bulk_load_2d(buffer, &run_map, 0, run_row(p0), &loaded[stage], NarrowBulk::kRunBytes);
        } else {
            const unsigned int span = chunk_span(i);
            bulk_barrier_expect(&loaded[stage], kNarrow * span * kWord);
            if constexpr (kFewRows) {
                for (unsigned int r = 0; r < kNarrow; ++r) {
                    bulk_load_1d(buffer + r * kPiecePitch, in + r * length + p0, span * kWord, &loaded[stage]);
                }
            } else {
                bulk_load_1d(buffer, in + p0 * kNarrow, kNarrow * span * kWord, &loaded[stage]);
            }
        }
    };
    const auto reorder = [&](std::size_t i, int stage, int out_index) {
        const unsigned char* src = in_buffers + stage * NarrowBulk::kRunBytes;
        unsigned char* dst = out_buffers + out_index * NarrowBulk::kRunBytes;
        const unsigned int groups = chunk_span(i) / 8; // spans are multiples of 8 positions
        for (unsigned int g = threadIdx.x; g < groups; g += kThreads) {
            reorder_eight_positions<kNarrow, kFewRows>(src, dst, kPiecePitch, g);
        }
    };
    const auto store = [&](std::size_t i, int out_index) {
        const unsigned char* buffer = out_buffers + out_index * NarrowBulk::kRunBytes;
        const std::size_t p0 = chunk_start(i);
        if constexpr (kFewRows && kSwizzled) {
            bulk_store_2d(&run_map, 0, run_row(p0), buffer); // clipped at the array's end
        } else if constexpr (kFewRows) {
            bulk_store_1d(out + p0 * kNarrow, buffer, kNarrow * chunk_span(i) * kWord);
        } else {
            for (unsigned int r = 0; r < kNarrow; ++r) {
                bulk_store_1d(out + r * length + p0, buffer + r * kPiecePitch, chunk_span(i) * kWord);
            }
        }
    };
    run_bulk_pipeline<kStages>(loaded, mine, load, reorder, store);
}

} // namespace gpucore::gpu

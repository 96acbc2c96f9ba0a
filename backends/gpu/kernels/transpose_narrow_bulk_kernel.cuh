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
// on 16 bytes: the launcher checks that both arrays start on 16 bytes, and that the long side is a
// multiple of 8 words (every chunk's span is then a multiple of 8 positions too) or, for few rows,
// that the narrow side is 8 or 16 (kShifted).
//
// kShifted (few rows): a long side off 16 bytes puts the input rows off 16 bytes, each by its own
// shift. The engine loads a piece from the 16-byte boundary at or before its start, and the threads
// realign it as they read it from shared memory (read_realigned). The run still starts and ends on
// 16 bytes (its narrow side is 8 or 16): its tensor map covers its whole 128-byte rows, and the
// threads store the rest, 16 bytes at a time.
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
    // Bytes a piece's buffer takes past its positions when the pieces are shifted: its up to 7
    // words before the first move the rest by up to one 16-byte chunk.
    static constexpr int kShiftedPieceSlack = 16;
    // A buffer: a chunk's run or pieces, on the swizzle's alignment.
    __host__ __device__ static constexpr std::size_t buffer_bytes(bool shifted) {
        const std::size_t bytes = kRunBytes + (shifted ? kMaxNarrow * kShiftedPieceSlack : 0);
        return (bytes + BulkTranspose::kAlignment - 1) / BulkTranspose::kAlignment * BulkTranspose::kAlignment;
    }
    // Dynamic shared memory: kStages input buffers, 2 output buffers, room to align the start for
    // the swizzle.
    __host__ __device__ static constexpr std::size_t shared_bytes(int stages, bool shifted) {
        return static_cast<std::size_t>(stages + 2) * buffer_bytes(shifted) + BulkTranspose::kAlignment;
    }
};

// The 8 words from word `word` of `base` (on 16 bytes) on, realigned from the two 16-byte chunks
// that hold them: a funnel shift by the odd word, then a choice by the 4-byte pairs, with no
// indexing of registers by a variable.
__device__ __forceinline__ uint4 read_realigned(const unsigned char* base, unsigned int word) {
    const auto* chunks = reinterpret_cast<const uint4*>(base) + word / 8;
    const uint4 lo = chunks[0];
    const uint4 hi = chunks[1];
    const std::uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    const unsigned int half_bits = (word & 1u) * 16;
    std::uint32_t x[7]; // x[i]: the 4 bytes from half-word 2 * i + word % 2 on
#pragma unroll
    for (int i = 0; i < 7; ++i) {
        x[i] = static_cast<std::uint32_t>(((std::uint64_t{w[i + 1]} << 32) | w[i]) >> half_bits);
    }
    const unsigned int pairs = (word >> 1) & 3u; // the result is x[pairs], ..., x[pairs + 3]
    std::uint32_t y[6];
#pragma unroll
    for (int i = 0; i < 6; ++i) y[i] = (pairs & 1u) ? x[i + 1] : x[i];
    const bool two = (pairs & 2u) != 0;
    return uint4{two ? y[2] : y[0], two ? y[3] : y[1], two ? y[4] : y[2], two ? y[5] : y[3]};
}

// One thread's reorder of 8 consecutive positions (16 bytes of each piece, 16 * kNarrow bytes of
// the run): read(v) gives the source's 16-byte chunk v (piece v for few rows, else the run's chunk
// v of the group), write(v, chunk) takes the destination's. kFewRows: piece row r, words k =
// 0..7 become run words k * kNarrow + r; otherwise the reverse.
template <int kNarrow, bool kFewRows, class Read, class Write>
__device__ __forceinline__ void reorder_eight_positions(Read&& read, Write&& write) {
    using Word = std::uint16_t;
    constexpr int kGroup = 8; // positions, 16 bytes of a piece
    Word from[kGroup * kNarrow];
    Word to[kGroup * kNarrow];
#pragma unroll
    for (int v = 0; v < kNarrow; ++v) {
        const uint4 chunk = read(v);
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
        uint4 chunk;
        std::memcpy(&chunk, to + kGroup * v, sizeof chunk);
        write(v, chunk);
    }
}

// kFewRows: kNarrow input rows of `length` 2-byte words; chunk c moves columns [c * positions, ...)
// of every row to the output run out[c * positions * kNarrow ...]. Otherwise `length` input rows
// of kNarrow words; chunk c moves the input run in[c * positions * kNarrow ...] to columns
// [c * positions, ...) of every output row. `run_map` (swizzled runs only): the run's array as rows
// of 128 bytes (its whole rows when kShifted), boxes of kRunRows rows.
template <int kNarrow, int kThreads, int kStages, bool kFewRows, bool kShifted>
__global__ void __launch_bounds__(kThreads)
    transpose_narrow_bulk_kernel(const std::uint16_t* in, std::uint16_t* out, std::size_t length,
                                 const GPUCORE_GRID_CONSTANT BulkTensorMap run_map) {
    static_assert(kNarrow >= 2 && kNarrow <= NarrowBulk::kMaxNarrow, "a narrow side");
    using Word = std::uint16_t;
    constexpr unsigned int kWord = sizeof(Word);
    constexpr unsigned int kChunk = BulkTranspose::kChunk;
    constexpr unsigned int kPositions = NarrowBulk::positions(kNarrow, kWord);
    constexpr unsigned int kBuffer = NarrowBulk::buffer_bytes(kShifted);
    constexpr unsigned int kPiecePitch = kPositions * kWord + (kShifted ? NarrowBulk::kShiftedPieceSlack : 0);
    constexpr bool kSwizzled = NarrowBulk::swizzled_run(kNarrow);
    static_assert(!kSwizzled || kNarrow * kPositions * kWord == NarrowBulk::kRunBytes, "a run is one box");
    static_assert(!kShifted || (kFewRows && kSwizzled), "shifted pieces: few rows, runs of whole 16-byte chunks");
    static_assert(kNarrow * kPiecePitch <= kBuffer, "the pieces fit a buffer");
    __shared__ std::uint64_t loaded[kStages]; // one barrier per input stage
    unsigned char* const shared = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<std::uintptr_t>(dynamic_shared<unsigned char>()) + BulkTranspose::kAlignment - 1) &
        ~static_cast<std::uintptr_t>(BulkTranspose::kAlignment - 1));
    unsigned char* const in_buffers = shared;                     // kStages buffers
    unsigned char* const out_buffers = shared + kStages * kBuffer; // 2 buffers
    // The row of the run's tensor map where position p0's run starts (below 2^31: the launcher
    // checks).
    const auto run_row = [](std::size_t p0) {
        return static_cast<int>(p0 * kNarrow * kWord / BulkTranspose::kRowBytes);
    };
    // The run's bytes, and those of its whole 128-byte rows (the tensor map's).
    const std::size_t run_bytes = length * kNarrow * kWord;
    const std::size_t mapped_rows = run_bytes / BulkTranspose::kRowBytes;
    const std::size_t mapped_bytes = mapped_rows * BulkTranspose::kRowBytes;
    // Words by which piece r starts past a 16-byte boundary (kShifted): chunks start on multiples
    // of 8 positions, so only the row matters.
    const auto shift = [length](unsigned int r) { return static_cast<unsigned int>(r * length) & 7u; };

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
        unsigned char* buffer = in_buffers + stage * kBuffer;
        const std::size_t p0 = chunk_start(i);
        const unsigned int span = chunk_span(i);
        if constexpr (!kFewRows && kSwizzled) {
            // A box clipped at the array's end still counts its whole bytes.
            bulk_load_2d(buffer, &run_map, 0, run_row(p0), &loaded[stage], NarrowBulk::kRunBytes);
        } else if constexpr (kFewRows && kShifted) {
            // Each piece from the 16-byte boundary at or before its start to the one at or after
            // its end: inside the input, which ends on 16 bytes.
            const auto words = [&](unsigned int r) { return (shift(r) + span + 7) & ~7u; };
            std::uint32_t bytes = 0;
            for (unsigned int r = 0; r < kNarrow; ++r) bytes += words(r) * kWord;
            bulk_barrier_expect(&loaded[stage], bytes);
            for (unsigned int r = 0; r < kNarrow; ++r) {
                bulk_load_1d(buffer + r * kPiecePitch, in + (r * length + p0 - shift(r)), words(r) * kWord,
                             &loaded[stage]);
            }
        } else {
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
        const unsigned char* src = in_buffers + stage * kBuffer;
        unsigned char* dst = out_buffers + out_index * kBuffer;
        const std::size_t p0 = chunk_start(i);
        const unsigned int span = chunk_span(i);
        const unsigned int groups = (span + 7) / 8; // a partial group only when kShifted
        for (unsigned int g = threadIdx.x; g < groups; g += kThreads) {
            // The run's 16-byte chunk v of this group: its byte in a buffer, and in the run's array.
            const auto run_byte = [&](int v) {
                const unsigned int chunk = g * kNarrow + v;
                if constexpr (kSwizzled) {
                    constexpr unsigned int kPerRow = BulkTranspose::kRowBytes / kChunk;
                    return static_cast<unsigned int>(swizzled(chunk / kPerRow, chunk % kPerRow));
                } else {
                    return chunk * kChunk;
                }
            };
            const auto run_global = [&](int v) { return p0 * kNarrow * kWord + (g * kNarrow + v) * kChunk; };
            const auto piece_byte = [&](int v) { return v * kPiecePitch + g * kChunk; };
            // Whether a chunk of this group's run lies past the map's whole rows (kShifted): there the
            // threads move it themselves. Decided once per group, so that a group inside the map
            // has no branch between its shared-memory accesses.
            const bool past_map = kShifted && run_global(kNarrow - 1) >= mapped_bytes;
            if constexpr (kFewRows) {
                const auto read = [&](int v) {
                    if constexpr (kShifted) return read_realigned(src + v * kPiecePitch, shift(v) + 8 * g);
                    else return *reinterpret_cast<const uint4*>(src + piece_byte(v));
                };
                const auto write = [&](int v, const uint4& chunk) {
                    *reinterpret_cast<uint4*>(dst + run_byte(v)) = chunk;
                };
                // Past the run, nothing.
                const auto write_past_map = [&](int v, const uint4& chunk) {
                    if (run_global(v) >= run_bytes) return;
                    if (run_global(v) < mapped_bytes) {
                        write(v, chunk);
                    } else {
                        *reinterpret_cast<uint4*>(reinterpret_cast<unsigned char*>(out) + run_global(v)) = chunk;
                    }
                };
                if (past_map) reorder_eight_positions<kNarrow, true>(read, write_past_map);
                else reorder_eight_positions<kNarrow, true>(read, write);
            } else {
                const auto read = [&](int v) { return *reinterpret_cast<const uint4*>(src + run_byte(v)); };
                const auto write = [&](int v, const uint4& chunk) {
                    *reinterpret_cast<uint4*>(dst + piece_byte(v)) = chunk;
                };
                reorder_eight_positions<kNarrow, false>(read, write);
            }
        }
    };
    const auto store = [&](std::size_t i, int out_index) {
        const unsigned char* buffer = out_buffers + out_index * kBuffer;
        const std::size_t p0 = chunk_start(i);
        if constexpr (kFewRows && kSwizzled) {
            // Clipped at the map's end; a box wholly past it (kShifted) is not stored.
            if (static_cast<std::size_t>(run_row(p0)) < mapped_rows) bulk_store_2d(&run_map, 0, run_row(p0), buffer);
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

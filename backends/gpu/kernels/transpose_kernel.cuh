// SPDX-License-Identifier: Apache-2.0
// transpose: out (cols x rows) = in (rows x cols)^T, row-major, any shape. A block moves one
// kTile x kTile tile at a time through shared memory: rows of the tile are read coalesced from
// `in` and written coalesced to `out`. The +1 column of padding puts the column walk of the second
// phase on distinct banks (4-byte elements: 33-word stride; 8-byte: 66 words, conflict-free per
// half-warp; 2-byte: 32.5 words, two lanes per bank in distinct words, at most 2-way). Blocks
// stride over tiles, so any number of tiles fits one launch. Elements are moved as raw bits (Word
// is a 2-, 4- or 8-byte unsigned type). Index is the type of every position and offset:
// std::uint32_t when the array has fewer than 2^32 elements (the launcher checks), which costs
// each thread far fewer instructions than 64-bit arithmetic; std::size_t otherwise.
#pragma once

#include <cstddef>

#include "packed_access.cuh"

namespace gpucore::gpu {

template <class Word, class Index, int kTile, int kBlockRows>
__global__ void __launch_bounds__(kTile* kBlockRows)
    transpose_kernel(const Word* in, Word* out, Index rows, Index cols) {
    static_assert(kTile % kBlockRows == 0, "tile rows split evenly");
    __shared__ Word tile[kTile][kTile + 1];
    const Index tiles_x = (cols + kTile - 1) / kTile;
    const Index tiles = tiles_x * ((rows + kTile - 1) / kTile);
    const int tx = static_cast<int>(threadIdx.x);
    const int ty = static_cast<int>(threadIdx.y);

    for (Index t = blockIdx.x; t < tiles; t += gridDim.x) {
        const Index tile_row = (t / tiles_x) * kTile; // first input row of the tile
        const Index tile_col = (t % tiles_x) * kTile; // first input column
        const Index in_col = tile_col + tx;
#pragma unroll
        for (int k = 0; k < kTile / kBlockRows; ++k) { // a constant trip count: clang unrolls it
            const int j = ty + k * kBlockRows;
            const Index in_row = tile_row + j;
            if (in_row < rows && in_col < cols) tile[j][tx] = in[in_row * cols + in_col];
        }
        sync_block();
        const Index out_col = tile_row + tx; // output column = input row
#pragma unroll
        for (int k = 0; k < kTile / kBlockRows; ++k) {
            const int j = ty + k * kBlockRows;
            const Index out_row = tile_col + j; // output row = input column
            if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = tile[tx][j];
        }
        sync_block(); // the tile is refilled by the next iteration
    }
}

// Shapes whose rows and columns are both multiples of kVec = 16 / sizeof(Word), with 16-byte
// aligned buffers: every global load and store is 16 bytes (a quarter of the instructions of the
// scalar kernel, and more bytes in flight per thread). Tiles are kTile = kThreadsX * kVec
// elements wide; thread (x, y) moves kVec consecutive elements of rows y, y + kThreadsY, ...
// Shared-memory accesses stay scalar, on the padded tile (at most 2-way bank conflicts).
template <class Word, int kThreadsX, int kThreadsY>
__global__ void __launch_bounds__(kThreadsX* kThreadsY)
    transpose_vector_kernel(const Word* in, Word* out, std::size_t rows, std::size_t cols) {
    constexpr int kVec = Pack<Word>::kCount;
    constexpr int kTile = kThreadsX * kVec;
    static_assert(kTile % kThreadsY == 0, "tile rows split evenly");
    __shared__ Word tile[kTile][kTile + 1];
    const std::size_t tiles_x = (cols + kTile - 1) / kTile;
    const std::size_t tiles = tiles_x * ((rows + kTile - 1) / kTile);
    const int tx = static_cast<int>(threadIdx.x);
    const int ty = static_cast<int>(threadIdx.y);

    for (std::size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const std::size_t tile_row = (t / tiles_x) * kTile;
        const std::size_t tile_col = (t % tiles_x) * kTile;
        const std::size_t in_col = tile_col + static_cast<std::size_t>(tx) * kVec;
#pragma unroll
        for (int r = 0; r < kTile / kThreadsY; ++r) { // a constant trip count: clang unrolls it
            const int j = ty + r * kThreadsY;
            const std::size_t in_row = tile_row + j;
            if (in_row < rows && in_col < cols) { // cols % kVec == 0: the whole vector is inside
                const Pack<Word> v = load_pack_readonly(in + in_row * cols + in_col, 0);
#pragma unroll
                for (int k = 0; k < kVec; ++k) tile[j][tx * kVec + k] = v.v[k];
            }
        }
        sync_block();
        const std::size_t out_col = tile_row + static_cast<std::size_t>(tx) * kVec;
#pragma unroll
        for (int r = 0; r < kTile / kThreadsY; ++r) {
            const int j = ty + r * kThreadsY;
            const std::size_t out_row = tile_col + j;
            if (out_row < cols && out_col < rows) {
                Pack<Word> v;
#pragma unroll
                for (int k = 0; k < kVec; ++k) v.v[k] = tile[tx * kVec + k][j];
                store_pack(out + out_row * rows + out_col, 0, v);
            }
        }
        sync_block();
    }
}

// Narrow shapes, a side of at most kNarrow (2..kNarrow rows, or columns): a square tile would be
// mostly empty, and the narrow side's rows too short for coalesced access. The narrow side's
// elements of kChunk consecutive positions of the long side form one contiguous run of the input
// (few columns) or of the output (few rows), and kChunk-long pieces of `narrow` rows of the other
// array. A block stages them in shared memory, stage[n][p] = the element at narrow index n and
// long-side position p, and reads and writes both arrays coalesced, one word per thread and access.
template <class Word, int kChunk, int kNarrow>
struct NarrowStage {
    Word words[kNarrow][kChunk + 1];

    // Pieces: positions [0, span) of rows 0..narrow-1 of `base` (rows `stride` apart).
    __device__ __forceinline__ void load_pieces(const Word* base, std::size_t stride, std::size_t narrow,
                                                std::size_t span, std::size_t t) {
#pragma unroll
        for (int n = 0; n < kNarrow; ++n) { // a constant trip count: every load in flight at once
            if (static_cast<std::size_t>(n) < narrow && t < span) words[n][t] = base[n * stride + t];
        }
    }
    __device__ __forceinline__ void store_pieces(Word* base, std::size_t stride, std::size_t narrow,
                                                 std::size_t span, std::size_t t) const {
#pragma unroll
        for (int n = 0; n < kNarrow; ++n) {
            if (static_cast<std::size_t>(n) < narrow && t < span) base[n * stride + t] = words[n][t];
        }
    }
    // The run: span positions of `narrow` consecutive words each, from `base` on.
    __device__ __forceinline__ void load_run(const Word* base, std::size_t narrow, std::size_t span,
                                             std::size_t t) {
        for (std::size_t q = t; q < span * narrow; q += kChunk) words[q % narrow][q / narrow] = base[q];
    }
    __device__ __forceinline__ void store_run(Word* base, std::size_t narrow, std::size_t span,
                                              std::size_t t) const {
        for (std::size_t q = t; q < span * narrow; q += kChunk) base[q] = words[q % narrow][q / narrow];
    }
};

// kFewRows (rows <= kNarrow): a block moves columns [p0, p0 + kChunk) of every row, whose output
// rows are the run out[p0 * rows ...]. Otherwise (cols <= kNarrow) it moves the input rows
// [p0, p0 + kChunk), the run in[p0 * cols ...], to columns [p0, p0 + kChunk) of every output row.
template <class Word, int kChunk, int kNarrow, bool kFewRows>
__global__ void __launch_bounds__(kChunk)
    transpose_narrow_kernel(const Word* in, Word* out, std::size_t rows, std::size_t cols) {
    __shared__ NarrowStage<Word, kChunk, kNarrow> stage;
    const std::size_t narrow = kFewRows ? rows : cols;
    const std::size_t length = kFewRows ? cols : rows;
    const std::size_t chunks = (length + kChunk - 1) / kChunk;
    const auto t = static_cast<std::size_t>(threadIdx.x);
    for (std::size_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        const std::size_t p0 = chunk * kChunk;
        const std::size_t span = length - p0 < kChunk ? length - p0 : kChunk;
        if (kFewRows) stage.load_pieces(in + p0, cols, narrow, span, t);
        else stage.load_run(in + p0 * cols, narrow, span, t);
        sync_block();
        if (kFewRows) stage.store_run(out + p0 * rows, narrow, span, t);
        else stage.store_pieces(out + p0, rows, narrow, span, t);
        sync_block(); // the stage is refilled by the next chunk
    }
}

} // namespace gpucore::gpu

// SPDX-License-Identifier: Apache-2.0
// transpose: out (cols x rows) = in (rows x cols)^T, row-major, any shape. A block moves one
// kTile x kTile tile at a time through shared memory: rows of the tile are read coalesced from
// `in` and written coalesced to `out`. The +1 column of padding puts the column walk of the second
// phase on distinct banks (4-byte elements: 33-word stride; 8-byte: 66 words, conflict-free per
// half-warp; 2-byte: 32.5 words, two lanes per bank in distinct words, at most 2-way). Blocks
// stride over tiles, so any number of tiles fits one launch. Elements are moved as raw bits (Word
// is a 2-, 4- or 8-byte unsigned type).
#pragma once

#include <cstddef>

#include "packed_access.cuh"

namespace gpucore::gpu {

template <class Word, int kTile, int kBlockRows>
__global__ void __launch_bounds__(kTile* kBlockRows)
    transpose_kernel(const Word* in, Word* out, std::size_t rows, std::size_t cols) {
    static_assert(kTile % kBlockRows == 0, "tile rows split evenly");
    __shared__ Word tile[kTile][kTile + 1];
    const std::size_t tiles_x = (cols + kTile - 1) / kTile;
    const std::size_t tiles = tiles_x * ((rows + kTile - 1) / kTile);
    const int tx = static_cast<int>(threadIdx.x);
    const int ty = static_cast<int>(threadIdx.y);

    for (std::size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const std::size_t tile_row = (t / tiles_x) * kTile; // first input row of the tile
        const std::size_t tile_col = (t % tiles_x) * kTile; // first input column
        const std::size_t in_col = tile_col + tx;
#pragma unroll
        for (int k = 0; k < kTile / kBlockRows; ++k) { // a constant trip count: clang unrolls it
            const int j = ty + k * kBlockRows;
            const std::size_t in_row = tile_row + j;
            if (in_row < rows && in_col < cols) tile[j][tx] = in[in_row * cols + in_col];
        }
        sync_block();
        const std::size_t out_col = tile_row + tx; // output column = input row
#pragma unroll
        for (int k = 0; k < kTile / kBlockRows; ++k) {
            const int j = ty + k * kBlockRows;
            const std::size_t out_row = tile_col + j; // output row = input column
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
// or of the output (kChunk x narrow words); a block stages them in shared memory and reads and
// writes both arrays coalesced, one word per thread and access.

// rows <= kNarrow: a block moves columns [c0, c0 + kChunk) of every row; their output rows are
// out[c0 * rows ...] onwards, contiguous.
template <class Word, int kChunk, int kNarrow>
__global__ void __launch_bounds__(kChunk)
    transpose_few_rows_kernel(const Word* in, Word* out, std::size_t rows, std::size_t cols) {
    __shared__ Word stage[kNarrow][kChunk + 1];
    const std::size_t chunks = (cols + kChunk - 1) / kChunk;
    const auto t = static_cast<std::size_t>(threadIdx.x);
    for (std::size_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        const std::size_t c0 = chunk * kChunk;
        const std::size_t width = cols - c0 < kChunk ? cols - c0 : kChunk;
#pragma unroll
        for (int r = 0; r < kNarrow; ++r) { // a constant trip count: every load in flight at once
            if (static_cast<std::size_t>(r) < rows && t < width) stage[r][t] = in[r * cols + c0 + t];
        }
        sync_block();
        const std::size_t run = width * rows;
        for (std::size_t q = t; q < run; q += kChunk) out[c0 * rows + q] = stage[q % rows][q / rows];
        sync_block(); // the stage is refilled by the next chunk
    }
}

// cols <= kNarrow: a block moves rows [r0, r0 + kChunk), contiguous in the input, to columns
// [r0, r0 + kChunk) of every output row.
template <class Word, int kChunk, int kNarrow>
__global__ void __launch_bounds__(kChunk)
    transpose_few_cols_kernel(const Word* in, Word* out, std::size_t rows, std::size_t cols) {
    __shared__ Word stage[kNarrow][kChunk + 1];
    const std::size_t chunks = (rows + kChunk - 1) / kChunk;
    const auto t = static_cast<std::size_t>(threadIdx.x);
    for (std::size_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        const std::size_t r0 = chunk * kChunk;
        const std::size_t height = rows - r0 < kChunk ? rows - r0 : kChunk;
        const std::size_t run = height * cols;
        for (std::size_t q = t; q < run; q += kChunk) stage[q % cols][q / cols] = in[r0 * cols + q];
        sync_block();
#pragma unroll
        for (int c = 0; c < kNarrow; ++c) {
            if (static_cast<std::size_t>(c) < cols && t < height) out[c * rows + r0 + t] = stage[c][t];
        }
        sync_block();
    }
}

} // namespace gpucore::gpu

// SPDX-License-Identifier: Apache-2.0
// The transpose lesson's ladder, with its launch shape: 32 x 32 tiles, blocks of 32 x 8 threads,
// each thread moving 4 elements of its tile column; grid (ceil(cols / 32), ceil(rows / 32)).
//   copy:    the same access pattern without the transpose: the ceiling the others aim at;
//   naive:   reads coalesced, writes strided by `rows` (one 32-byte sector per element written);
//   shared:  the tile goes through shared memory, so reads and writes are both coalesced, but the
//            column reads of the tile hit one bank 32 times;
//   padded:  the tile's rows padded by one word, so a tile column spans every bank.
// `in` is rows x cols, `out` is cols x rows, both row-major; any shape (edge tiles are guarded).
#pragma once

#include <cstddef>

#include "gpu_vendor.hpp"

namespace ladder {

struct TransposeShape {
    static constexpr int kTile = 32;
    static constexpr int kBlockRows = 8;
};

inline dim3 transpose_grid(std::size_t rows, std::size_t cols) {
    constexpr std::size_t t = TransposeShape::kTile;
    return dim3(static_cast<unsigned>((cols + t - 1) / t), static_cast<unsigned>((rows + t - 1) / t));
}
inline dim3 transpose_block() { return dim3(TransposeShape::kTile, TransposeShape::kBlockRows); }

__global__ void copy_tiles_kernel(const float* in, float* out, std::size_t rows, std::size_t cols) {
    constexpr int kTile = TransposeShape::kTile, kStep = TransposeShape::kBlockRows;
    const std::size_t x = static_cast<std::size_t>(blockIdx.x) * kTile + threadIdx.x;
    const std::size_t y = static_cast<std::size_t>(blockIdx.y) * kTile + threadIdx.y;
    for (int j = 0; j < kTile; j += kStep) {
        if (x < cols && y + j < rows) out[(y + j) * cols + x] = in[(y + j) * cols + x];
    }
}

__global__ void transpose_naive_kernel(const float* in, float* out, std::size_t rows, std::size_t cols) {
    constexpr int kTile = TransposeShape::kTile, kStep = TransposeShape::kBlockRows;
    const std::size_t x = static_cast<std::size_t>(blockIdx.x) * kTile + threadIdx.x;
    const std::size_t y = static_cast<std::size_t>(blockIdx.y) * kTile + threadIdx.y;
    for (int j = 0; j < kTile; j += kStep) {
        if (x < cols && y + j < rows) out[x * rows + (y + j)] = in[(y + j) * cols + x];
    }
}

// kPad = 0: the shared-memory lesson; kPad = 1: the padded one.
template <int kPad>
__global__ void transpose_shared_kernel(const float* in, float* out, std::size_t rows, std::size_t cols) {
    constexpr int kTile = TransposeShape::kTile, kStep = TransposeShape::kBlockRows;
    __shared__ float tile[kTile][kTile + kPad];
    const std::size_t tile_col = static_cast<std::size_t>(blockIdx.x) * kTile; // first input column
    const std::size_t tile_row = static_cast<std::size_t>(blockIdx.y) * kTile; // first input row
    const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
    for (int j = 0; j < kTile; j += kStep) {
        const std::size_t r = tile_row + ty + j, c = tile_col + tx;
        if (r < rows && c < cols) tile[ty + j][tx] = in[r * cols + c];
    }
    __syncthreads();
    // Output row = input column, output column = input row: consecutive threads write
    // consecutive output columns (input rows tile_row + tx) of one output row.
    for (int j = 0; j < kTile; j += kStep) {
        const std::size_t out_row = tile_col + ty + j, out_col = tile_row + tx;
        if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = tile[tx][ty + j];
    }
}

} // namespace ladder

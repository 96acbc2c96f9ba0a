// SPDX-License-Identifier: Apache-2.0
// transpose of 2-byte elements that loads and stores 4-byte pairs, for arrays of even rows and
// columns on 4-byte boundaries. The input is read as rows of pairs (input columns 2i, 2i + 1);
// the output is written as pairs of input rows (r, r + 1) of one input column. A 2-byte tile kernel
// moves half the bytes per instruction of a 4-byte one; the bulk-copy kernel is held back where
// its boxes fit the shape badly (BENCHMARKS.md: 2-byte transposes in pair tiles).
//
// A block moves a tile of kPairTile input rows x kPairTile pairs (2 * kPairTile input columns):
// thread (x, y) loads pair x of rows y, y + kBlockRows, ... into tile[row][x], a whole 256-byte
// row per 64 threads. Then each group of 32 threads takes one pair column j of the tile and 32 of
// its rows: lane l reads tile[32 h + l][j] (an odd pitch: distinct banks) and swaps it with lane
// l ^ 1, so an even lane holds the low halves of rows l and l + 1 (input column 2j, output row 2j)
// and an odd lane their high halves (output row 2j + 1). Each store instruction writes 64
// contiguous bytes of two output rows. Positions are 32-bit (the launcher checks that they fit).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../gpu_vendor.hpp"
#include "transpose_kernel.cuh"

namespace gpucore::gpu {

// kDown: the tiles' order (tiles_per_line in transpose_kernel.cuh).
template <int kPairTile, int kBlockRows, bool kDown>
struct PairsInOutMover {
    using Index = std::uint32_t;
    static constexpr int kGroup = 32; // lanes that share a tile column's 32 rows
    static constexpr int kGroups = kPairTile * kBlockRows / kGroup;
    static_assert(kPairTile % kBlockRows == 0 && kPairTile % kGroup == 0 && kPairTile % kGroups == 0,
                  "tile rows and pair columns split evenly");
    using Buffer = std::uint32_t[kPairTile][kPairTile + 1];

    const std::uint32_t* in; // rows x pair_cols pairs
    std::uint32_t* out;      // 2 * pair_cols rows of rows / 2 pairs
    Index rows;              // even
    Index pair_cols;
    Index per_line; // tiles in one line of the order (tiles_per_line)

    // Tile t through `tile`; the caller synchronizes the block before reusing `tile`.
    __device__ __forceinline__ void move(Index t, Buffer& tile) const {
        const int x = static_cast<int>(threadIdx.x);
        const int y = static_cast<int>(threadIdx.y);
        const auto [tile_row, tile_col] = tile_origin<kDown, kPairTile, kPairTile>(t, per_line);
#pragma unroll
        for (int k = 0; k < kPairTile / kBlockRows; ++k) { // constant trip counts: every load in flight
            const int r = y + k * kBlockRows;
            if (tile_row + r < rows && tile_col + x < pair_cols) tile[r][x] = in[(tile_row + r) * pair_cols + tile_col + x];
        }
        sync_block();
        const int thread = y * kPairTile + x;
        const int lane = thread % kGroup;
        const int group = thread / kGroup;
        const bool even = lane % 2 == 0;
        const Index out_pitch = rows / 2;
#pragma unroll
        for (int m = 0; m < kPairTile / kGroups; ++m) {
            const int j = group + m * kGroups;
#pragma unroll
            for (int h = 0; h < kPairTile / kGroup; ++h) {
                const int first_row = kGroup * h + (lane & ~1); // of the lane's output pair
                const bool inside = tile_col + j < pair_cols && tile_row + first_row < rows;
                const std::uint32_t mine = inside ? tile[kGroup * h + lane][j] : 0u;
                const std::uint32_t other = shfl_xor(mine, 1, kWarpSize); // every lane: a whole-warp shuffle
                const std::uint32_t pair = even ? (mine & 0xFFFFu) | (other << 16)
                                                : (other >> 16) | (mine & 0xFFFF0000u);
                if (inside) {
                    const Index out_row = 2 * (tile_col + j) + (even ? 0 : 1);
                    out[out_row * out_pitch + (tile_row + first_row) / 2] = pair;
                }
            }
        }
    }
};

template <int kPairTile, int kBlockRows, bool kDown>
__global__ void __launch_bounds__(kPairTile* kBlockRows)
    transpose_pair_tile_kernel(const std::uint32_t* in, std::uint32_t* out, std::uint32_t rows,
                               std::uint32_t pair_cols) {
    using Mover = PairsInOutMover<kPairTile, kBlockRows, kDown>;
    using Index = typename Mover::Index;
    __shared__ typename Mover::Buffer tile;
    const Index across = (pair_cols + kPairTile - 1) / kPairTile;
    const Index down = (rows + kPairTile - 1) / kPairTile;
    const Index tiles = across * down;
    const Mover mover{in, out, rows, pair_cols, tiles_per_line<kDown>(down, across)};
    move_tiles(mover, tiles, tile);
}

} // namespace gpucore::gpu

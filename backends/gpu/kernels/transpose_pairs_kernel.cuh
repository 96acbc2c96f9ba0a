// SPDX-License-Identifier: Apache-2.0
// transpose of 2-byte elements whose output rows start off 32-byte sectors (odd row counts, views
// at odd offsets), over 32-bit positions. A 2-byte tile kernel spends twice the instructions per
// byte of a 4-byte one, and off sectors each tile edge writes a part of a sector that the
// neighbouring tile completes later; both held it to 0.55-0.76 of a copy (BENCHMARKS.md: 2-byte
// transposes off sectors).
//
// A block moves a tile of kTileRows input rows x kTileCols input columns. Loads are one element
// per thread and input row, coalesced along the row, as in the tile kernel, plus the kHalo input
// rows above the tile. Stores go out in 4-byte pairs: each group of 32 threads takes whole
// output rows, each thread one pair of the row's window. The window of output row j is [tile_row
// - s_j, tile_row + kTileRows - s_j), s_j the shift onto that row's sector boundary (the first
// tile starts at 0, the last one runs to the end), so neighbouring tiles meet on sector boundaries
// and every sector is written whole by one store instruction. Tall tiles keep the halo's extra
// reads to kHalo / kTileRows of the input.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../gpu_vendor.hpp"
#include "transpose_kernel.cuh"

namespace gpucore::gpu {

template <int kTileRows, int kTileCols, int kBlockRows>
struct PairTileMover {
    using Word = std::uint16_t;
    using Index = std::uint32_t;
    static constexpr int kSector = 16; // 2-byte elements in a 32-byte sector
    static constexpr int kGroup = 32;  // threads that share an output row
    static_assert(kTileRows % 64 == 0 && kTileCols * kBlockRows % kGroup == 0, "whole pair groups");
    static_assert(kTileCols % (kTileCols * kBlockRows / kGroup) == 0, "output rows split evenly");
    // Input rows held above the tile: kSector - 1 at most are read, in whole block-row steps.
    static constexpr int kHalo = (kSector - 1 + kBlockRows - 1) / kBlockRows * kBlockRows;
    // An odd pitch (in elements) puts the two column reads of a pair group on distinct banks.
    static constexpr int kPitch = kTileCols + 1;
    static constexpr int kGroups = kTileCols * kBlockRows / kGroup;
    // Pairs per group pass: a window is kTileRows elements, up to kTileRows + kSector at the edges.
    static constexpr int kPasses = kTileRows / (2 * kGroup);
    static constexpr int kEdgePasses = (kTileRows + kSector + 2 * kGroup - 1) / (2 * kGroup);
    using Buffer = Word[kTileRows + kHalo][kPitch];

    TileArrays<Word, Index> arrays;

    // Tile t through `tile`; the caller synchronizes the block before reusing `tile`.
    __device__ __forceinline__ void move(Index t, Buffer& tile) const {
        const Index rows = arrays.rows;
        const Index cols = arrays.cols;
        const auto [tile_row, tile_col] = stage_tile<kTileRows, kTileCols, kHalo, kSector, kBlockRows>(arrays, t, tile);
        const int thread = static_cast<int>(threadIdx.y) * kTileCols + static_cast<int>(threadIdx.x);
        const int lane = thread % kGroup;
        const int group = thread / kGroup;
        const bool last = tile_row + kTileRows >= rows;
        const bool edge = tile_row == 0 || last; // windows that may be longer or start off a pair
#pragma unroll
        for (int k = 0; k < kTileCols / kGroups; ++k) {
            const int j = group + k * kGroups;
            const Index out_row = tile_col + j; // output row = input column
            if (out_row >= cols) continue;
            const Index base = out_row * rows + tile_row; // output column tile_row of the row
            // The window, relative to tile_row, and the first pair's start on a 4-byte boundary.
            const int shift = static_cast<int>((arrays.out_offset + base) % kSector);
            const int first = tile_row == 0 ? 0 : -shift;
            const int end = last ? static_cast<int>(rows - tile_row) : kTileRows - shift;
            const int pair0 = first - static_cast<int>((arrays.out_offset + base + first) % 2);
            Word* row = arrays.out + base;
#pragma unroll
            for (int h = 0; h < kEdgePasses; ++h) {
                if (h >= kPasses && !edge) break;
                const int q = pair0 + 2 * (lane + h * kGroup);
                if (q >= first && q + 2 <= end) {
                    const std::uint32_t pair = std::uint32_t{tile[q + kHalo][j]} |
                                               std::uint32_t{tile[q + 1 + kHalo][j]} << 16;
                    *reinterpret_cast<std::uint32_t*>(row + q) = pair;
                } else { // a window's first or last element alone
                    if (q >= first && q < end) row[q] = tile[q + kHalo][j];
                    if (q + 1 >= first && q + 1 < end) row[q + 1] = tile[q + 1 + kHalo][j];
                }
            }
        }
    }
};

template <int kTileRows, int kTileCols, int kBlockRows>
__global__ void __launch_bounds__(kTileCols* kBlockRows)
    transpose_pairs_kernel(const std::uint16_t* in, std::uint16_t* out, std::uint32_t rows, std::uint32_t cols) {
    using Mover = PairTileMover<kTileRows, kTileCols, kBlockRows>;
    using Index = typename Mover::Index;
    __shared__ typename Mover::Buffer tile;
    const Index tiles_x = (cols + kTileCols - 1) / kTileCols;
    const Index tiles = tiles_x * ((rows + kTileRows - 1) / kTileRows);
    const Mover mover{{in, out, rows, cols, tiles_x,
                       static_cast<Index>(reinterpret_cast<std::uintptr_t>(out) / sizeof(std::uint16_t))}};
    move_tiles(mover, tiles, tile);
}

} // namespace gpucore::gpu

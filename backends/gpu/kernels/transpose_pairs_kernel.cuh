// SPDX-License-Identifier: Apache-2.0
// transpose of 2-byte elements whose rows start off 4-byte pairs or whose output rows start off
// 32-byte sectors (odd row or column counts, views at odd offsets), over 32-bit positions. Every
// global load and store moves a 4-byte pair wherever one fits, and shared memory holds pairs as
// 4-byte words: kernels that staged single 2-byte words read 0.75-0.77 of a copy on these shapes
// and even on 8192^2, where this one reads 0.87 (BENCHMARKS.md: 2-byte transposes of odd shapes in
// realigned pairs).
//
// A block moves a tile of kTileRows input rows x kTileCols = 62 input columns. Loads: each group
// of 32 threads reads 32 pairs of one input row, starting at the tile's first column or one
// element before it, whichever starts a pair in memory. Where a row starts one element past a
// pair, each lane joins the high half of its pair with the low half of the next lane's, so the
// tile holds word w = input columns (2w, 2w + 1) for every row: 31 words cover the 62 columns at
// either parity. The kHalo input rows above the tile are read too (see below).
//
// Stores: each group of 32 threads takes whole output rows, each thread one pair of the row's
// window. The window of output row j is [tile_row - s_j, tile_row + kTileRows - s_j), s_j the
// shift onto that row's sector boundary (the first tile starts at 0, the last one runs to the
// end), so neighbouring tiles meet on sector boundaries and every sector is written whole by one
// store instruction.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../gpu_vendor.hpp"
#include "transpose_kernel.cuh"

namespace gpucore::gpu {

// kDown: the tiles' order (tiles_per_line in transpose_kernel.cuh); it changes no constant of the
// tile's shape, which the launcher reads from the default.
template <int kTileRows, int kBlockRows, bool kDown = false>
struct RealignedPairMover : TileArrays<std::uint16_t, std::uint32_t> {
    using Word = std::uint16_t;
    using Index = std::uint32_t;
    static constexpr int kSector = 16;    // 2-byte elements in a 32-byte sector
    static constexpr int kGroup = 32;     // threads that share an input row, or an output row
    static constexpr int kWords = kGroup - 1; // pair words of the tile's columns in every row
    static constexpr int kTileCols = 2 * kWords;
    static constexpr int kThreads = kGroup * kBlockRows;
    static_assert(kTileRows % (2 * kGroup) == 0, "whole pair passes");
    // Input rows held above the tile: kSector - 1 at most are read, in whole block-row steps.
    static constexpr int kHalo = (kSector - 1 + kBlockRows - 1) / kBlockRows * kBlockRows;
    static constexpr int kLoads = (kTileRows + kHalo) / kBlockRows; // per thread
    // An odd pitch in words puts a group's 32 rows of one word on distinct banks.
    static constexpr int kPitchWords = kGroup + 1;
    static constexpr int kGroups = kThreads / kGroup;
    // Pairs per group pass: a window is kTileRows elements, up to kTileRows + kSector at the edges.
    static constexpr int kPasses = kTileRows / (2 * kGroup);
    static constexpr int kEdgePasses = (kTileRows + kSector + 2 * kGroup - 1) / (2 * kGroup);
    using Buffer = std::uint32_t[kTileRows + kHalo][kPitchWords];

    // Loads the tile's rows. kEdge: a tile at the array's edges, where rows may be missing and a
    // pair may reach past either end of the array (those elements load alone); otherwise every
    // pair lies inside and the loads are unconditional.
    template <bool kEdge>
    __device__ __forceinline__ void stage(Buffer& tile, Index tile_row, Index tile_col, int x, int y) const {
        // Once, outside the loop: computed per load it costs 10 registers, a block per SM and a
        // sixth of the speed (BENCHMARKS.md: 2-byte transposes of odd shapes in realigned pairs).
        const Index elements = rows * cols;
        std::uint32_t loaded[kLoads];
        bool shifted[kLoads];
#pragma unroll
        for (int k = 0; k < kLoads; ++k) { // constant trip counts: every load in flight at once
            const int j = y + k * kBlockRows; // tile[j] holds input row tile_row - kHalo + j
            const bool held = j + kSector > kHalo && (!kEdge || tile_row + j >= kHalo);
            const Index in_row = tile_row + j - kHalo;
            const Index first = in_row * cols + tile_col; // the row's element at column tile_col
            const Index shift = (in_address + first) & 1u;
            shifted[k] = shift != 0;
            const Index low = first + 2 * x - shift; // the lane's pair: elements low, low + 1
            if constexpr (kEdge) {
                const bool row_inside = held && in_row < rows;
                const bool low_inside = row_inside && low < elements; // "-1" wraps past the end too
                const bool high_inside = row_inside && low + 1 < elements;
                const std::uint32_t low_word = low_inside ? in[low] : 0u;
                const std::uint32_t high_word = high_inside ? in[low + 1] : 0u;
                loaded[k] = low_word | high_word << 16;
            } else {
                loaded[k] = held ? *reinterpret_cast<const std::uint32_t*>(in + low) : 0u;
            }
        }
#pragma unroll
        for (int k = 0; k < kLoads; ++k) {
            const int j = y + k * kBlockRows;
            const std::uint32_t next = shfl_down(loaded[k], 1u, kGroup); // every lane: a whole-group shuffle
            const std::uint32_t word = shifted[k] ? (loaded[k] >> 16) | (next << 16) : loaded[k];
            if (j + kSector > kHalo && x < kWords) tile[j][x] = word;
        }
    }

    // Tile t through `tile`; the caller synchronizes the block before reusing `tile`.
    __device__ __forceinline__ void move(Index t, Buffer& tile) const {
        const int x = static_cast<int>(threadIdx.x);
        const int y = static_cast<int>(threadIdx.y);
        // tile_origin's sums, spelled out: through the helper, the rows order compiles to other
        // machine code than the kernel without an order had (the other tile kernels' does not).
        const Index tile_row = (kDown ? t % per_line : t / per_line) * kTileRows;
        const Index tile_col = (kDown ? t / per_line : t % per_line) * kTileCols;
        // Every pair of every row inside the array: 32 pairs reach 2 * kGroup - 1 columns on.
        const bool inside = tile_row >= static_cast<Index>(kHalo) && tile_row + kTileRows <= rows &&
                            tile_col + 2 * kGroup <= cols;
        if (inside) stage<false>(tile, tile_row, tile_col, x, y);
        else stage<true>(tile, tile_row, tile_col, x, y);
        sync_block();
        const int thread = y * kGroup + x;
        const int lane = thread % kGroup;
        const int group = thread / kGroup;
        const bool last = tile_row + kTileRows >= rows;
        const bool edge = tile_row == 0 || last; // windows that may be longer or start off a pair
#pragma unroll
        for (int k = 0; k < (kTileCols + kGroups - 1) / kGroups; ++k) {
            const int j = group + k * kGroups;
            const Index out_row = tile_col + j; // output row = input column
            if (j >= kTileCols || out_row >= cols) continue;
            const Index base = out_row * rows + tile_row; // output column tile_row of the row
            // The window, relative to tile_row, and the first pair's start on a 4-byte boundary.
            const int shift = static_cast<int>((out_address + base) % kSector);
            const int first = tile_row == 0 ? 0 : -shift;
            const int end = last ? static_cast<int>(rows - tile_row) : kTileRows - shift;
            const int pair0 = first - static_cast<int>((out_address + base + first) % 2);
            const auto at = [&](int q) { return static_cast<Word>(tile[q + kHalo][j / 2] >> (16 * (j % 2))); };
            Word* row = out + base;
#pragma unroll
            for (int h = 0; h < kEdgePasses; ++h) {
                if (h >= kPasses && !edge) break;
                const int q = pair0 + 2 * (lane + h * kGroup);
                if (q >= first && q + 2 <= end) {
                    *reinterpret_cast<std::uint32_t*>(row + q) = std::uint32_t{at(q)} | std::uint32_t{at(q + 1)} << 16;
                } else { // a window's first or last element alone
                    if (q >= first && q < end) row[q] = at(q);
                    if (q + 1 >= first && q + 1 < end) row[q + 1] = at(q + 1);
                }
            }
        }
    }
};

// The launch bound is kGroup * kBlockRows, spelled out: HIP's __launch_bounds__ is a macro, and a
// template argument list's comma would split its argument.
template <int kTileRows, int kBlockRows, bool kDown>
__global__ void __launch_bounds__(32 * kBlockRows)
    transpose_pairs_kernel(const std::uint16_t* in, std::uint16_t* out, std::uint32_t rows, std::uint32_t cols) {
    using Mover = RealignedPairMover<kTileRows, kBlockRows, kDown>;
    using Index = typename Mover::Index;
    static_assert(Mover::kThreads == 32 * kBlockRows, "the launch bound");
    __shared__ typename Mover::Buffer tile;
    const auto tiled = tiled_arrays<kDown>(in, out, rows, cols, Index{kTileRows}, Index{Mover::kTileCols});
    move_tiles(Mover{tiled.arrays}, tiled.tiles, tile);
}

} // namespace gpucore::gpu

// SPDX-License-Identifier: Apache-2.0
// transpose of words whose input rows start off 16 bytes or whose output rows start off 32-byte
// sectors (odd row or column counts, views at odd offsets), over 32-bit positions; the launcher
// runs it for 4-byte words (2- and 8-byte ones were slower in it than in their other kernels).
// Every global load and store moves 16 bytes wherever a vector fits: the tile kernel's
// sector-aligned writes move a word per access, and there 8191 x 8193 executed twice the
// instructions of the aligned 8192^2 and read 0.81-0.84 of a copy (BENCHMARKS.md: realigned
// vectors).
//
// A block moves a tile of kTileRows input rows x kTileCols input columns. Loads: each input row of
// the tile is read as kTileCols / kVec + 1 vectors from the 16-byte boundary at or before the
// tile's first column (its shift s, 0..kVec-1, depends on the row) and staged as loaded; the
// stores find column c of a row at c + s. The kHalo input rows above the tile are read too (see
// below).
//
// Stores: groups of kLanes threads take whole output rows, each thread vectors of the row's
// window. The window of output row j is [tile_row - s_j, tile_row + kTileRows - s_j), s_j the
// shift onto that row's sector boundary (the first tile starts at 0, the last one runs to the
// end), so neighbouring tiles meet on sector boundaries and every sector is written whole by one
// store instruction. Only windows at the array's first and last tile rows start or end off a
// vector; their pieces move a word at a time.
#pragma once

#include <cstdint>

#include "packed_access.cuh"
#include "transpose_kernel.cuh"

namespace gpucore::gpu {

template <class Word, int kTileRows, int kTileCols, int kThreads, int kLanes, bool kDown>
struct RealignedVectorMover : TileArrays<Word, std::uint32_t> {
    using Index = std::uint32_t;
    using Arrays = TileArrays<Word, Index>;
    using Arrays::cols;
    using Arrays::in;
    using Arrays::in_address;
    using Arrays::out;
    using Arrays::out_address;
    using Arrays::per_line;
    using Arrays::rows;
    static constexpr int kVec = Pack<Word>::kCount;                      // words per 16-byte vector
    static constexpr int kSector = 32 / static_cast<int>(sizeof(Word)); // words per 32-byte sector
    // Input rows held above the tile: the most a window reaches back.
    static constexpr int kHalo = kSector - 1;
    static constexpr int kStagedRows = kTileRows + kHalo;
    static constexpr int kRowVectors = kTileCols / kVec + 1; // covers the tile's columns at any shift
    static constexpr int kLoads = (kStagedRows * kRowVectors + kThreads - 1) / kThreads; // per thread
    static constexpr int kGroups = kThreads / kLanes;
    static constexpr int kPasses = kTileRows / (kVec * kLanes); // vectors per thread of a window
    // A last tile row's window: up to kTileRows + kSector - 1 words from a vector boundary up to
    // kVec - 1 words before it. (The first tile row's windows start at 0, and their vectors from
    // the boundary before it reach their ends in kPasses.)
    static constexpr int kEdgePasses = (kTileRows + kSector - 1 + kVec - 1 + kVec * kLanes - 1) / (kVec * kLanes);
    // A staged row's words and one more: row i's vector v starts on bank 5i + 4v (mod 32) for
    // 4-byte words, so a warp's vector stores of about four rows, and a group's column walk (rows
    // kVec apart), fall on distinct banks.
    static constexpr int kPitch = kRowVectors * kVec + 1;
    static_assert(kTileCols % kVec == 0 && kTileRows % (kVec * kLanes) == 0, "whole vectors");
    static_assert(kThreads % kLanes == 0 && kTileCols % kGroups == 0, "whole groups of output rows");
    using Buffer = Word[kStagedRows][kPitch];

    // Loads the tile's rows into `tile`: staged row i is input row tile_row - kHalo + i, its words
    // from the vector boundary before column tile_col on (column c of the tile at c + s_i, s_i the
    // row's shift: vectors go in whole, on distinct banks). Word by word where the tile is at the
    // array's edges (rows may be missing, and a vector may reach past either end of the array),
    // else in whole vectors, every one of them in flight at once.
    template <bool kEdge>
    __device__ __forceinline__ void stage(Buffer& tile, Index tile_row, Index tile_col, int thread) const {
        Pack<Word> loaded[kEdge ? 1 : kLoads];
#pragma unroll
        for (int k = 0; k < kLoads; ++k) { // constant trip counts
            const int id = thread + k * kThreads;
            const int i = id / kRowVectors;
            const int v = id % kRowVectors;
            const Index in_row = tile_row + i - kHalo;
            const Index first = in_row * cols + tile_col; // the row's word at column tile_col
            const int shift = static_cast<int>((in_address + first) % kVec);
            const bool held = i < kStagedRows && (!kEdge || tile_row + i >= kHalo);
            if constexpr (kEdge) {
#pragma unroll
                for (int m = 0; m < kVec; ++m) {
                    const int col = kVec * v + m - shift; // the word's column in the tile
                    if (held && in_row < rows && col >= 0 && col < kTileCols && tile_col + col < cols) {
                        tile[i][kVec * v + m] = in[first + col];
                    }
                }
            } else if (held) {
                loaded[k] = load_pack_readonly(in + first - shift + kVec * v, 0);
            }
        }
        if constexpr (!kEdge) {
#pragma unroll
            for (int k = 0; k < kLoads; ++k) {
                const int id = thread + k * kThreads;
                const int i = id / kRowVectors;
                const int v = id % kRowVectors;
                if (i >= kStagedRows) continue;
#pragma unroll
                for (int m = 0; m < kVec; ++m) tile[i][kVec * v + m] = loaded[k].v[m];
            }
        }
    }

    // Tile t through `tile`; the caller synchronizes the block before reusing `tile`.
    __device__ __forceinline__ void move(Index t, Buffer& tile) const {
        const int thread = static_cast<int>(threadIdx.x);
        const TileOrigin<Index> origin = tile_origin<kDown, kTileRows, kTileCols>(t, per_line);
        const Index tile_row = origin.row;
        const Index tile_col = origin.col;
        // Every vector of every staged row inside the array, the one before the tile's rows included.
        const bool inside = tile_row > static_cast<Index>(kHalo) && tile_row + kTileRows <= rows &&
                            tile_col + kTileCols + kVec <= cols;
        if (inside) stage<false>(tile, tile_row, tile_col, thread);
        else stage<true>(tile, tile_row, tile_col, thread);
        sync_block();
        const int lane = thread % kLanes;
        const int group = thread / kLanes;
        const bool last = tile_row + kTileRows >= rows; // windows up to kTileRows + kSector - 1 words
        // The address in words of staged row 0's column 0: modulo kVec, that row's shift.
        const Index staged_address = in_address + (tile_row - kHalo) * cols + tile_col;
#pragma unroll
        for (int k = 0; k < kTileCols / kGroups; ++k) {
            const int j = group + k * kGroups;
            const Index out_row = tile_col + j; // output row = input column
            if (out_row >= cols) continue;
            const Index base = out_row * rows + tile_row; // output column tile_row of the row
            // The window, relative to tile_row, and the vector boundary at or before its start.
            const int shift = static_cast<int>((out_address + base) % kSector);
            const int first = tile_row == 0 ? 0 : -shift;
            const int end = last ? static_cast<int>(rows - tile_row) : kTileRows - shift;
            const int vector0 = first - static_cast<int>((out_address + base + first) % kVec);
            // Where column j sits in staged row vector0 + kHalo + m + kVec * n, whatever n: its shift.
            int at[kVec];
#pragma unroll
            for (int m = 0; m < kVec; ++m) {
                at[m] = j + static_cast<int>((staged_address + static_cast<Index>(vector0 + kHalo + m) * cols) % kVec);
            }
            Word* row = out + base;
#pragma unroll
            for (int h = 0; h < kEdgePasses; ++h) {
                if (h >= kPasses && !last) break;
                const int q = vector0 + kVec * (lane + h * kLanes);
                if (q >= first && q + kVec <= end) {
                    Pack<Word> v;
#pragma unroll
                    for (int m = 0; m < kVec; ++m) v.v[m] = tile[q + m + kHalo][at[m]];
                    store_pack(row + q, 0, v);
                } else { // a window's first or last words
#pragma unroll
                    for (int m = 0; m < kVec; ++m) {
                        if (q + m >= first && q + m < end) row[q + m] = tile[q + m + kHalo][at[m]];
                    }
                }
            }
        }
    }
};

// At least 1024 threads' blocks per SM: at most 64 registers a thread, four blocks of 256 threads
// per SM. With more registers and fewer blocks the kernel reads 0.67-0.82 of a copy where it reads
// 0.86-0.96 (BENCHMARKS.md: realigned vectors).
template <class Word, int kTileRows, int kTileCols, int kThreads, int kLanes, bool kDown>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads)
    transpose_realigned_vectors_kernel(const Word* in, Word* out, std::uint32_t rows, std::uint32_t cols) {
    using Mover = RealignedVectorMover<Word, kTileRows, kTileCols, kThreads, kLanes, kDown>;
    using Index = typename Mover::Index;
    __shared__ typename Mover::Buffer tile;
    const auto tiled = tiled_arrays<kDown>(in, out, rows, cols, Index{kTileRows}, Index{kTileCols});
    move_tiles(Mover{tiled.arrays}, tiled.tiles, tile);
}

} // namespace gpucore::gpu

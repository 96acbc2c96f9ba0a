// SPDX-License-Identifier: Apache-2.0
// transpose: out (cols x rows) = in (rows x cols)^T, row-major, any shape. A block moves one
// kTile x kTile tile at a time through shared memory: rows of the tile are read coalesced from
// `in` and written coalesced to `out`. Padding at the end of each tile row puts the column walk of
// the second phase on distinct banks (one word for 4-byte elements: a 33-word stride; for 8-byte:
// 66 words, conflict-free per half-warp; two words for 2-byte ones: 33 words, where one word
// would give 32.5 and two-way conflicts, 1-6 % slower: BENCHMARKS.md, sector-aligned transpose
// writes). Blocks stride over tiles, so any number of tiles fits one launch. Elements are moved as
// raw bits (Word is a 2-, 4- or 8-byte unsigned type). Index is the type of every position and
// offset: std::uint32_t when the array has fewer than 2^32 elements (the launcher checks), which
// costs each thread far fewer instructions than 64-bit arithmetic; std::size_t otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "packed_access.cuh"

namespace gpucore::gpu {

// The order in which blocks take tiles: down each column of tiles before the next (kDown), or
// along each row of tiles. Down the columns, blocks that run at the same time write consecutive
// pieces of the same output rows, not one short piece of each of many output rows; arrays of at
// least TuningPolicy::Transpose::kTilesDownMinBytes take that order. The order is a template
// parameter of the kernels: passed as a kernel argument, it left the sector-aligned tile kernel
// and the realigned-pair kernel 7-9 % slower (not profiled; BENCHMARKS.md: tiles down the columns).
//
// The tiles in one line of that order: one column of tiles (kDown) or one row.
template <bool kDown, class Index>
__device__ __forceinline__ Index tiles_per_line(Index tiles_down, Index tiles_across) {
    return kDown ? tiles_down : tiles_across;
}

// The arrays a tile kernel moves, their shape, the tiles in one line of its order, and the arrays'
// addresses in elements (views start anywhere): where their rows meet sectors and the boundaries of
// the kernel's loads (in_address: the realigned kernels only).
template <class Word, class Index>
struct TileArrays {
    const Word* in;
    Word* out;
    Index rows;
    Index cols;
    Index per_line;
    Index out_address;
    Index in_address;
};

// A rows x cols array cut into tiles of tile_rows x tile_cols: the arrays a kernel moves, in the
// order kDown, and how many tiles there are.
template <class Word, class Index>
struct TiledArrays {
    TileArrays<Word, Index> arrays;
    Index tiles;
};

template <bool kDown, class Word, class Index>
__device__ __forceinline__ TiledArrays<Word, Index> tiled_arrays(const Word* in, Word* out, Index rows, Index cols,
                                                                 Index tile_rows, Index tile_cols) {
    const Index across = (cols + tile_cols - 1) / tile_cols;
    const Index down = (rows + tile_rows - 1) / tile_rows;
    return {{in, out, rows, cols, tiles_per_line<kDown>(down, across),
             static_cast<Index>(reinterpret_cast<std::uintptr_t>(out) / sizeof(Word)),
             static_cast<Index>(reinterpret_cast<std::uintptr_t>(in) / sizeof(Word))},
            across * down};
}

// Every tile of the kernel's grid through `mover` (a TileMover, RealignedPairMover or
// PairsInOutMover): a block per tile up to the launch limit (the launcher's grid, grid_limits.hpp),
// so a block's first tile is in straight-line code and only further tiles loop: with the first one
// inside the loop too, the sector-aligned kernel ran about 10 % slower (BENCHMARKS.md:
// sector-aligned transpose writes).
template <class Mover, class Index, class Buffer>
__device__ __forceinline__ void move_tiles(const Mover& mover, Index tiles, Buffer& tile) {
    if (blockIdx.x < tiles) mover.move(blockIdx.x, tile);
    for (Index t = blockIdx.x + Index{gridDim.x}; t < tiles; t += gridDim.x) {
        sync_block(); // the tile is refilled
        mover.move(t, tile);
    }
}

// Where a tile starts: its first input row and column.
template <class Index>
struct TileOrigin {
    Index row;
    Index col;
};

// Where tile t of kTileRows x kTileCols input elements starts, lines of per_line tiles in order kDown.
template <bool kDown, int kTileRows, int kTileCols, class Index>
__device__ __forceinline__ TileOrigin<Index> tile_origin(Index t, Index per_line) {
    return {(kDown ? t % per_line : t / per_line) * kTileRows, (kDown ? t / per_line : t % per_line) * kTileCols};
}

// Stages tile t of kRows x kCols input elements in `tile` and waits for the whole block: thread
// (x, y) reads column x of rows y, y + kBlockRows, ... into tile[j][x], j counted from kHalo rows
// above the tile. Of those kHalo rows only the kSector - 1 nearest the tile are read: the most a
// sector-aligned window reaches back.
template <int kRows, int kCols, int kHalo, int kSector, int kBlockRows, bool kDown, class Word, class Index,
          class Buffer>
__device__ __forceinline__ TileOrigin<Index> stage_tile(const TileArrays<Word, Index>& arrays, Index t, Buffer& tile) {
    const int tx = static_cast<int>(threadIdx.x);
    const int ty = static_cast<int>(threadIdx.y);
    const TileOrigin<Index> origin = tile_origin<kDown, kRows, kCols>(t, arrays.per_line);
    const Index in_col = origin.col + tx;
#pragma unroll
    for (int k = 0; k < (kRows + kHalo) / kBlockRows; ++k) { // a constant trip count: unrolled
        const int j = ty + k * kBlockRows;                   // tile[j] holds input row origin.row - kHalo + j
        const bool held = kHalo == 0 || (j + kSector > kHalo && origin.row + j >= kHalo);
        const Index in_row = origin.row + j - kHalo;
        if (held && in_row < arrays.rows && in_col < arrays.cols) tile[j][tx] = arrays.in[in_row * arrays.cols + in_col];
    }
    sync_block();
    return origin;
}

// kSectorBytes > 0: sector-aligned writes, for output rows that do not start on sectors of that
// many bytes. There, two tiles that meet inside a sector would each write part of it, and partial
// sector writes cost the memory system far more than whole ones (BENCHMARKS.md: sector-aligned
// transpose writes). So the block also holds the kHalo input rows above its tile, and output row j
// of the tile writes [tile_row - s_j, tile_row + kTile - s_j), s_j being the shift onto that row's
// sector boundary (the first tile starts at 0, the last one runs to the end). s_j depends on j
// alone, so neighbouring tiles meet on sector boundaries and one block writes each sector whole.
template <class Word, class Index, int kTile, int kBlockRows, int kSectorBytes, bool kDown>
struct TileMover {
    static_assert(kTile % kBlockRows == 0, "tile rows split evenly");
    static constexpr bool kSectorWrites = kSectorBytes > 0;
    static constexpr int kSector = kSectorWrites ? kSectorBytes / static_cast<int>(sizeof(Word)) : 1; // in elements
    // Input rows held above the tile: kSector - 1 at most are read, in whole block-row steps.
    static constexpr int kHalo = kSectorWrites ? (kSector - 1 + kBlockRows - 1) / kBlockRows * kBlockRows : 0;
    // Row pitch in words (the padding: see the top of this file).
    static constexpr int kPitch = kTile + (sizeof(Word) == 2 ? 2 : 1);
    using Buffer = Word[kTile + kHalo][kPitch];

    TileArrays<Word, Index> arrays;

    // Tile t through `tile`; the caller synchronizes the block before reusing `tile`.
    __device__ __forceinline__ void move(Index t, Buffer& tile) const {
        const Index rows = arrays.rows;
        const Index cols = arrays.cols;
        const int tx = static_cast<int>(threadIdx.x);
        const int ty = static_cast<int>(threadIdx.y);
        const auto [tile_row, tile_col] = stage_tile<kTile, kTile, kHalo, kSector, kBlockRows, kDown>(arrays, t, tile);
#pragma unroll
        for (int k = 0; k < kTile / kBlockRows; ++k) {
            const int j = ty + k * kBlockRows;
            const Index out_row = tile_col + j; // output row = input column
            if (out_row >= cols) continue;
            const Index base = out_row * rows;
            const Index shift = kSectorWrites ? (arrays.out_address + base + tile_row) % kSector : 0;
            const Index first = tile_row == 0 ? 0 : tile_row - shift; // output column = input row
            const Index end = tile_row + kTile >= rows ? rows : tile_row + kTile - shift;
#pragma unroll
            for (int h = 0; h < (kSectorWrites ? 2 : 1); ++h) { // the last tile: up to kTile + kSector - 1
                const Index out_col = first + tx + h * kTile;
                if (out_col < end) arrays.out[base + out_col] = tile[out_col + kHalo - tile_row][j];
            }
        }
    }
};

template <class Word, class Index, int kTile, int kBlockRows, int kSectorBytes, bool kDown>
__global__ void __launch_bounds__(kTile* kBlockRows)
    transpose_kernel(const Word* in, Word* out, Index rows, Index cols) {
    using Mover = TileMover<Word, Index, kTile, kBlockRows, kSectorBytes, kDown>;
    __shared__ typename Mover::Buffer tile;
    const auto tiled = tiled_arrays<kDown>(in, out, rows, cols, Index{kTile}, Index{kTile});
    move_tiles(Mover{tiled.arrays}, tiled.tiles, tile);
}

// Shapes whose rows and columns are both multiples of kVec = 16 / sizeof(Word), with 16-byte
// aligned buffers: every global load and store is 16 bytes (a quarter of the instructions of the
// scalar kernel, and more bytes in flight per thread). Tiles are kTile = kThreadsX * kVec
// elements wide; thread (x, y) moves kVec consecutive elements of rows y, y + kThreadsY, ...
// Shared-memory accesses stay scalar, on the padded tile (at most 2-way bank conflicts).
template <class Word, int kThreadsX, int kThreadsY, bool kDown>
__global__ void __launch_bounds__(kThreadsX* kThreadsY)
    transpose_vector_kernel(const Word* in, Word* out, std::size_t rows, std::size_t cols) {
    constexpr int kVec = Pack<Word>::kCount;
    constexpr int kTile = kThreadsX * kVec;
    static_assert(kTile % kThreadsY == 0, "tile rows split evenly");
    __shared__ Word tile[kTile][kTile + 1];
    const std::size_t across = (cols + kTile - 1) / kTile;
    const std::size_t down = (rows + kTile - 1) / kTile;
    const std::size_t tiles = across * down;
    const std::size_t per_line = tiles_per_line<kDown>(down, across);
    const int tx = static_cast<int>(threadIdx.x);
    const int ty = static_cast<int>(threadIdx.y);

    for (std::size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const auto [tile_row, tile_col] = tile_origin<kDown, kTile, kTile>(t, per_line);
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
// elements of kPositions consecutive positions of the long side form one contiguous run of the
// input (few columns) or of the output (few rows), and kPositions-long pieces of `narrow` rows of
// the other array. A block stages them in shared memory, the element at narrow index n and
// long-side position p at n * pitch + p, and reads and writes both arrays coalesced, kPack words
// per thread and access. kSteps (a power of two, at most kNarrow / narrow: the launcher picks it)
// scales the chunk, kPositions = kPack * kChunk * kSteps, so that every thread moves narrow *
// kSteps accesses per chunk (8 to 16) whatever the narrow side: fewer, and a block would spend
// more time starting and synchronizing than moving data.
//
// kPack 2 (2- and 4-byte words, both arrays on boundaries of a pair: the launcher checks) moves
// pairs of words in one access: a word per access left 2-byte shapes at 0.55-0.82 of a copy
// (BENCHMARKS.md: 2-byte narrow transposes in pairs). Runs start on a pair boundary (kPositions is
// even). With an odd long side (kOddLong), every other piece row starts one word past a pair
// boundary: its pairs start one position earlier, and a word whose pair would reach outside the
// chunk moves alone, as does the last word of a run of an odd length, so blocks never touch each
// other's positions and no access leaves the arrays. An even long side compiles none of that.
template <class Word, int kChunk, int kNarrow, int kSteps, int kPack, bool kOddLong>
struct NarrowStage {
    static_assert(kPack == 1 || (kPack == 2 && (sizeof(Word) == 2 || sizeof(Word) == 4)),
                  "pairs of 2- or 4-byte words");
    static_assert(kPack == 2 || !kOddLong, "single words need no odd-long-side handling");
    using Pair = std::conditional_t<sizeof(Word) == 2, std::uint32_t, std::uint64_t>; // kPack 2 only
    static constexpr int kWordBits = 8 * static_cast<int>(sizeof(Word));
    static constexpr int kPositions = kPack * kChunk * kSteps;
    static constexpr int kMaxNarrow = kNarrow / kSteps;
    // Words per 128 bytes: the run side's accesses, n * pitch + p for consecutive run elements,
    // land on distinct banks when pitch is kPositions (a multiple of it) + kBankWords / narrow.
    static constexpr int kBankWords = 128 / static_cast<int>(sizeof(Word));
    static constexpr int kWords = kMaxNarrow * kPositions + kBankWords + kMaxNarrow;

    Word* words;         // kWords words of shared memory
    unsigned int narrow; // the narrow side
    unsigned int pitch;  // words from one narrow index to the next

    __device__ NarrowStage(Word* shared_words, unsigned int narrow_side)
        : words(shared_words), narrow(narrow_side),
          pitch(kPositions + (kBankWords + narrow_side - 1) / narrow_side) {}

    // One access at `at` of memory: a pair of words staged at `first` and `second` (`pair`, kPack
    // 2 only), or one word staged at `first`.
    __device__ __forceinline__ void access_in(const Word* at, unsigned int first, unsigned int second, bool pair) {
        if constexpr (kPack == 2) {
            if (pair) {
                const Pair both = *reinterpret_cast<const Pair*>(at);
                words[first] = static_cast<Word>(both);
                words[second] = static_cast<Word>(both >> kWordBits);
                return;
            }
        }
        words[first] = *at;
    }
    __device__ __forceinline__ void access_out(Word* at, unsigned int first, unsigned int second, bool pair) const {
        if constexpr (kPack == 2) {
            if (pair) {
                *reinterpret_cast<Pair*>(at) = Pair{words[first]} | Pair{words[second]} << kWordBits;
                return;
            }
        }
        *at = words[first];
    }

    // Pieces: positions [0, span) of rows 0..narrow-1 of `base` (rows `stride` words apart, `base`
    // on a pair boundary). Whole pairs first, move(offset, staged, pair): the access at base +
    // offset of the word(s) staged from `staged` on; then the words no whole pair holds.
    template <class Move>
    __device__ __forceinline__ void walk_pieces(std::size_t stride, unsigned int span, unsigned int t,
                                                Move&& move) const {
        if constexpr (kOddLong) {
            // Steps outer: an access's two predicates (whole in an unshifted row, starting at
            // `first`; whole in a shifted one, at first - 1) serve every row. Per row, they take
            // registers enough to cost a third of the speed or more (BENCHMARKS.md: narrow
            // transposes in pairs of words for any long side).
            const int in_chunk = static_cast<int>(span);
#pragma unroll
            for (int s = 0; s < kSteps; ++s) {
                const int first = kPack * static_cast<int>(t + s * kChunk);
                const bool whole = first + kPack - 1 < in_chunk;
                const bool whole_shifted = first >= 1 && first < in_chunk;
#pragma unroll
                for (int n = 0; n < kMaxNarrow; ++n) { // constant trip counts: every access in flight at once
                    const int shift = row_shift(n, stride);
                    const int p = first - shift;
                    if (n < static_cast<int>(narrow) && (shift ? whole_shifted : whole)) {
                        move(n * stride + p, n * pitch + p, kPack == 2);
                    }
                }
            }
        } else {
#pragma unroll
            for (int n = 0; n < kMaxNarrow; ++n) { // constant trip counts: every access in flight at once
#pragma unroll
                for (int s = 0; s < kSteps; ++s) {
                    const unsigned int p = kPack * (t + s * kChunk);
                    if (n < static_cast<int>(narrow) && p < span) move(n * stride + p, n * pitch + p, kPack == 2);
                }
            }
        }
        if constexpr (kOddLong) {
            // A row's first word when the row is shifted, its last when the pairs stop short of it.
            const int in_chunk = static_cast<int>(span);
            const int n = static_cast<int>(t / 2);
            if (n < static_cast<int>(narrow)) {
                const int shift = row_shift(n, stride);
                const int p = t % 2 == 0 ? (shift ? 0 : -1) : ((in_chunk - shift) % 2 ? in_chunk - 1 : -1);
                if (p >= 0) move(n * stride + p, n * pitch + p, false);
            }
        }
    }
    // 1 where row n of pieces `stride` words apart starts one word past a pair boundary.
    __device__ __forceinline__ static int row_shift(int n, std::size_t stride) {
        return kOddLong ? static_cast<int>(n & stride & 1) : 0;
    }
    __device__ __forceinline__ void load_pieces(const Word* base, std::size_t stride, unsigned int span,
                                                unsigned int t) {
        walk_pieces(stride, span, t, [&](std::size_t offset, unsigned int at, bool pair) {
            access_in(base + offset, at, at + 1, pair);
        });
    }
    __device__ __forceinline__ void store_pieces(Word* base, std::size_t stride, unsigned int span,
                                                 unsigned int t) const {
        walk_pieces(stride, span, t, [&](std::size_t offset, unsigned int at, bool pair) {
            access_out(base + offset, at, at + 1, pair);
        });
    }

    // The run: span positions of `narrow` consecutive words each, from `base` on. Thread t takes
    // the accesses at run elements q = kPack * t, kPack * (t + kChunk), ...: position q / narrow,
    // narrow index q % narrow, both stepped without dividing; q + 1 (kPack 2) is the next index,
    // or index 0 of the next position, staged at `next`. A run of an odd number of words (odd
    // span and narrow side) ends in a word that moves alone.
    template <class Move>
    __device__ __forceinline__ void walk_run(unsigned int span, unsigned int t, Move&& move) const {
        const unsigned int step_positions = kPack * kChunk / narrow;
        const unsigned int step_index = kPack * kChunk % narrow;
        const unsigned int words_in_run = span * narrow;
        unsigned int position = kPack * t / narrow;
        unsigned int index = kPack * t % narrow;
#pragma unroll
        for (int i = 0; i < kNarrow; ++i) { // narrow * kSteps <= kNarrow accesses per thread
            const unsigned int q = kPack * (t + i * kChunk);
            const unsigned int at = index * pitch + position;
            if ((kOddLong ? q + kPack - 1 : q) < words_in_run) { // even: whole pairs
                move(q, at, index + 1 == narrow ? position + 1 : at + pitch, kPack == 2);
            }
            position += step_positions;
            index += step_index;
            if (index >= narrow) {
                index -= narrow;
                ++position;
            }
        }
        if (kOddLong && words_in_run % 2 != 0 && t == 0) {
            move(words_in_run - 1, (narrow - 1) * pitch + span - 1, 0, false);
        }
    }
    __device__ __forceinline__ void load_run(const Word* base, unsigned int span, unsigned int t) {
        walk_run(span, t, [&](unsigned int q, unsigned int at, unsigned int next, bool pair) {
            access_in(base + q, at, next, pair);
        });
    }
    __device__ __forceinline__ void store_run(Word* base, unsigned int span, unsigned int t) const {
        walk_run(span, t, [&](unsigned int q, unsigned int at, unsigned int next, bool pair) {
            access_out(base + q, at, next, pair);
        });
    }
};

// kFewRows (rows <= kNarrow / kSteps): a block moves columns [p0, p0 + kPositions) of every row,
// whose output rows are the run out[p0 * rows ...]. Otherwise (cols <= kNarrow / kSteps) it moves
// the input rows [p0, p0 + kPositions), the run in[p0 * cols ...], to columns [p0, p0 +
// kPositions) of every output row.
template <class Word, int kChunk, int kNarrow, int kSteps, bool kFewRows, int kPack, bool kOddLong>
__global__ void __launch_bounds__(kChunk)
    transpose_narrow_kernel(const Word* in, Word* out, std::size_t rows, std::size_t cols) {
    using Stage = NarrowStage<Word, kChunk, kNarrow, kSteps, kPack, kOddLong>;
    __shared__ Word words[Stage::kWords];
    Stage stage(words, static_cast<unsigned int>(kFewRows ? rows : cols));
    const std::size_t length = kFewRows ? cols : rows;
    const std::size_t chunks = (length + Stage::kPositions - 1) / Stage::kPositions;
    const unsigned int t = threadIdx.x;
    for (std::size_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        const std::size_t p0 = chunk * Stage::kPositions;
        const auto span = static_cast<unsigned int>(
            length - p0 < static_cast<std::size_t>(Stage::kPositions) ? length - p0 : Stage::kPositions);
        if (kFewRows) stage.load_pieces(in + p0, cols, span, t);
        else stage.load_run(in + p0 * cols, span, t);
        sync_block();
        if (kFewRows) stage.store_run(out + p0 * rows, span, t);
        else stage.store_pieces(out + p0, rows, span, t);
        sync_block(); // the stage is refilled by the next chunk
    }
}

} // namespace gpucore::gpu

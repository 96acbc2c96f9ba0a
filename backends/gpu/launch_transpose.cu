// SPDX-License-Identifier: Apache-2.0
// Launcher of transpose: kernels move raw words of the element's size, so every dtype of one size
// shares one kernel.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "gpu_error.hpp"
#include "grid_limits.hpp"
#include "gpucore/element_types.hpp"
#include "kernels/transpose_bulk_kernel.cuh"
#include "kernels/transpose_kernel.cuh"
#include "kernels/transpose_narrow_bulk_kernel.cuh"
#include "kernels/transpose_narrow_sectors_kernel.cuh"
#include "kernels/transpose_pair_tile_kernel.cuh"
#include "kernels/transpose_pairs_kernel.cuh"
#include "kernels/transpose_realigned_vectors_kernel.cuh"
#include "launch.hpp"
#include "op_slot.hpp"
#include "occupancy.hpp"
#include "tuning_policy.hpp"

namespace gpucore::gpu {
namespace {

// Whether every position of a rows x cols array, and a tile's overhang past its edges, fits 32 bits.
bool small_index(std::size_t rows, std::size_t cols) {
    constexpr std::size_t kMax = std::numeric_limits<std::uint32_t>::max();
    const std::size_t overhang = static_cast<std::size_t>(TuningPolicy::Transpose::kTile);
    return rows < kMax - overhang && cols < kMax - overhang && rows * cols <= kMax;
}

// Whether the realigned-pair kernel's 32-bit positions hold every pair it reads: up to 2 * 32 - 1
// elements past a row's first column of the tile (see transpose_pairs_kernel.cuh).
bool fits_realigned_pairs(std::size_t rows, std::size_t cols) {
    constexpr std::size_t kReach = 2 * RealignedPairMover<TuningPolicy::Transpose::kPairTileRows,
                                                          TuningPolicy::Transpose::kPairBlockRows>::kGroup;
    return small_index(rows, cols) && rows * cols <= std::numeric_limits<std::uint32_t>::max() - kReach;
}

// Compute capability 9.0: the first with the bulk copy engine.
constexpr int kBulkCopyMinArch = 90;

// Whether `p` lies on a boundary of `bytes` bytes.
bool starts_on(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

// Whether some output row of `rows` words of word_bytes each, from `out` on, starts off a sector.
bool output_rows_off_sectors(const void* out, std::size_t rows, std::size_t word_bytes) {
    constexpr std::size_t kSectorBytes = TuningPolicy::Transpose::kSectorBytes;
    return (rows * word_bytes) % kSectorBytes != 0 || !starts_on(out, kSectorBytes);
}

// launch(std::integral_constant<int, kFirst + k>{}) for the k of kOffsets with value == kFirst + k:
// a run-time count among the compile-time ones a kernel is instantiated for. False (nothing
// launched) where none matches or launch returns false.
template <int kFirst, class Launch, std::size_t... kOffsets>
bool launch_for_count(std::size_t value, Launch&& launch, std::index_sequence<kOffsets...>) {
    bool launched = false;
    (void)((value == kFirst + kOffsets &&
            (launched = launch(std::integral_constant<int, kFirst + static_cast<int>(kOffsets)>{}), true)) ||
           ...);
    return launched;
}

// A block per tile of tile_rows x tile_cols input elements, for blocks of block_threads_x threads
// along x, capped at the launch limit (grid_limits.hpp; the kernels stride over the tiles).
unsigned int tile_grid(std::size_t rows, std::size_t cols, std::size_t tile_rows, std::size_t tile_cols,
                       std::size_t block_threads_x) {
    const std::size_t tiles = ((rows + tile_rows - 1) / tile_rows) * ((cols + tile_cols - 1) / tile_cols);
    return capped_grid(tiles, block_threads_x);
}

// Square tiles, a thread per column of a tile along x.
unsigned int tile_grid(std::size_t rows, std::size_t cols, std::size_t tile) {
    return tile_grid(rows, cols, tile, tile, tile);
}

// The bulk-copy kernel with boxes of kBoxRows rows, kStages in flight, where the vendor has the
// engine, the device runs the kernel's sm_90 code, and both arrays qualify for tensor maps; false
// (nothing launched) otherwise.
template <class Word, int kBoxRows, int kStages, int kThreads>
bool transpose_in_boxes(const void* in, void* out, std::size_t rows, std::size_t cols, const LaunchContext& ctx) {
    if constexpr (!GPUCORE_GPU_HAS_BULK_TENSOR_COPY) {
        return false;
    } else {
        constexpr int kInner = BulkTranspose::inner<Word>();
        constexpr std::size_t kShared = BulkTranspose::shared_bytes(kBoxRows, kStages);
        constexpr auto kernel = transpose_bulk_kernel<Word, kBoxRows, kStages, kThreads>;
        if (!kernel_runs_arch<kernel, kShared>(ctx.device, kBulkCopyMinArch)) return false;
        BulkTensorMap in_map{};
        BulkTensorMap out_map{};
        if (!encode_bulk_tensor_map(&in_map, in, cols, rows, sizeof(Word), kInner, kBoxRows) ||
            !encode_bulk_tensor_map(&out_map, out, rows, cols, sizeof(Word), kInner, kInner)) {
            return false;
        }
        const std::size_t tiles = ((cols + kInner - 1) / kInner) * ((rows + kBoxRows - 1) / kBoxRows);
        const unsigned int grid =
            capped_grid(std::min(tiles, resident_blocks_of<kernel, kThreads, kShared>(ctx.device)), kThreads);
        launch_kernel(kernel, grid, kThreads, kShared, ctx.stream, in_map, out_map, rows, cols);
        GPUCORE_GPU_CHECK(last_launch_error());
        return true;
    }
}

// The bulk-copy kernel with the box shape the policy gives this word size and shape.
template <class Word>
bool transpose_with_bulk_copy(const void* in, void* out, std::size_t rows, std::size_t cols,
                              const LaunchContext& ctx) {
    using Policy = TuningPolicy::Transpose;
    if constexpr (sizeof(Word) == 2) { // the only size with small boxes: no other instantiations
        if (Policy::bulk_small_boxes(sizeof(Word), rows, rows * cols * sizeof(Word))) {
            return transpose_in_boxes<Word, Policy::kBulkSmallBoxRows, Policy::kBulkSmallStages,
                                      Policy::kBulkSmallThreads>(in, out, rows, cols, ctx);
        }
    }
    return transpose_in_boxes<Word, Policy::kBulkBoxRows, Policy::kBulkStages, Policy::kBulkThreads>(in, out, rows,
                                                                                                   cols, ctx);
}

// The narrow kernel for the narrow side's chunk scale kSteps, kPack words per access and a long
// side odd or not (see transpose_kernel.cuh).
template <class Word, int kSteps, bool kFewRows, int kPack, bool kOddLong>
void launch_narrow(const Word* in, Word* out, std::size_t rows, std::size_t cols, const LaunchContext& ctx) {
    using Policy = TuningPolicy::Transpose;
    constexpr int kChunk = Policy::narrow_chunk(sizeof(Word), kFewRows, kSteps, kPack);
    constexpr std::size_t kPositions = static_cast<std::size_t>(kPack) * kChunk * kSteps;
    const std::size_t long_side = kFewRows ? cols : rows;
    const unsigned int grid = capped_grid((long_side + kPositions - 1) / kPositions, kChunk);
    launch_kernel(transpose_narrow_kernel<Word, kChunk, Policy::kNarrow, kSteps, kFewRows, kPack, kOddLong>, grid,
                  kChunk, 0, ctx.stream, in, out, rows, cols);
}

template <class Word, bool kFewRows, int kPack, bool kOddLong>
void launch_narrow(const Word* in, Word* out, std::size_t rows, std::size_t cols, std::size_t steps,
                   const LaunchContext& ctx) {
    if (steps >= 8) launch_narrow<Word, 8, kFewRows, kPack, kOddLong>(in, out, rows, cols, ctx);
    else if (steps >= 4) launch_narrow<Word, 4, kFewRows, kPack, kOddLong>(in, out, rows, cols, ctx);
    else if (steps >= 2) launch_narrow<Word, 2, kFewRows, kPack, kOddLong>(in, out, rows, cols, ctx);
    else launch_narrow<Word, 1, kFewRows, kPack, kOddLong>(in, out, rows, cols, ctx);
}

template <class Word, int kPack, bool kOddLong>
void launch_narrow(const Word* in, Word* out, std::size_t rows, std::size_t cols, std::size_t steps,
                   const LaunchContext& ctx) {
    if (rows <= cols) launch_narrow<Word, true, kPack, kOddLong>(in, out, rows, cols, steps, ctx);
    else launch_narrow<Word, false, kPack, kOddLong>(in, out, rows, cols, steps, ctx);
}

// The bulk-copy narrow kernel for a narrow side of kNarrow 2-byte words, pieces off 16 bytes or
// not (kShifted), where the device runs its sm_90 code; false (nothing launched) otherwise.
template <int kNarrow, bool kFewRows, bool kShifted>
bool launch_narrow_bulk(const void* in, void* out, std::size_t length, const LaunchContext& ctx) {
    using Policy = TuningPolicy::Transpose;
    constexpr int kThreads = Policy::kNarrowBulkThreads;
    constexpr std::size_t kShared = NarrowBulk::shared_bytes(Policy::kNarrowBulkStages, kShifted);
    constexpr auto kernel =
        transpose_narrow_bulk_kernel<kNarrow, kThreads, Policy::kNarrowBulkStages, kFewRows, kShifted>;
    if (!kernel_runs_arch<kernel, kShared>(ctx.device, kBulkCopyMinArch)) return false;
    BulkTensorMap run_map{};
    if constexpr (NarrowBulk::swizzled_run(kNarrow)) {
        // The run's array (the output for few rows) as rows of 128 bytes, a box per chunk's run:
        // its whole rows (the kernel moves the rest of a shifted one).
        constexpr std::size_t kRowWords = BulkTranspose::kRowBytes / sizeof(std::uint16_t);
        const std::size_t rows = length * kNarrow / kRowWords;
        if (rows == 0 || !encode_bulk_tensor_map(&run_map, kFewRows ? out : in, kRowWords, rows,
                                                 sizeof(std::uint16_t), kRowWords, NarrowBulk::kRunRows)) {
            return false;
        }
    }
    constexpr std::size_t kPositions = NarrowBulk::positions(kNarrow, sizeof(std::uint16_t));
    const std::size_t chunks = (length + kPositions - 1) / kPositions;
    const unsigned int grid =
        capped_grid(std::min(chunks, resident_blocks_of<kernel, kThreads, kShared>(ctx.device)), kThreads);
    launch_kernel(kernel, grid, kThreads, kShared, ctx.stream, static_cast<const std::uint16_t*>(in),
                  static_cast<std::uint16_t*>(out), length, run_map);
    GPUCORE_GPU_CHECK(last_launch_error());
    return true;
}

// 2-byte narrow shapes through the bulk copy engine, where the vendor has it, the policy takes the
// shape, both arrays start on 16 bytes and every copy starts and ends on them: a long side that is
// a multiple of 8 words, or few rows, 8 or 16 of them, with any long side (the rows then start off
// 16 bytes: the shifted kernel). False (nothing launched) otherwise.
template <class Word>
bool transpose_narrow_in_bulk(const void* in, void* out, std::size_t rows, std::size_t cols,
                              const LaunchContext& ctx) {
    static_assert(sizeof(Word) == 2, "the kernel moves 2-byte words");
    if constexpr (!GPUCORE_GPU_HAS_BULK_TENSOR_COPY) {
        return false;
    } else {
        constexpr std::size_t kCopyBytes = 16;
        constexpr std::size_t kWord = sizeof(Word);
        const bool few_rows = rows <= cols;
        const std::size_t narrow = few_rows ? rows : cols;
        const std::size_t length = few_rows ? cols : rows;
        if (!TuningPolicy::Transpose::narrow_bulk(kWord, rows, cols) || !starts_on(in, kCopyBytes) ||
            !starts_on(out, kCopyBytes)) {
            return false;
        }
        if ((length * kWord) % kCopyBytes != 0) {
            if (!few_rows) return false;
            if (narrow == 8) return launch_narrow_bulk<8, true, true>(in, out, length, ctx);
            if (narrow == 16) return launch_narrow_bulk<16, true, true>(in, out, length, ctx);
            return false;
        }
        constexpr auto kNarrows = std::make_index_sequence<TuningPolicy::Transpose::kNarrow - 1>{}; // 2..kNarrow
        return launch_for_count<2>(
            narrow,
            [&](auto narrow_side) {
                constexpr int kNarrowSide = decltype(narrow_side)::value;
                return few_rows ? launch_narrow_bulk<kNarrowSide, true, false>(in, out, length, ctx)
                                : launch_narrow_bulk<kNarrowSide, false, false>(in, out, length, ctx);
            },
            kNarrows);
    }
}

// The sector-window kernel for kNarrow columns, where the input starts on its loads; false
// (nothing launched) otherwise.
template <class Word, int kNarrow>
bool launch_narrow_sectors(const void* in, void* out, std::size_t rows, const LaunchContext& ctx) {
    using Policy = TuningPolicy::Transpose;
    constexpr int kPositions = Policy::kNarrowSectorsPositions;
    constexpr int kThreads = Policy::narrow_sectors_threads(sizeof(Word));
    if (!starts_on(in, NarrowSectors<Word, kNarrow, kPositions>::kLoadBytes)) return false;
    const std::size_t chunks = (rows + kPositions - 1) / kPositions;
    launch_kernel(transpose_narrow_sectors_kernel<Word, kNarrow, kThreads, kPositions>, capped_grid(chunks, kThreads),
                  kThreads, 0, ctx.stream, static_cast<const Word*>(in), static_cast<Word*>(out), rows);
    GPUCORE_GPU_CHECK(last_launch_error());
    return true;
}

// Few columns where the policy takes the shape: the kernel that writes each output row in windows
// on its sector boundaries. False (nothing launched) otherwise.
template <class Word>
bool transpose_narrow_in_sectors(const void* in, void* out, std::size_t rows, std::size_t cols,
                                 const LaunchContext& ctx) {
    using Policy = TuningPolicy::Transpose;
    static_assert(sizeof(Word) == 2 || sizeof(Word) == 4, "the policy takes 2- and 4-byte words");
    if (!Policy::narrow_sectors(sizeof(Word), rows, cols, output_rows_off_sectors(out, rows, sizeof(Word)))) {
        return false;
    }
    constexpr int kFirst = Policy::narrow_sectors_min_columns(sizeof(Word));
    return launch_for_count<kFirst>(
        cols,
        [&](auto columns) { return launch_narrow_sectors<Word, decltype(columns)::value>(in, out, rows, ctx); },
        std::make_index_sequence<Policy::kNarrow - kFirst + 1>{});
}

// The kernels for a narrow side: kSteps, the largest power of two up to kNarrow / narrow; words in
// pairs where the policy says so and both arrays start on a pair's boundary. False (nothing
// launched) for other shapes.
template <class Word>
bool transpose_narrow(const void* in, void* out, std::size_t rows, std::size_t cols,
                      const LaunchContext& ctx) {
    using Policy = TuningPolicy::Transpose;
    static_assert(Policy::kNarrow == 16, "kSteps below: 1, 2, 4 or 8");
    const std::size_t narrow = std::min(rows, cols);
    if (narrow > static_cast<std::size_t>(Policy::kNarrow)) return false;
    const auto* words_in = static_cast<const Word*>(in);
    auto* words_out = static_cast<Word*>(out);
    const std::size_t steps = static_cast<std::size_t>(Policy::kNarrow) / narrow;
    if constexpr (sizeof(Word) <= 4) {
        if (transpose_narrow_in_sectors<Word>(in, out, rows, cols, ctx)) return true;
    }
    if constexpr (sizeof(Word) == 2) {
        if (transpose_narrow_in_bulk<Word>(in, out, rows, cols, ctx)) return true;
    }
    if constexpr (sizeof(Word) <= 4) { // 8-byte words move one per access
        constexpr std::size_t kPairBytes = 2 * sizeof(Word);
        if (Policy::narrow_pairs(sizeof(Word), rows, cols) && starts_on(in, kPairBytes) && starts_on(out, kPairBytes)) {
            const bool odd_long_side = std::max(rows, cols) % 2 != 0;
            if (odd_long_side) launch_narrow<Word, 2, true>(words_in, words_out, rows, cols, steps, ctx);
            else launch_narrow<Word, 2, false>(words_in, words_out, rows, cols, steps, ctx);
            GPUCORE_GPU_CHECK(last_launch_error());
            return true;
        }
    }
    launch_narrow<Word, 1, false>(words_in, words_out, rows, cols, steps, ctx);
    GPUCORE_GPU_CHECK(last_launch_error());
    return true;
}

// The 2-byte kernel that loads and stores pairs, where the policy takes it and both arrays start on
// the boundaries it needs (`small`: small_index); false (nothing launched) otherwise. kDown: the
// tiles' order (the policy's tiles_down).
template <bool kDown>
bool transpose_in_pair_tiles(const void* in, void* out, std::size_t rows, std::size_t cols, bool small,
                             const LaunchContext& ctx) {
    using Policy = TuningPolicy::Transpose;
    if (!small || !Policy::pair_tiles(2, rows, cols) || !starts_on(in, 4) || !starts_on(out, Policy::kSectorBytes)) {
        return false;
    }
    const auto launch = [&](auto kernel, int block_rows) {
        const std::size_t pair_cols = cols / 2;
        launch_kernel(kernel, tile_grid(rows, pair_cols, Policy::kPairTile, Policy::kPairTile, Policy::kPairTile),
                      dim3(Policy::kPairTile, block_rows), 0, ctx.stream, static_cast<const std::uint32_t*>(in),
                      static_cast<std::uint32_t*>(out), static_cast<std::uint32_t>(rows),
                      static_cast<std::uint32_t>(pair_cols));
    };
    if (rows * cols <= Policy::kTilesFirstMaxElements16) {
        launch(transpose_pair_tile_kernel<Policy::kPairTile, Policy::kPairTileBlockRows, kDown>,
               Policy::kPairTileBlockRows);
    } else {
        launch(transpose_pair_tile_kernel<Policy::kPairTile, Policy::kPairTileBlockRowsLarge, kDown>,
               Policy::kPairTileBlockRowsLarge);
    }
    GPUCORE_GPU_CHECK(last_launch_error());
    return true;
}

// The realigned-vector kernel where the policy takes the array (32-bit positions: the caller
// checks); false (nothing launched) otherwise.
template <class Word, bool kDown>
bool transpose_in_realigned_vectors(const Word* in, Word* out, std::size_t rows, std::size_t cols,
                                    const LaunchContext& ctx) {
    using Policy = TuningPolicy::Transpose;
    if constexpr (sizeof(Word) != 4) { // the policy's only size: no other instantiations
        return false;
    } else {
        if (!Policy::realigned_vectors(sizeof(Word), rows * cols * sizeof(Word))) return false;
        constexpr int kTileRows = Policy::kRealignedVectorTileRows;
        constexpr int kTileCols = Policy::kRealignedVectorTileCols;
        constexpr int kThreads = Policy::kRealignedVectorThreads;
        launch_kernel(
            transpose_realigned_vectors_kernel<Word, kTileRows, kTileCols, kThreads, Policy::kRealignedVectorLanes, kDown>,
            tile_grid(rows, cols, kTileRows, kTileCols, kThreads), kThreads, 0, ctx.stream, in, out,
            static_cast<std::uint32_t>(rows), static_cast<std::uint32_t>(cols));
        return true;
    }
}

// The tile kernel: kSmallTile tiles for small arrays, kTile otherwise; 32-bit positions when every
// element's fits (`small`: small_index). 2-byte arrays with rows off 4-byte pairs or output rows
// off 32-byte sectors take the realigned-pair kernel where the policy says it pays, and large
// 4-byte arrays with output rows off sectors the realigned-vector kernel; other output rows off
// sectors take sector-aligned writes where it says they pay, and 2-byte arrays over
// kSmallTileMaxBytes16 their own block shape. kDown: the tiles' order (the policy's tiles_down).
template <class Word, bool kDown>
void transpose_tiles(const void* in, void* out, std::size_t rows, std::size_t cols, bool small,
                     const LaunchContext& ctx) {
    using Policy = TuningPolicy::Transpose;
    const auto* words_in = static_cast<const Word*>(in);
    auto* words_out = static_cast<Word*>(out);
    const std::size_t bytes = rows * cols * sizeof(Word);
    if (!small) {
        launch_kernel(transpose_kernel<Word, std::size_t, Policy::kTile, Policy::kBlockRows, 0, kDown>,
                      tile_grid(rows, cols, Policy::kTile), dim3(Policy::kTile, Policy::kBlockRows), 0,
                      ctx.stream, words_in, words_out, rows, cols);
        return;
    }
    const auto launch = [&](auto kernel, int tile, int block_rows = Policy::kBlockRows) {
        launch_kernel(kernel, tile_grid(rows, cols, static_cast<std::size_t>(tile)), dim3(tile, block_rows), 0,
                      ctx.stream, words_in, words_out, static_cast<std::uint32_t>(rows),
                      static_cast<std::uint32_t>(cols));
    };
    constexpr int kSectorBytes = Policy::kSectorBytes;
    const bool rows_off_sectors = output_rows_off_sectors(out, rows, sizeof(Word));
    if constexpr (sizeof(Word) == 2) {
        const bool in_off_pairs = cols % 2 != 0 || !starts_on(in, 2 * sizeof(Word));
        if (fits_realigned_pairs(rows, cols) &&
            Policy::realigned_pairs(sizeof(Word), rows, bytes, rows_off_sectors, in_off_pairs)) {
            using Mover = RealignedPairMover<Policy::kPairTileRows, Policy::kPairBlockRows>;
            launch_kernel(transpose_pairs_kernel<Policy::kPairTileRows, Policy::kPairBlockRows, kDown>,
                          tile_grid(rows, cols, Policy::kPairTileRows, Mover::kTileCols, Mover::kGroup),
                          dim3(Mover::kGroup, Policy::kPairBlockRows), 0, ctx.stream, words_in, words_out,
                          static_cast<std::uint32_t>(rows), static_cast<std::uint32_t>(cols));
            return;
        }
    }
    if (rows_off_sectors && Policy::sector_writes(sizeof(Word))) {
        if (bytes <= Policy::kSectorSmallTileMaxBytes) {
            launch(transpose_kernel<Word, std::uint32_t, Policy::kSmallTile, Policy::kBlockRows, kSectorBytes, kDown>,
                   Policy::kSmallTile);
        } else if (!transpose_in_realigned_vectors<Word, kDown>(words_in, words_out, rows, cols, ctx)) {
            launch(transpose_kernel<Word, std::uint32_t, Policy::kTile, Policy::kBlockRows, kSectorBytes, kDown>,
                   Policy::kTile);
        }
    } else if (sizeof(Word) == 2 && bytes > Policy::kSmallTileMaxBytes16) {
        launch(transpose_kernel<Word, std::uint32_t, Policy::kTile, Policy::kBlockRows16, 0, kDown>, Policy::kTile,
               Policy::kBlockRows16);
    } else if (bytes <= Policy::kSmallTileMaxBytes) {
        launch(transpose_kernel<Word, std::uint32_t, Policy::kSmallTile, Policy::kBlockRows, 0, kDown>,
               Policy::kSmallTile);
    } else {
        launch(transpose_kernel<Word, std::uint32_t, Policy::kTile, Policy::kBlockRows, 0, kDown>, Policy::kTile);
    }
}

// The 16-byte vector kernel, tiles in order kDown (the policy's tiles_down).
template <class Word, bool kDown>
void transpose_in_vectors(const void* in, void* out, std::size_t rows, std::size_t cols, const LaunchContext& ctx) {
    using Policy = TuningPolicy::Transpose;
    constexpr std::size_t kTile = Policy::kVectorThreadsX * Pack<Word>::kCount;
    launch_kernel(transpose_vector_kernel<Word, Policy::kVectorThreadsX, Policy::kVectorThreadsY, kDown>,
                  tile_grid(rows, cols, kTile, kTile, Policy::kVectorThreadsX),
                  dim3(Policy::kVectorThreadsX, Policy::kVectorThreadsY), 0, ctx.stream, static_cast<const Word*>(in),
                  static_cast<Word*>(out), rows, cols);
}

template <class Word>
void transpose_words(const void* in, void* out, std::size_t rows, std::size_t cols,
                     const LaunchContext& ctx) {
    using Policy = TuningPolicy::Transpose;
    if (transpose_narrow<Word>(in, out, rows, cols, ctx)) return;
    constexpr std::size_t kVec = Pack<Word>::kCount;
    const bool small = small_index(rows, cols);
    const bool down = Policy::tiles_down(rows * cols * sizeof(Word));
    if constexpr (sizeof(Word) == 2) {
        if (down ? transpose_in_pair_tiles<true>(in, out, rows, cols, small, ctx)
                 : transpose_in_pair_tiles<false>(in, out, rows, cols, small, ctx)) {
            return;
        }
    }
    const auto tiles_first = [&](bool bulk_copy) {
        return small && Policy::small_index_tiles_first(sizeof(Word), rows, cols, bulk_copy);
    };
    if (rows % kVec == 0 && cols % kVec == 0 && starts_on(in, TuningPolicy::kPackBytes) &&
        starts_on(out, TuningPolicy::kPackBytes)) {
        if (!tiles_first(true) && transpose_with_bulk_copy<Word>(in, out, rows, cols, ctx)) return;
        if (!tiles_first(false)) {
            if (down) transpose_in_vectors<Word, true>(in, out, rows, cols, ctx);
            else transpose_in_vectors<Word, false>(in, out, rows, cols, ctx);
            GPUCORE_GPU_CHECK(last_launch_error());
            return;
        }
    }
    if (down) transpose_tiles<Word, true>(in, out, rows, cols, small, ctx);
    else transpose_tiles<Word, false>(in, out, rows, cols, small, ctx);
    GPUCORE_GPU_CHECK(last_launch_error());
}

} // namespace

void launch_transpose(gpucore_dtype dtype, const void* in, void* out, std::size_t rows,
                      std::size_t cols, const LaunchContext& ctx) {
    // Only the element's size matters to a transpose: it moves words of that size.
    const std::size_t word = element_size(dtype);
    if (word != 2 && word != 4 && word != 8) {
        throw GpuError(GPUCORE_ERROR_NOT_SUPPORTED,
                       "transpose: no kernel for dtype " + std::to_string(dtype) + " (" +
                           std::to_string(word) + "-byte elements)");
    }
    if (rows == 0 || cols == 0) return;
    if (rows == 1 || cols == 1) {
        // A single row or column has the same layout transposed: a plain copy.
        GPUCORE_GPU_CHECK(
            gpuMemcpyAsync(out, in, rows * cols * word, gpuMemcpyDefault, ctx.stream));
        return;
    }
    switch (word) {
    case 2: transpose_words<std::uint16_t>(in, out, rows, cols, ctx); return;
    case 4: transpose_words<std::uint32_t>(in, out, rows, cols, ctx); return;
    default: transpose_words<std::uint64_t>(in, out, rows, cols, ctx); return;
    }
}

namespace {

gpucore_status transpose_slot(gpucore_dtype dtype, const void* in, void* out, size_t rows, size_t cols,
                              gpucore_stream stream, gpucore_message* msg) {
    return enqueue_op(stream, msg, [&](const LaunchContext& ctx) {
        launch_transpose(dtype, in, out, rows, cols, ctx);
    });
}

} // namespace

void fill_transpose_slots(gpucore_plugin_api& table) noexcept { table.transpose = transpose_slot; }

} // namespace gpucore::gpu

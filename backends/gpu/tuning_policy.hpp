// SPDX-License-Identifier: Apache-2.0
// Every tuning constant of the GPU kernels, in one place (like CUB's tuning policies). Host code
// sizes launches from these; kernels take them as template parameters, so the benchmark can time
// other values without editing the kernels. Each value is the fastest one timed on an H100/H200;
// the timings, with the alternatives tried, are in BENCHMARKS.md ("The tuning policy's timings").
#pragma once

#include <cstddef>

namespace gpucore::gpu {

struct TuningPolicy {
    // Bytes moved by one vector access: 16 (float4 / double2 / uint4).
    static constexpr int kPackBytes = 16;

    struct VectorAdd {
        static constexpr int kThreads = 256;
        // 16-byte loads in flight per input per thread: more do not raise the bandwidth.
        static constexpr int kPacksPerThread = 1;
        // Grid cap in blocks per SM (0: none, one tile per block): a cap only costs bandwidth.
        static constexpr int kBlocksPerSmCap = 0;
    };
    struct Fill {
        static constexpr int kThreads = 256;
        static constexpr int kBlocksPerSmCap = 0;
    };
    struct Reduce {
        static constexpr int kThreads = 256;
        // Single pass: every block leaves one partial; the last block to finish combines them.
        // Large inputs: packs_per_thread<T>() packs per thread until the GPU holds one full wave of
        // resident blocks (registers counted: resident_blocks_of), at most kMaxBlocks (<= the
        // scratch's partial slots). The launch bound asks for min_blocks_per_sm<T>() blocks per SM:
        // a register budget that keeps every pack's load in flight (reduce_kernel.cuh says why the
        // kernel needs one). 16-bit types widen each pack into twice the float accumulators, so
        // they take fewer packs to leave room for more resident blocks.
        template <class T>
        static constexpr int packs_per_thread() { return sizeof(T) == 2 ? 2 : 4; }
        template <class T>
        static constexpr int min_blocks_per_sm() { return sizeof(T) <= 4 ? 4 : 1; }
        static constexpr int kMaxBlocks = 4096;
        // Small inputs (one launch, latency-bound): one block while each thread has at most
        // kMaxPacksPerThread packs, else the fewest packs per thread that need at most
        // kSmallGridBlocks blocks: past that many blocks, the launch and the last block's combine
        // cost more than the extra bandwidth brings.
        static constexpr std::size_t kMaxPacksPerThread = 8;
        static constexpr std::size_t kSmallGridBlocks = 256;
        // The one block (reduce_one_block_kernel) has kOneBlockThreads threads of
        // kOneBlockPacks packs in flight while that covers the input in one round, else
        // kOneBlockWideThreads of kOneBlockWidePacks: with one block doing all the work, more
        // warps hide more of the loads' latency (BENCHMARKS.md: the single-block shapes timed).
        static constexpr int kOneBlockThreads = 256;
        static constexpr int kOneBlockPacks = 4;
        static constexpr int kOneBlockWideThreads = 1024;
        static constexpr int kOneBlockWidePacks = 2;
        static_assert(static_cast<std::size_t>(kOneBlockWideThreads) * kOneBlockWidePacks >=
                          static_cast<std::size_t>(kThreads) * kMaxPacksPerThread,
                      "the wide block covers every one-block input in one round");
    };
    struct ReduceRows {
        // Rows up to kSubWarpMaxCols columns go to logical sub-warps (several rows per warp):
        //  - up to kSubWarpLanePerElementMaxCols columns, one lane per element (the width is the
        //    next power of two of the columns);
        //  - up to kSubWarpNarrowMaxCols, kSubWarpNarrowWidth lanes, each taking
        //    sub_warp_narrow_per_lane(cols, element bytes) elements, strided;
        //  - longer ones, kSubWarpWideWidth lanes of kSubWarpMaxPerLane elements.
        // Fewer, fuller lanes mean fewer shuffles per row and more loads in flight per lane.
        // Kernels exist for one element per lane at widths 1..kSubWarpMaxWidth and for 2..
        // kSubWarpMaxPerLane elements per lane at widths kSubWarpStridedMinWidth..
        // kSubWarpStridedMaxWidth; every GPU we target has a hardware warp at least that wide.
        static constexpr int kSubWarpMaxCols = 64;
        static constexpr int kSubWarpLanePerElementMaxCols = 4;
        static constexpr int kSubWarpNarrowMaxCols = 32;
        static constexpr int kSubWarpNarrowWidth = 4;
        // Elements per lane of the narrow sub-warps: rows of 5-8, 9-16 and 17-32 columns (the
        // first index) of 2-, 4- and 8-byte elements (the second).
        static constexpr int kSubWarpNarrowPerLane[3][3] = {{2, 2, 4}, {4, 8, 8}, {8, 8, 8}};
        static constexpr int sub_warp_narrow_per_lane(std::size_t cols, std::size_t element_bytes) {
            const int band = cols <= 8 ? 0 : cols <= 16 ? 1 : 2;
            const int size = element_bytes <= 2 ? 0 : element_bytes <= 4 ? 1 : 2;
            return kSubWarpNarrowPerLane[band][size];
        }
        static constexpr int kSubWarpWideWidth = 8;
        static constexpr int kSubWarpMaxWidth = 32;
        static constexpr int kSubWarpMaxPerLane = 8;
        static constexpr int kSubWarpStridedMinWidth = 4;
        static constexpr int kSubWarpStridedMaxWidth = 16;
        static constexpr int kSubWarpThreads = 256;
        // The sub-warp grid is the resident blocks (each group loops over rows), except for at
        // least kSubWarpWholeGridMinRows rows of at least kSubWarpWholeGridMinRowBytes bytes (f32
        // from 50 columns, f64 from 25): there a block per rows_per_block_pass rows is faster
        // (BENCHMARKS.md: the whole sub-warp grid for many rows of 200 bytes or more).
        static constexpr std::size_t kSubWarpWholeGridMinRows = std::size_t{1} << 20;
        static constexpr std::size_t kSubWarpWholeGridMinRowBytes = 200;
        static constexpr bool sub_warp_whole_grid(std::size_t rows, std::size_t row_bytes) {
            return rows >= kSubWarpWholeGridMinRows && row_bytes >= kSubWarpWholeGridMinRowBytes;
        }
        // Loads each lane issues before reducing: rows in flight = this / elements per lane.
        static constexpr int kSubWarpLoadsInFlight = 8;
        static constexpr int sub_warp_rows_in_flight(int per_lane) {
            return per_lane >= kSubWarpLoadsInFlight ? 1 : kSubWarpLoadsInFlight / per_lane;
        }
        // Rows up to kWarpRowMaxCols columns get one warp each when there are at least
        // kWarpRowMinRowsPerSm rows per SM; rows up to kWarpRowLongMaxCols columns, when there are
        // at least kWarpRowLongMinRowsPerSm (fewer long rows fill the GPU better as blocks).
        static constexpr std::size_t kWarpRowMaxCols = 2048;
        static constexpr std::size_t kWarpRowMinRowsPerSm = 4;
        static constexpr std::size_t kWarpRowLongMaxCols = 16384;
        static constexpr std::size_t kWarpRowLongMinRowsPerSm = 8;
        static constexpr int kWarpRowThreads = 256;
        // Packs each lane keeps in flight: kWarpRowPacksPerThread, or kWarpRowKiBRowPacks on rows
        // of 1, 2 or 4 KiB (up to kWarpRowKiBRowMaxBytes), on every row of 1 KiB or more of
        // elements of at least kWarpRowDeepElementBytes, and on rows of 1 KiB up to
        // kWarpRowDeepMaxBytes4 (4-byte elements) or under kWarpRowDeepMaxBytes2 (2-byte ones):
        // where that kernel is the faster or the steadier one (BENCHMARKS.md, the sweep's
        // reduce_rows plans; short tiles for rows of 2 to 16 KiB: 4-byte rows of 1040 to 1400
        // bytes 28-34 % faster, 2-byte ones 10-20 %, while 2-byte rows of 1536 to 2040 bytes were
        // up to 4 % slower).
        static constexpr int kWarpRowPacksPerThread = 2;
        static constexpr int kWarpRowKiBRowPacks = 4;
        static constexpr std::size_t kWarpRowKiBRowMinBytes = 1024;
        static constexpr std::size_t kWarpRowKiBRowMaxBytes = 4096;
        static constexpr std::size_t kWarpRowDeepElementBytes = 8;
        static constexpr std::size_t kWarpRowDeepMaxBytes4 = 2048;
        static constexpr std::size_t kWarpRowDeepMaxBytes2 = 1536; // exclusive
        static constexpr bool warp_row_deep(std::size_t row_bytes, std::size_t element_bytes) {
            if (row_bytes < kWarpRowKiBRowMinBytes) return false;
            const bool kib_row = row_bytes <= kWarpRowKiBRowMaxBytes && (row_bytes & (row_bytes - 1)) == 0;
            return kib_row || element_bytes >= kWarpRowDeepElementBytes ||
                   (element_bytes == 4 && row_bytes <= kWarpRowDeepMaxBytes4) ||
                   (element_bytes == 2 && row_bytes < kWarpRowDeepMaxBytes2);
        }
        // Rows of at least kLeanRowMinBytes, and any row that a warp-per-row rule above does not
        // take, unless the split rules below split it: one block per row of kLeanRowThreads
        // threads (reduce_rows_lean_kernel), each keeping kLeanRowPacks packs in flight into one
        // pack of accumulators, with a launch bound of kLeanRowMinBlocksPerSm blocks per SM (64
        // registers). Many small resident blocks with deep loads keep more bytes in flight than a
        // warp per row or a 256-thread block per row (BENCHMARKS.md: the lean row blocks).
        static constexpr int kLeanRowThreads = 128;
        static constexpr int kLeanRowPacks = 8;
        static constexpr int kLeanRowMinBlocksPerSm = 8;
        static constexpr std::size_t kLeanRowMinBytes = 8192;
        // Lean rows of kShortLeanMinBytes to kLeanMidRowMaxBytes but those of exactly
        // kLeanRowMinBytes: blocks of kLeanMidRowThreads, kLeanMidRowMinBlocksPerSm per SM (the same
        // registers, twice the blocks of half the size). Faster at 4 to 20 KiB for every element
        // size timed, by up to 17 % on 4 KiB rows, while on rows of exactly 8 KiB (up to 9 %, 2-byte
        // elements) and on rows of 24 KiB and more the 128-thread blocks are faster (BENCHMARKS.md:
        // lean blocks of 64 threads for rows of 12 to 20 KiB; short tiles for rows of 2 to 16 KiB).
        static constexpr int kLeanMidRowThreads = 64;
        static constexpr int kLeanMidRowMinBlocksPerSm = 16;
        static constexpr std::size_t kLeanMidRowMaxBytes = 20 << 10;
        // Fewer lean rows than kLeanWideRowMaxRowsPerSm per SM, of at least kLeanWideRowMinBytes:
        // blocks of kLeanWideRowThreads, kLeanWideRowMinBlocksPerSm per SM: more loads in flight
        // per row where the rows leave SMs short of blocks (BENCHMARKS.md: lean blocks of 256
        // threads for few long rows).
        static constexpr int kLeanWideRowThreads = 256;
        static constexpr int kLeanWideRowMinBlocksPerSm = 4;
        static constexpr std::size_t kLeanWideRowMaxRowsPerSm = 4;
        static constexpr std::size_t kLeanWideRowMinBytes = 64 << 10;
        // Rows of kLeanWideRowAnyRowsMinBytes or more take those blocks however many they are: level
        // with the 128-thread and tile blocks or up to 3 % faster at every such row timed.
        static constexpr std::size_t kLeanWideRowAnyRowsMinBytes = 128 << 10;
        // Rows that neither the short tiles nor the tile blocks take (2-byte elements, rows of part
        // packs, inputs off 16 bytes), from kShortLeanMinBytes up to kLeanRowMinBytes, many rows or
        // few: lean blocks (of kLeanMidRowThreads), 2-17 % faster than a warp per row at every such
        // row timed (BENCHMARKS.md: short tiles for rows of 2 to 16 KiB).
        static constexpr std::size_t kShortLeanMinBytes = 4096;
        static constexpr bool short_lean_row(std::size_t row_bytes) {
            return row_bytes >= kShortLeanMinBytes && row_bytes < kLeanRowMinBytes;
        }
        static constexpr int lean_row_threads(std::size_t rows, std::size_t row_bytes, std::size_t sms) {
            if ((rows < sms * kLeanWideRowMaxRowsPerSm && row_bytes >= kLeanWideRowMinBytes) ||
                row_bytes >= kLeanWideRowAnyRowsMinBytes) {
                return kLeanWideRowThreads;
            }
            return row_bytes >= kShortLeanMinBytes && row_bytes <= kLeanMidRowMaxBytes && row_bytes != kLeanRowMinBytes
                       ? kLeanMidRowThreads
                       : kLeanRowThreads;
        }
        // Unsplit rows of whole packs of 4- or 8-byte elements, of at least kTileRowMinBytes, outside
        // the few-long-rows rule above: the tile blocks (reduce_rows_tile_kernel), kTileRowThreads
        // threads loading kTileRowPacks packs each per tile. Their few registers fill every SM's
        // threads: level with CUB's segmented sum at 16 KiB to 64 KiB rows where the lean blocks
        // were 1-3 % behind it; on 12 KiB rows the lean blocks stay faster. 2-byte elements were not
        // timed in them (BENCHMARKS.md: the tile blocks for long rows).
        static constexpr int kTileRowThreads = 256;
        static constexpr int kTileRowPacks = 8;
        static constexpr std::size_t kTileRowMinBytes = 16 << 10;
        static constexpr std::size_t kTileRowMinElementBytes = 4;
        static constexpr std::size_t kTileRowMaxPacks = std::size_t{1} << 31; // 32-bit positions
        // Rows the tile kernel can take (from a 16-byte boundary: the launcher checks the input).
        static constexpr bool tile_row_fits(std::size_t row_bytes, std::size_t element_bytes) {
            constexpr auto kPack = static_cast<std::size_t>(kPackBytes);
            return element_bytes >= kTileRowMinElementBytes && row_bytes % kPack == 0 &&
                   row_bytes / kPack < kTileRowMaxPacks;
        }
        static constexpr bool tile_row(std::size_t row_bytes, std::size_t element_bytes) {
            return row_bytes >= kTileRowMinBytes && tile_row_fits(row_bytes, element_bytes);
        }
        // Rows the tile kernel can take, over kShortTileMinBytes and under kTileRowMinBytes, many or
        // few: the short tiles, tile blocks whose last, partial tile keeps all its loads in flight
        // (kTailInFlight). kShortTilePacks packs a thread on kShortTileNarrowThreads threads up to
        // kShortTileNarrowMaxBytes (kShortTileNarrowMaxBytes8 for 8-byte elements); above that,
        // 4-byte elements take kShortTileMidThreads threads up to kShortTileMidMaxBytes and
        // kShortTileWideThreads beyond, 8-byte ones kShortTileMidThreads threads of
        // kShortTilePacks8 packs (more threads of 4 packs lose to their 38 registers there). 8-byte
        // rows of exactly kLeanRowMinBytes keep the lean blocks (1-2 % faster). Faster than the
        // warp-per-row and lean kernels at every such row timed but a few, by up to 7 % (f64 rows of
        // 3600 bytes), and level with CUB's segmented sum (0.99 at worst) or faster (BENCHMARKS.md:
        // short tiles for rows of 2 to 16 KiB).
        static constexpr int kShortTilePacks = 4;
        static constexpr int kShortTilePacks8 = 2;
        static constexpr int kShortTileNarrowThreads = 64;
        static constexpr int kShortTileMidThreads = 128;
        static constexpr int kShortTileWideThreads = 256;
        static constexpr std::size_t kShortTileMinBytes = 2048; // exclusive
        static constexpr std::size_t kShortTileNarrowMaxBytes = 3072;
        static constexpr std::size_t kShortTileNarrowMaxBytes8 = 5120;
        static constexpr std::size_t kShortTileMidMaxBytes = 6144;
        static constexpr bool short_tile_row(std::size_t row_bytes, std::size_t element_bytes) {
            if (element_bytes >= 8 && row_bytes == kLeanRowMinBytes) return false;
            return row_bytes > kShortTileMinBytes && row_bytes < kTileRowMinBytes && tile_row_fits(row_bytes, element_bytes);
        }
        static constexpr bool short_tile_narrow(std::size_t row_bytes, std::size_t element_bytes) {
            return row_bytes <= (element_bytes >= 8 ? kShortTileNarrowMaxBytes8 : kShortTileNarrowMaxBytes);
        }
        static constexpr int short_tile_packs(std::size_t row_bytes, std::size_t element_bytes) {
            return element_bytes >= 8 && !short_tile_narrow(row_bytes, element_bytes) ? kShortTilePacks8
                                                                                    : kShortTilePacks;
        }
        static constexpr int short_tile_threads(std::size_t row_bytes, std::size_t element_bytes) {
            if (short_tile_narrow(row_bytes, element_bytes)) return kShortTileNarrowThreads;
            return element_bytes >= 8 || row_bytes <= kShortTileMidMaxBytes ? kShortTileMidThreads
                                                                              : kShortTileWideThreads;
        }
        // Rows of 8 KiB and more that are not whole packs (row starts at differing alignments) of
        // elements under kLeanRowUnevenMinElementBytes keep the warp-per-row rules (there a warp per
        // row is the faster kernel), except rows of 4-byte elements up to kLeanMidRowMaxBytes: lean
        // blocks are level with a warp per row at 8 KiB and 5-7 % faster at 12 and 20 KiB.
        static constexpr std::size_t kLeanRowUnevenMinElementBytes = 8;
        static constexpr bool lean_row(std::size_t row_bytes, std::size_t element_bytes, bool whole_packs) {
            if (short_lean_row(row_bytes)) return true;
            if (row_bytes < kLeanRowMinBytes) return false;
            return whole_packs || element_bytes >= kLeanRowUnevenMinElementBytes ||
                   (element_bytes == 4 && row_bytes <= kLeanMidRowMaxBytes);
        }
        // Longer rows too few to fill the GPU: the split kernel, blocks of kBlockThreads, several
        // per row (with a per-row ticket), with as many packs in flight as the flat reduce.
        static constexpr int kBlockThreads = 256;
        static constexpr int kSplitPacksPerThread = 4;
        // Split target where the occupancy of the split kernel is not known (plan tests); the
        // launcher passes the kernel's real one-wave size (rows_split_wave_blocks).
        static constexpr int kSplitTargetBlocksPerSm = 8;
        static constexpr std::size_t kMinSplitElementsPerThread = 64;
        // Long rows that one wave holds unsplit but too few to give every SM
        // kLongRowSplitMaxRowsPerSm blocks: split as well, into pieces of kLongRowSplitElements,
        // at most kLongRowMaxSplit per row (several waves of split blocks keep more loads in
        // flight than one block per row); rows too short for that take the lean blocks.
        static constexpr std::size_t kLongRowSplitMaxRowsPerSm = 2;
        static constexpr std::size_t kLongRowSplitElements = std::size_t{1} << 18;
        static constexpr std::size_t kLongRowMaxSplit = 4;
        // Neither split rule applies to rows that fill enough SMs, one block each: at least
        // kUnsplitQuarterSms[i] / 4 rows per SM for rows up to kUnsplitMaxRowBytes[i], and
        // kUnsplitQuarterSms[3] / 4 for longer ones. The wide lean blocks there are up to 19 %
        // faster than the split ones, while with fewer rows, or longer ones, the split is faster
        // (BENCHMARKS.md: few long rows unsplit).
        static constexpr std::size_t kUnsplitMaxRowBytes[3] = {256 << 10, 512 << 10, 2 << 20};
        static constexpr std::size_t kUnsplitQuarterSms[4] = {2, 3, 4, 5};
        static constexpr bool unsplit_rows(std::size_t rows, std::size_t row_bytes, std::size_t sms) {
            std::size_t band = 0;
            while (band < 3 && row_bytes > kUnsplitMaxRowBytes[band]) ++band;
            return rows * 4 >= sms * kUnsplitQuarterSms[band];
        }
    };
    struct Transpose {
        // Any shape: kTile x kTile tiles, kTile x kBlockRows threads, each moving kTile/kBlockRows
        // elements (the fastest shape timed).
        static constexpr int kTile = 64;
        static constexpr int kBlockRows = 8;
        // Arrays of at most kSmallTileMaxBytes: kSmallTile x kSmallTile tiles, kSmallTile x
        // kBlockRows threads (four times the blocks, for arrays that do not fill the GPU: faster
        // up to 16 MiB, f32 2048^2 included, while at f32 4096^2 64 x 64 tiles are; BENCHMARKS.md,
        // sector-aligned transpose writes). 2-byte elements take them up to kSmallTileMaxBytes16.
        static constexpr int kSmallTile = 32;
        static constexpr std::size_t kSmallTileMaxBytes = std::size_t{16} << 20;
        static constexpr std::size_t kSmallTileMaxBytes16 = std::size_t{4} << 20;
        // Output rows that do not start on kSectorBytes boundaries: the tile kernel's
        // sector-aligned writes, for 4- and 8-byte elements (2-byte ones were not faster with
        // them), with kSmallTile tiles up to kSectorSmallTileMaxBytes (BENCHMARKS.md:
        // sector-aligned transpose writes).
        static constexpr int kSectorBytes = 32;
        static constexpr std::size_t kSectorSmallTileMaxBytes = std::size_t{32} << 20;
        static constexpr bool sector_writes(std::size_t word_bytes) { return word_bytes >= 4; }
        // 4-byte elements whose output rows start off sectors, over kSectorSmallTileMaxBytes: the
        // realigned-vector kernel (transpose_realigned_vectors_kernel.cuh), tiles of
        // kRealignedVectorTileRows x kRealignedVectorTileCols, kRealignedVectorThreads threads in
        // groups of kRealignedVectorLanes per output row: the fastest shape timed (8191 x 8193 0.91
        // of a copy against the 64-word tiles' 0.83, 16383 x 16385 0.88 against 0.76, 2500 x 4001
        // (38 MiB) 0.96-0.98 against 0.91). Smaller arrays were faster with the small tiles (2000 x
        // 3001 1.09 against 1.00). 2-byte words ran at a quarter of their other kernels' speed in it,
        // 8-byte ones at 0.84-0.91 of a copy against 0.94-1.02 (BENCHMARKS.md: realigned vectors).
        static constexpr int kRealignedVectorTileRows = 128;
        static constexpr int kRealignedVectorTileCols = 32;
        static constexpr int kRealignedVectorThreads = 256;
        static constexpr int kRealignedVectorLanes = 8;
        static constexpr bool realigned_vectors(std::size_t word_bytes, std::size_t bytes) {
            return word_bytes == 4 && bytes > kSectorSmallTileMaxBytes;
        }
        // 2-byte elements whose output rows start off sectors, over kRealignedPairsMinBytes, or
        // whose input rows start off 4-byte pairs, over kRealignedPairsMinBytesInputOnly: the
        // realigned-pair kernel (transpose_pairs_kernel.cuh), tiles of kPairTileRows rows, 32 x
        // kPairBlockRows threads, for arrays of at least kPairMinRows rows. Faster there (8191 x
        // 8193 0.87 of a copy against 0.76, 3001 x 2001 0.97 against 0.85, 8192 x 8193 0.88
        // against 0.78); smaller arrays, inputs off pairs of up to 32 MiB with outputs on sectors
        // (1024 x 8193 0.95 against 1.00) and fewer rows (33 x 300007 0.30 against 0.71) were
        // faster with the tile kernel (BENCHMARKS.md: 2-byte transposes of odd shapes in
        // realigned pairs).
        static constexpr int kPairTileRows = 128;
        static constexpr int kPairBlockRows = 8;
        static constexpr std::size_t kPairMinRows = 64;
        static constexpr std::size_t kRealignedPairsMinBytes = std::size_t{8} << 20;
        static constexpr std::size_t kRealignedPairsMinBytesInputOnly = std::size_t{32} << 20;
        static constexpr bool realigned_pairs(std::size_t word_bytes, std::size_t rows, std::size_t bytes,
                                              bool out_off_sectors, bool in_off_pairs) {
            if (word_bytes != 2 || rows < kPairMinRows) return false;
            return (out_off_sectors && bytes > kRealignedPairsMinBytes) ||
                   (in_off_pairs && bytes > kRealignedPairsMinBytesInputOnly);
        }
        // 2-byte elements in pairs both ways (transpose_pair_tile_kernel.cuh): tiles of kPairTile
        // input rows x kPairTile pairs, kPairTile x kPairTileBlockRows threads. For arrays on 4-byte
        // boundaries with even columns, output rows on sectors (so even rows), 32-bit positions,
        // at least kPairTilesMinElements elements, kPairTile rows and kPairTilesMinCols columns
        // (narrower tiles are half empty: 2^20 x 64 read 0.78 of a copy against the bulk-copy
        // kernel's 0.87). Up to kTilesFirstMaxElements16 elements they beat the tile kernel
        // (2048^2 0.93 against 0.85). Over it they beat the bulk-copy kernel only for fewer than
        // kBulkBoxRows rows, at least kPairTilesTallRatio rows per column (2^6 x 2^20 0.96
        // against 0.91, 2^17 x 2^9 0.90 against 0.86) or at least kPairTilesOverBulkMinBytes:
        // there, with the tiles down the columns, 16384^2 read 0.96 against 0.88, 4096 x 8192 0.94
        // against 0.90, but 4608 x 4096 (36 MiB) 0.88 against 0.91. Over kTilesFirstMaxElements16
        // elements kPairTileBlockRowsLarge block rows are faster (BENCHMARKS.md: 2-byte transposes
        // in pair tiles; tiles down the columns).
        static constexpr int kPairTile = 64;
        static constexpr int kPairTileBlockRows = 8;
        static constexpr int kPairTileBlockRowsLarge = 4;
        static constexpr std::size_t kPairTilesMinElements = std::size_t{1} << 20;
        static constexpr std::size_t kPairTilesMinCols = 128;
        static constexpr std::size_t kPairTilesTallRatio = 64;
        static constexpr std::size_t kPairTilesOverBulkMinBytes = std::size_t{64} << 20;
        static constexpr bool pair_tiles(std::size_t word_bytes, std::size_t rows, std::size_t cols) {
            const std::size_t elements = rows * cols;
            if (word_bytes != 2 || cols % 2 != 0 || (rows * word_bytes) % kSectorBytes != 0 ||
                elements < kPairTilesMinElements || rows < static_cast<std::size_t>(kPairTile) ||
                cols < kPairTilesMinCols) {
                return false;
            }
            return elements <= kTilesFirstMaxElements16 || rows < static_cast<std::size_t>(kBulkBoxRows) ||
                   rows >= kPairTilesTallRatio * cols || elements * word_bytes >= kPairTilesOverBulkMinBytes;
        }
        // Rows and columns multiples of the vector width (16 bytes): 16-byte loads and stores,
        // tiles of kVectorThreadsX * width elements (the fastest shape timed).
        static constexpr int kVectorThreadsX = 8;
        static constexpr int kVectorThreadsY = 4;
        // Same shapes on sm_90+ (CUDA): the bulk tensor copy engine moves boxes of 128-byte rows
        // (transpose_bulk_kernel.cuh); kBulkBoxRows rows per box, kBulkStages boxes in flight per
        // block: the box shape that stays ahead of the vector kernel at every size timed.
        static constexpr int kBulkBoxRows = 128;
        static constexpr int kBulkStages = 2;
        static constexpr int kBulkThreads = 256;
        // 2-byte arrays of at most kBulkSmallBoxMaxBytes16, or of fewer than kBulkBoxRows rows:
        // boxes of kBulkSmallBoxRows rows (one output box each), kBulkSmallStages in flight,
        // kBulkSmallThreads threads. Faster there, slower on larger arrays of more rows
        // (BENCHMARKS.md: 2-byte transposes in boxes of 64 rows).
        static constexpr int kBulkSmallBoxRows = 64;
        static constexpr int kBulkSmallStages = 4;
        static constexpr int kBulkSmallThreads = 128;
        static constexpr std::size_t kBulkSmallBoxMaxBytes16 = std::size_t{32} << 20;
        static constexpr bool bulk_small_boxes(std::size_t word_bytes, std::size_t rows, std::size_t bytes) {
            return word_bytes == 2 &&
                   (rows < static_cast<std::size_t>(kBulkBoxRows) || bytes <= kBulkSmallBoxMaxBytes16);
        }
        // Arrays of fewer than 2^32 elements move with 32-bit positions in the tile kernel; for
        // 4- and 8-byte elements that kernel is faster than the vector and bulk-copy kernels even
        // where those apply (BENCHMARKS.md: the transposes with 32-bit positions). For 2-byte
        // ones it is up to kTilesFirstMaxElements16 elements, and for fewer rows than the bulk-copy
        // kernel's smallest box (kBulkSmallBoxRows), or than kBulkBoxRows where the engine does not
        // run the shape (`bulk_copy` false: the vector kernel was never timed on fewer rows).
        // 2-byte arrays over kSmallTileMaxBytes16 take the tile kernel with kBlockRows16 block rows,
        // any shape (BENCHMARKS.md: sector-aligned transpose writes; 2-byte transposes off sectors).
        static constexpr std::size_t kTilesFirstMaxElements16 = std::size_t{1} << 22;
        static constexpr bool small_index_tiles_first(std::size_t word_bytes, std::size_t rows, std::size_t cols,
                                                      bool bulk_copy) {
            const std::size_t min_rows = static_cast<std::size_t>(bulk_copy ? kBulkSmallBoxRows : kBulkBoxRows);
            return word_bytes >= 4 || rows * cols <= kTilesFirstMaxElements16 || rows < min_rows;
        }
        static constexpr int kBlockRows16 = 4;
        // Arrays of at least kTilesDownMinBytes take their tiles down the columns of tiles (the
        // tile, vector, pair-tile and realigned-pair kernels; tiles_per_line in transpose_kernel.cuh):
        // f32 16384^2 0.93 -> 0.96 of a copy, f32 5003 x 3001 (57 MiB) 0.87 -> 0.89, f16 16384^2
        // in pair tiles 0.97 against 0.89 in rows of tiles. Smaller arrays keep rows of tiles:
        // down the columns they were 1-7 % slower (f32 1000 x 777 5.63 -> 5.89 us, f16 5003 x
        // 3001 (29 MiB) 21.6 -> 22.6 us; BENCHMARKS.md: tiles down the columns).
        static constexpr std::size_t kTilesDownMinBytes = std::size_t{48} << 20;
        static constexpr bool tiles_down(std::size_t bytes) { return bytes >= kTilesDownMinBytes; }
        // Shapes with at most kNarrow rows or columns: runs of pack * narrow_chunk() * steps
        // positions of the long side staged through shared memory (transpose_narrow_kernel),
        // narrow_chunk() threads per block. One word per access (pack 1): 128, except 256 for the
        // widest narrow sides (steps 1) of few 2- or 4-byte rows. Pairs (pack 2): 2-byte words 128
        // for few rows, 64 for few columns; 4-byte words 64 for few rows, 128 for few columns.
        // The fastest at every narrow side and direction timed (BENCHMARKS.md: sector-aligned
        // transpose writes; 2-byte narrow transposes in pairs; narrow transposes in pairs of words
        // for any long side).
        static constexpr int kNarrow = 16;
        static constexpr int narrow_chunk(std::size_t word_bytes, bool few_rows, int steps, int pack) {
            if (pack == 2) return (word_bytes == 2) == few_rows ? 128 : 64;
            return few_rows && steps == 1 && word_bytes <= 4 ? 256 : 128;
        }
        // Whether a narrow transpose moves pairs of words per access (the launcher also needs both
        // arrays on a pair's boundary): 2-byte words with an even long side; 2-byte words with an
        // odd long side and 4-byte words in arrays over kNarrowPairsMinBytes, of few rows or of
        // at most kNarrowPairsMaxColumns columns. Below that size, and for 9-16 columns, single
        // words were faster.
        static constexpr std::size_t kNarrowPairsMinBytes = std::size_t{8} << 20;
        static constexpr std::size_t kNarrowPairsMaxColumns = 8;
        static constexpr bool narrow_pairs(std::size_t word_bytes, std::size_t rows, std::size_t cols) {
            if (word_bytes == 2 && (rows <= cols ? cols : rows) % 2 == 0) return true;
            if (word_bytes > 4 || rows * cols * word_bytes <= kNarrowPairsMinBytes) return false;
            return rows <= cols || cols <= kNarrowPairsMaxColumns;
        }
        // Few columns in arrays of at least kNarrowSectorsMinBytes move through
        // transpose_narrow_sectors_kernel.cuh (kNarrowSectorsPositions rows per block step,
        // narrow_sectors_threads() threads, the input on the kernel's loads: the launcher checks):
        // 4-byte words of 9 to kNarrow columns, and 2-byte words of 8 to kNarrow columns whose
        // output rows are off 32-byte sectors (a long side off a sector's words, or an output
        // inside a sector) or of 12 or 16 columns (rows of whole 8-byte loads; 8 columns on sectors
        // were level with the bulk copy engine, 0.93-0.95 of a copy against 0.93-0.94). Its stores
        // are whole sectors where the other narrow kernels leave partial ones at each piece's ends:
        // f16 4194305 x 16 0.99 of a copy against 0.69-0.71, 4194305 x 9 0.88-0.89 against 0.60; on
        // sectors f16 4194304 x 16 0.94 against 0.89-0.90 (the bulk copy engine), f32 4194304 x 9
        // 0.92-0.93 against 0.85-0.86. Rows on sectors of 2-byte words in 2-byte loads (9 columns:
        // 0.80-0.82 against 0.94-0.96), narrower sides (2-byte 4 columns 0.76 against 0.90, 4-byte
        // 8 columns 0.95 against 0.97) and 8-byte words (2097153 x 16 0.75) were slower; smaller
        // arrays were not timed (BENCHMARKS.md: few columns through sector windows).
        static constexpr int kNarrowSectorsPositions = 256;
        static constexpr std::size_t kNarrowSectorsMinBytes = std::size_t{8} << 20;
        static constexpr int narrow_sectors_threads(std::size_t word_bytes) { return word_bytes == 2 ? 128 : 256; }
        static constexpr int narrow_sectors_min_columns(std::size_t word_bytes) { return word_bytes == 2 ? 8 : 9; }
        static constexpr bool narrow_sectors(std::size_t word_bytes, std::size_t rows, std::size_t cols,
                                             bool rows_off_sectors) {
            if (cols >= rows || cols > static_cast<std::size_t>(kNarrow) ||
                rows * cols * word_bytes < kNarrowSectorsMinBytes) {
                return false;
            }
            if (word_bytes != 2 && word_bytes != 4) return false;
            if (cols < static_cast<std::size_t>(narrow_sectors_min_columns(word_bytes))) return false;
            return word_bytes == 4 || rows_off_sectors || cols == 12 || cols == 16;
        }
        // On sm_90+ (CUDA) 2-byte narrow shapes move through the bulk copy engine
        // (transpose_narrow_bulk_kernel.cuh), kNarrowBulkThreads threads and kNarrowBulkStages
        // chunks in flight per block, where the long side is a multiple of 8 and both arrays
        // start on 16 bytes (the launcher checks): every narrow side of few rows, and of few
        // columns 5 or more, or any up to kNarrowBulkSmallBytes. Faster there (9 x 2^22 0.93 of a
        // copy against 0.65, 2^22 x 9 0.92 against 0.71, 16 x 2^22 0.94 against 0.82); level or
        // slower for 2, 3 and 4 columns of larger arrays (BENCHMARKS.md: narrow transposes
        // through the bulk copy engine). Also 8 or 16 rows of any long side, the rows then off 16
        // bytes (16 x 4194305 0.90 of a copy against 0.69, 8 x 8388609 0.92 against 0.69). 8 or
        // 16 columns of such a long side stay on the thread-staged kernels: shifted output rows,
        // stored by the threads or by the engine in whole 16-byte chunks, were slower at 16
        // columns (4194305 x 16 0.57-0.72 against 0.70) and at most 3 % faster at 8 (8388609 x 8
        // 0.71-0.88 against 0.85; BENCHMARKS.md: narrow transposes of a long side off 16 bytes).
        static constexpr int kNarrowBulkThreads = 128;
        static constexpr int kNarrowBulkStages = 4;
        static constexpr std::size_t kNarrowBulkSmallBytes = std::size_t{8} << 20;
        static constexpr int kNarrowBulkMinColumns = 5;
        static constexpr bool narrow_bulk(std::size_t word_bytes, std::size_t rows, std::size_t cols) {
            const std::size_t narrow = rows <= cols ? rows : cols;
            if (word_bytes != 2 || narrow < 2 || narrow > static_cast<std::size_t>(kNarrow)) return false;
            return rows <= cols || rows * cols * word_bytes <= kNarrowBulkSmallBytes ||
                   narrow >= static_cast<std::size_t>(kNarrowBulkMinColumns);
        }
    };
    // Per-stream scratch owned by the plugin: partials and tickets of the single-pass kernels.
    struct Scratch {
        static constexpr std::size_t kPartialSlots = 8192; // 8-byte slots
        static constexpr std::size_t kTicketSlots = 1024;  // 32-bit counters, kept at 0 between runs
    };
};

} // namespace gpucore::gpu

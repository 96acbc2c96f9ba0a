// SPDX-License-Identifier: Apache-2.0
// Every tuning constant of the GPU kernels, in one place (like CUB's tuning policies). Host code
// sizes launches from these; kernels take them as template parameters, so the benchmark can time
// other values without editing the kernels. Values measured on an H100/H200: see BENCHMARKS.md.
#pragma once

#include <cstddef>

namespace gpucore::gpu {

struct TuningPolicy {
    // Bytes moved by one vector access: 16 (float4 / double2 / uint4).
    static constexpr int kPackBytes = 16;

    struct VectorAdd {
        static constexpr int kThreads = 256;
        // 16-byte loads in flight per input per thread. H200, 2^28 f32: 1 pack 4390 GB/s, 2 packs
        // 4370, 4 packs 4360 (streaming stores: no change).
        static constexpr int kPacksPerThread = 1;
        // Grid cap in blocks per SM (0: none, one tile per block). H200, 2^28 f32: no cap 4360
        // GB/s, cap 64 4200, cap 16 4140.
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
        // scratch's partial slots). The launch bound asks for min_blocks_per_sm<T>() blocks per SM
        // (a register budget; with no minimum, nvcc 13 gave the i32/u32 kernels 48 registers and
        // one load in flight). H200, 2^28, against CUB (TransformReduce to float for the 16-bit
        // types), ms: f16 4 packs, 1 block bound (2 resident/SM) 0.1388, CUB 0.1382; 2 packs, bound
        // 1 (3/SM) 0.1336, bound 4 0.1286; 1 pack, bound 4 (5/SM) 0.1350; 1024 threads, 2 packs
        // 0.1289 (bf16 the same). f32 4 packs bound 1 (3/SM) 0.2441, bound 4 0.2427, CUB 0.2429.
        template <class T>
        static constexpr int packs_per_thread() { return sizeof(T) == 2 ? 2 : 4; }
        template <class T>
        static constexpr int min_blocks_per_sm() { return sizeof(T) <= 4 ? 4 : 1; }
        static constexpr int kMaxBlocks = 4096;
        // Small inputs (one launch, latency-bound): one block while each thread has at most
        // kMaxPacksPerThread packs, else the fewest packs per thread that need at most
        // kSmallGridBlocks blocks. H200 f32, median us after an L2 flush (CUB in the same run):
        // 2^16 64, 128 or 256 blocks 6.0, 512 blocks 7.1 (7.1); 2^20 128 blocks 8.4, 256 blocks
        // 7.8, 512 blocks 9.1 (8.2). Without a flush, 2^12: 1 block 6.3, 4 blocks 6.9 (5.9).
        static constexpr std::size_t kMaxPacksPerThread = 8;
        static constexpr std::size_t kSmallGridBlocks = 256;
    };
    struct ReduceRows {
        // Rows up to kSubWarpMaxCols columns go to logical sub-warps (several rows per warp) of
        // at most kSubWarpMaxWidth lanes; every GPU we target has a hardware warp at least that
        // wide. A sub-warp spans kSubWarpSpanBytes of its row per load (a 32-byte sector), its
        // lanes taking up to kSubWarpMaxPerLane elements each, strided, for longer rows: the
        // lessons' tile-8 rung (8 lanes x 4 floats for 32 columns) beat one lane per element at
        // width 32 (five shuffles per row instead of three). kSubWarpSpanBytes = 0: one lane per
        // element, widths up to kSubWarpMaxWidth (rows past it go to a warp or a block each).
        // Kernels exist for one element per lane at widths 1..kSubWarpMaxWidth and for 2..
        // kSubWarpMaxPerLane elements per lane at widths kSubWarpStridedMinWidth..
        // kSubWarpStridedMaxWidth (32 bytes of f64, f32 and f16 rows).
        static constexpr int kSubWarpMaxCols = 64;
        static constexpr int kSubWarpMaxWidth = 32;
        static constexpr int kSubWarpSpanBytes = 32;
        static constexpr int kSubWarpMaxPerLane = 8;
        static constexpr int kSubWarpStridedMinWidth = 4;
        static constexpr int kSubWarpStridedMaxWidth = 16;
        static constexpr int kSubWarpThreads = 256;
        // Loads each lane issues before reducing: rows in flight = this / elements per lane.
        static constexpr int kSubWarpLoadsInFlight = 8;
        static constexpr int sub_warp_rows_in_flight(int per_lane) {
            return per_lane >= kSubWarpLoadsInFlight ? 1 : kSubWarpLoadsInFlight / per_lane;
        }
        // Rows up to this many columns get one warp each (when there are enough rows).
        static constexpr std::size_t kWarpRowMaxCols = 2048;
        static constexpr int kWarpRowThreads = 256;
        static constexpr int kWarpRowPacksPerThread = 2;
        // Longer rows: one block per row, or several (with a per-row ticket) when the rows are too
        // few to fill the GPU.
        static constexpr int kBlockThreads = 256; // H200 2048x131072: 256 3890 GB/s, 512 3510
        // Packs each thread keeps in flight, by element size, and a launch bound of 4 blocks per
        // SM (64 registers). H200, 2026-11-22, us for f32 / f64 at 2048x262144, 4096x65536,
        // 1000x100003, 300x1000000: no bound, 2 packs (the compiler chose 40 / 44 registers, 2.6 /
        // 3.1 waves): 470 / 1004, 244 / 481, 103 / 192, 313 / 611; bound 4, 2 packs: 473 / 936,
        // 243 / 474, 100 / 190, 312 / 611; bound 4, 4 packs: 503 / 923, 290 / 466, 112 / 183,
        // 275 / 532. Bounds 3, 5, 6 and 8 were slower.
        static constexpr int kBlockMinBlocksPerSm = 4;
        template <class T>
        static constexpr int block_packs_per_thread() { return sizeof(T) >= 8 ? 4 : 2; }
        // Split rows (few long ones): 8 x 2^26 at 0.965 of a flat reduce with 4 packs, 0.944
        // with 2.
        static constexpr int kSplitPacksPerThread = 4;
        // Split target where the occupancy of the split kernel is not known (plan tests); the
        // launcher passes the kernel's real one-wave size (rows_split_wave_blocks).
        static constexpr int kSplitTargetBlocksPerSm = 8;
        static constexpr std::size_t kMinSplitElementsPerThread = 64;
    };
    struct Transpose {
        // Any shape: kTile x kTile tiles, kTile x kBlockRows threads, each moving kTile/kBlockRows
        // elements. H200 16384^2 f32: 64x8 3420 GB/s, 32x8 2780, 64x16 2540, 32x16 2460.
        static constexpr int kTile = 64;
        static constexpr int kBlockRows = 8;
        // Rows and columns multiples of the vector width (16 bytes): 16-byte loads and stores,
        // tiles of kVectorThreadsX * width elements. H200 f32, 16384^2 / 4096^2 GB/s: 8x4 3640 /
        // 3500, 8x8 3550 / 3390, 8x2 3520 / 3110, 4x4 3320 / 3000, 16x4 3100 / 3040, 16x16
        // 2980 / 2880 (scalar 64x8: 3480 / 3290).
        static constexpr int kVectorThreadsX = 8;
        static constexpr int kVectorThreadsY = 4;
        // Same shapes on sm_90+ (CUDA): the bulk tensor copy engine moves boxes of 128-byte rows
        // (transpose_bulk_kernel.cuh); kBulkBoxRows rows per box, kBulkStages boxes in flight per
        // block. H200 f32, fraction of cudaMemcpy D2D at 16384^2 / 8192^2 / 4096^2: 128 rows x 2
        // stages 0.868 / 0.894 / 0.919; x 3 0.864 / 0.891 / 0.898; 64 x 4 0.849 / 0.880 / 0.924;
        // 32 x 4 0.808 / 0.857 / 0.930; 256 x 2 0.883 / 0.885 / 0.873; the 8x4 vector kernel
        // above 0.855 / 0.861 / 0.866 in the same run. Tile orders grouping 4-16 tile rows: worse.
        static constexpr int kBulkBoxRows = 128;
        static constexpr int kBulkStages = 2;
        static constexpr int kBulkThreads = 256;
    };
    // Per-stream scratch owned by the plugin: partials and tickets of the single-pass kernels.
    struct Scratch {
        static constexpr std::size_t kPartialSlots = 8192; // 8-byte slots
        static constexpr std::size_t kTicketSlots = 1024;  // 32-bit counters, kept at 0 between runs
    };
};

} // namespace gpucore::gpu

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
        static constexpr int kPacksPerThread = 4;
        // Single pass: every block leaves one partial; the last block to finish combines them.
        // Grid: kPacksPerThread packs per thread until the GPU is full, at most the resident
        // blocks (H200, 2^28 f32: 1056 blocks 4320 GB/s, 4096 blocks 4150, 16384 blocks 3700)
        // and kMaxBlocks (<= the scratch's partial slots). H200, 2^20 f32: 128 blocks 9.1 us,
        // 1024 blocks (one pack per thread) 11.0 us.
        static constexpr int kMaxBlocks = 4096;
    };
    struct ReduceRows {
        // Rows up to this many columns go to logical sub-warps of the next power-of-two width;
        // every GPU we target has a hardware warp at least this wide.
        static constexpr int kSubWarpMaxWidth = 32;
        static constexpr int kSubWarpThreads = 256;
        static constexpr int kSubWarpRowsInFlight = 8; // rows each sub-warp loads before reducing
        // Rows up to this many columns get one warp each (when there are enough rows).
        static constexpr std::size_t kWarpRowMaxCols = 2048;
        static constexpr int kWarpRowThreads = 256;
        static constexpr int kWarpRowPacksPerThread = 2;
        // Longer rows: one block per row, or several (with a per-row ticket) when the rows are too
        // few to fill the GPU.
        static constexpr int kBlockThreads = 256; // H200 2048x131072: 256 3890 GB/s, 512 3510
        static constexpr int kBlockPacksPerThread = 2; // 2048x131072: 2 packs 4340 GB/s, 4: 3880
        // Split rows (few long ones): 8 x 2^26 at 0.965 of a flat reduce with 4 packs, 0.944
        // with 2.
        static constexpr int kSplitPacksPerThread = 4;
        static constexpr int kSplitTargetBlocksPerSm = 8; // aim when splitting rows over blocks
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
    };
    // Per-stream scratch owned by the plugin: partials and tickets of the single-pass kernels.
    struct Scratch {
        static constexpr std::size_t kPartialSlots = 8192; // 8-byte slots
        static constexpr std::size_t kTicketSlots = 1024;  // 32-bit counters, kept at 0 between runs
    };
};

} // namespace gpucore::gpu

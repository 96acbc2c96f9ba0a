// SPDX-License-Identifier: Apache-2.0
// transpose through its launcher: square, tall, wide, degenerate and odd shapes, every element
// compared exactly against the host transpose (outputs poisoned first).
#include "gpu_test_support.cuh"
#include "kernels/transpose_narrow_bulk_kernel.cuh"

namespace gpu_test {
namespace {

template <class T>
class Transpose : public GpuTest {
protected:
    // The output at `out_offset` elements into its allocation, poison on both sides of it; the
    // input at `in_offset` elements into its own.
    void check(std::size_t rows, std::size_t cols, std::size_t out_offset = 0, std::size_t in_offset = 0) {
        SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", output at +" +
                     std::to_string(out_offset) + ", input at +" + std::to_string(in_offset));
        const std::size_t n = rows * cols;
        const std::vector<T> input = random_values<T>(n);
        DeviceArray<T> in(n, in_offset), out(out_offset + n + 1);
        ASSERT_TRUE(in.ok() && out.ok());
        in.upload(input, in_offset);
        out.poison();
        const std::vector<T> poisoned = out.download(out_offset + n + 1);
        gpucore::gpu::launch_transpose(dtype_of<T>(), in.data(in_offset), out.data(out_offset), rows, cols, ctx_);
        sync();
        const std::vector<T> whole = out.download(out_offset + n + 1);
        const T* got = whole.data() + out_offset;
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t c = 0; c < cols; ++c) {
                ASSERT_EQ(0, std::memcmp(&got[c * rows + r], &input[r * cols + c], sizeof(T)))
                    << "in(" << r << ", " << c << ")";
            }
        }
        EXPECT_EQ(0, std::memcmp(whole.data(), poisoned.data(), out_offset * sizeof(T)))
            << "wrote before the start";
        EXPECT_EQ(0, std::memcmp(&got[n], &poisoned[out_offset + n], sizeof(T))) << "wrote past the end";
    }
};

using Types = testing::Types<float, double, std::int32_t, std::uint32_t, gpucore::half,
                               gpucore::bfloat16>;
TYPED_TEST_SUITE(Transpose, Types);

TYPED_TEST(Transpose, AnyShape) {
    const std::pair<std::size_t, std::size_t> shapes[] = {
        {1, 1}, {1, 7}, {7, 1}, {2, 3}, {31, 33}, {32, 32}, {33, 31}, {64, 1000},
        {1000, 64}, {1, 100003}, {100003, 1}, {5003, 3001}, {2048, 2048}};
    for (const auto& [rows, cols] : shapes) this->check(rows, cols);
}

// A side of 2..16 (the narrow kernels, staging runs of 256 positions of the long side) and of 17
// (the tiles again): every narrow extent, long sides short of, at and past a run's end.
TYPED_TEST(Transpose, NarrowSides) {
    for (const std::size_t narrow : {2, 3, 7, 15, 16, 17}) {
        for (const std::size_t length : {5, 255, 256, 257, 513, 70001}) {
            this->check(narrow, length);
            this->check(length, narrow);
        }
    }
}

// 2-byte words with an even long side and both arrays on 4-byte boundaries move in 4-byte pairs
// (runs of 128 to 2048 positions): every narrow extent, even long sides short of, at and past a
// run's end; odd long sides (of arrays up to 8 MiB) and an output off 4-byte boundaries take
// single words.
TYPED_TEST(Transpose, TwoByteNarrowSidesInPairs) {
    if constexpr (sizeof(TypeParam) != 2) {
        GTEST_SKIP() << "2-byte elements only";
    } else {
        for (const std::size_t narrow : {2, 3, 4, 7, 8, 15, 16}) {
            for (const std::size_t length : {2, 126, 128, 130, 254, 256, 258, 1024, 2050, 70002}) {
                this->check(narrow, length);
                this->check(length, narrow);
            }
            this->check(narrow, 70001);
            this->check(70002, narrow, 1);
        }
    }
}

// 2-byte narrow sides of 2..16 whose long side is a multiple of 8 (whole 16-byte rows), both
// arrays on 16 bytes: on sm_90+ the bulk-copy narrow kernel where the policy takes the shape (few
// rows; few columns of 5 or more, or any up to 8 MiB; runs through a swizzled tensor map for 8
// and 16), else the thread-staged one. Long sides of one group of 8 positions, short of, at and
// past a chunk (the last run box clipped), more chunks than a block's stages on every resident
// block (each stage's barrier completes several phases); outputs 16 bytes into their allocation,
// and 2 bytes (the thread-staged kernels).
TYPED_TEST(Transpose, TwoByteNarrowSidesThroughTheBulkCopyEngine) {
    if constexpr (sizeof(TypeParam) != 2) {
        GTEST_SKIP() << "2-byte elements only";
    } else {
        for (std::size_t narrow = 2; narrow <= 16; ++narrow) {
            const std::size_t chunk = gpucore::gpu::NarrowBulk::positions(static_cast<unsigned int>(narrow), 2);
            for (const std::size_t length : {std::size_t{8}, chunk - 8, chunk, chunk + 8, 7 * chunk + 72,
                                             2200 * chunk + 8}) {
                this->check(narrow, length);
                this->check(length, narrow);
            }
            for (const std::size_t out_offset : {8, 1}) {
                this->check(narrow, 3 * chunk + 16, out_offset);
                this->check(3 * chunk + 16, narrow, out_offset);
            }
        }
    }
}

// 2-byte narrow sides of 8 and 16 whose long side is not a multiple of 8, both arrays on 16
// bytes: on sm_90+ few rows take the bulk-copy narrow kernel with rows off 16 bytes, each by its
// own shift, and the run's last partial 128-byte row stored by the threads; few columns the
// thread-staged kernels. Every remainder of the long side modulo 8, long sides short of and past
// a chunk, a last chunk shorter than a run row, more chunks than a block's stages on every
// resident block; input and output 16 bytes into their allocations.
TYPED_TEST(Transpose, TwoByteNarrowSidesOffSixteenBytesThroughTheBulkCopyEngine) {
    if constexpr (sizeof(TypeParam) != 2) {
        GTEST_SKIP() << "2-byte elements only";
    } else {
        for (const std::size_t narrow : {8, 16}) {
            const std::size_t chunk = gpucore::gpu::NarrowBulk::positions(static_cast<unsigned int>(narrow), 2);
            for (std::size_t remainder = 1; remainder < 8; ++remainder) {
                for (const std::size_t length : {narrow + remainder, chunk - 8 + remainder, chunk + remainder,
                                                 3 * chunk + remainder, 2200 * chunk + remainder}) {
                    this->check(narrow, length);
                    this->check(length, narrow);
                }
            }
            this->check(narrow, 5 * chunk + 3, 8, 8);
            this->check(5 * chunk + 3, narrow, 8, 8);
        }
    }
}

// Arrays over TuningPolicy's kNarrowPairsMinBytes (8 MiB) move pairs of words with 4-byte
// elements too (few rows, or at most 8 columns) and with 2-byte ones of an odd long side (every
// other piece row starts off a pair's boundary): every chunk scale of the narrow side, odd and even
// long sides, both directions; an output off a pair's boundary takes single words.
TYPED_TEST(Transpose, NarrowSidesInPairsOverEightMiB) {
    constexpr std::size_t kBytes = gpucore::gpu::TuningPolicy::Transpose::kNarrowPairsMinBytes;
    for (const std::size_t narrow : {2, 3, 7, 8, 9, 16}) {
        const std::size_t even = (kBytes / (narrow * sizeof(TypeParam)) + 2) & ~std::size_t{1};
        for (const std::size_t length : {even, even + 1}) {
            this->check(narrow, length);
            this->check(length, narrow);
        }
    }
    this->check(7, kBytes / (7 * sizeof(TypeParam)) | 1, 1);
    this->check(kBytes / (7 * sizeof(TypeParam)) | 1, 7, 1);
}

// Few columns in arrays of at least kNarrowSectorsMinBytes, output rows off sectors (long sides off
// a sector's words, or the output at an element offset) and on them: for 4-byte words of 9-16
// columns and 2-byte words of 8-16 (on sectors: 12 and 16), the kernel writing each output row
// in windows on its sector boundaries; the first, middle and last steps of every row. An input off
// its loads' boundary takes the other narrow kernels.
TYPED_TEST(Transpose, FewColumnsThroughSectorWindows) {
    using Policy = gpucore::gpu::TuningPolicy::Transpose;
    constexpr std::size_t kBytes = Policy::kNarrowSectorsMinBytes;
    constexpr std::size_t kStep = Policy::kNarrowSectorsPositions;
    for (const std::size_t narrow : {8, 9, 12, 13, 16}) {
        const std::size_t whole_steps = (kBytes / (narrow * sizeof(TypeParam)) / kStep + 1) * kStep;
        for (const std::size_t extra : {1, 7, 255}) this->check(whole_steps + extra, narrow);
        this->check(whole_steps, narrow);
        this->check(whole_steps, narrow, 3);
    }
    this->check(kBytes / (16 * sizeof(TypeParam)) + 5, 16, 0, 1);
}

// Rows and columns multiples of 16 bytes: on sm_90+ the bulk-copy kernel, whose boxes (128-byte
// rows x 128 input rows) are clipped at every edge here: partial boxes in one or both
// dimensions, a single partial box, more tiles than resident blocks. 2-byte elements take every
// extent twice (16 bytes are 8 of them).
TYPED_TEST(Transpose, RowsOfWholeSixteenByteChunks) {
    const std::pair<std::size_t, std::size_t> shapes[] = {
        {4, 4},     {4, 8},     {8, 4},      {128, 32},   {132, 36},  {256, 64},
        {260, 1028}, {1028, 260}, {36, 4100}, {4100, 36}, {4, 65536}, {65536, 4}, {3000, 2052}};
    const std::size_t scale = sizeof(TypeParam) == 2 ? 2 : 1;
    for (const auto& [rows, cols] : shapes) this->check(rows * scale, cols * scale);
}

// Output rows that start off 32-byte sectors (odd row counts, outputs at element offsets): the
// sector-aligned writes, with small and large tiles (arrays on both sides of 32 MiB), first, middle
// and last tiles of every row.
TYPED_TEST(Transpose, OutputRowsOffSectors) {
    const std::pair<std::size_t, std::size_t> shapes[] = {{17, 40}, {67, 45}, {1001, 333}, {130, 1025}};
    for (const auto& [rows, cols] : shapes) {
        for (const std::size_t out_offset : {0, 1, 2, 3, 5, 7}) this->check(rows, cols, out_offset);
    }
    this->check(64, 96, 3);      // rows on sectors, the output off them
    this->check(4099, 2051, 3);  // 32 MiB and more for 4-byte elements
    this->check(4099, 2051, 0);
}

// 4-byte arrays over kSectorSmallTileMaxBytes whose output rows start off sectors: the
// realigned-vector kernel. Every row count modulo a sector's words, column counts on and off 16
// bytes, the last tile row of one row and the last tile column of one column, inputs 0..3 words
// past a 16-byte boundary and outputs at word offsets, tiles along the rows and down the columns
// of tiles; the output on sectors with rows of whole sectors (the tile kernel) beside it.
TYPED_TEST(Transpose, FourByteRowsOffSectorsInRealignedVectors) {
    if constexpr (sizeof(TypeParam) != 4) {
        GTEST_SKIP() << "4-byte elements only";
    } else {
        using Policy = gpucore::gpu::TuningPolicy::Transpose;
        constexpr std::size_t kMinElements = Policy::kSectorSmallTileMaxBytes / sizeof(TypeParam) + 1;
        const std::size_t tile_rows = Policy::kRealignedVectorTileRows;
        const std::size_t tile_cols = Policy::kRealignedVectorTileCols;
        for (std::size_t rows = 8 * tile_rows + 1; rows <= 8 * tile_rows + 8; ++rows) {
            const std::size_t cols = (kMinElements + rows - 1) / rows + rows % 4; // every count modulo 4
            this->check(rows, cols, 0, rows / 2 % 4);
        }
        const std::size_t rows = 20 * tile_rows + 1; // a last tile row of one row
        const std::size_t cols = (kMinElements / rows + tile_cols) / tile_cols * tile_cols + 1; // and column
        ASSERT_TRUE(Policy::realigned_vectors(sizeof(TypeParam), rows * cols * sizeof(TypeParam)));
        for (const std::size_t out_offset : {1, 5}) {
            for (const std::size_t in_offset : {0, 3}) this->check(rows, cols, out_offset, in_offset);
        }
        this->check(cols, rows, 3, 2);
        const std::size_t down_rows = 3 * tile_rows + 5;
        const std::size_t down_cols = Policy::kTilesDownMinBytes / (down_rows * sizeof(TypeParam)) | 1;
        ASSERT_TRUE(Policy::tiles_down(down_rows * down_cols * sizeof(TypeParam)));
        this->check(down_rows, down_cols, 2, 1);
        this->check(down_cols, down_rows);
        this->check(8 * tile_rows, kMinElements / (8 * tile_rows) + 1, 0, 1); // output rows on sectors
    }
}

// Arrays of at least kTilesDownMinBytes, whose tiles go down the columns of tiles: odd sides (the
// last tile of every column and row partial), outputs on and off sectors, inputs off pairs.
TYPED_TEST(Transpose, TilesDownTheColumns) {
    using Policy = gpucore::gpu::TuningPolicy::Transpose;
    const std::size_t rows = 3001;
    const std::size_t cols = Policy::kTilesDownMinBytes / (rows * sizeof(TypeParam)) / 2 * 2 + 3;
    ASSERT_TRUE(Policy::tiles_down(rows * cols * sizeof(TypeParam)));
    this->check(rows, cols);
    this->check(cols, rows, 3);
    this->check(rows + 7, cols - 1, 0, 1);
}

// 2-byte arrays over 8 MiB whose output rows start off sectors, and over 32 MiB whose input rows
// start off 4-byte pairs: the realigned-pair kernel. Odd and even row and column counts, the last
// tile row nearly empty, inputs and outputs at element offsets (the input's first and last elements
// outside any whole pair), rows on sectors with the output off them; just under its row minimum and
// its sizes (the tile kernel).
TYPED_TEST(Transpose, TwoByteRowsOffPairsOrSectors) {
    if constexpr (sizeof(TypeParam) != 2) {
        GTEST_SKIP() << "2-byte elements only";
    } else {
        const std::pair<std::size_t, std::size_t> off_sectors[] = {
            {513, 16411}, {8200, 1030}, {2049, 2053}, {65, 65601}};
        for (const auto& [rows, cols] : off_sectors) {
            for (const std::size_t out_offset : {0, 1, 6}) {
                for (const std::size_t in_offset : {0, 1}) this->check(rows, cols, out_offset, in_offset);
            }
        }
        this->check(4096, 2053, 3);
        this->check(4096, 4097, 0, 0); // output rows on sectors, input rows off pairs
        this->check(4096, 4104, 0, 1); // every row on pairs, the input off them
        this->check(8192, 2049, 0, 1);
        this->check(63, 133153, 1);    // under the row minimum
        this->check(2047, 2047, 1, 1); // under 8 MiB
        this->check(2048, 8191, 0, 1); // inputs off pairs, under 32 MiB
    }
}

// 2-byte arrays of whole 16-byte rows over 2^22 elements: on sm_90+ the bulk-copy kernel, whose
// shared-memory step moves 4-byte pairs of adjacent input rows; boxes clipped in one or both
// dimensions, whole boxes. Up to 32 MiB its boxes have 64 rows (2048 x 8192 is exactly 32 MiB),
// over it 128.
TYPED_TEST(Transpose, TwoByteBulkCopyBoxes) {
    if constexpr (sizeof(TypeParam) != 2) {
        GTEST_SKIP() << "2-byte elements only";
    } else {
        const std::pair<std::size_t, std::size_t> shapes[] = {
            {4104, 1032}, {8192, 520}, {520, 8192}, {2048, 4096}, {2048, 8192},
            {2056, 8200}, {4168, 4104}, {16384, 1032}};
        for (const auto& [rows, cols] : shapes) this->check(rows, cols);
    }
}

// 2-byte arrays of even columns whose output rows start on sectors, where the pair tiles run: up
// to 2^22 elements any such shape of at least 64 rows and 128 columns, over it fewer than 128 rows,
// 64 rows per column and more, or 64 MiB and more; tiles clipped in rows, pair columns or both, outputs on and off
// (the other kernels) a sector boundary, and shapes just outside the rule.
TYPED_TEST(Transpose, TwoBytePairTiles) {
    if constexpr (sizeof(TypeParam) != 2) {
        GTEST_SKIP() << "2-byte elements only";
    } else {
        const std::pair<std::size_t, std::size_t> shapes[] = {
            {1024, 1024}, {1040, 1026}, {2048, 2048}, {64, 16386}, {4112, 258}, {64, 65538},
            {96, 65536},  {16384, 256}, {131072, 514}, {16384, 258}, {1024, 126}, {48, 32768}, {4112, 8194}};
        for (const auto& [rows, cols] : shapes) {
            for (const std::size_t out_offset : {0, 16, 1}) this->check(rows, cols, out_offset);
        }
    }
}

// Fewer rows than a 128-row bulk-copy box over more than 2^22 elements: rows and columns of 8s
// take 64-row boxes on sm_90+ for 2-byte elements where output rows are off sectors (one partial
// box row at 120 and 72; 64 rows take the pair tiles, fewer the tile kernel), other shapes the
// tile kernel with its block shape for them.
TYPED_TEST(Transpose, FewRowsOfManyElements) {
    this->check(64, 65544);
    this->check(120, 40000);
    this->check(72, 65536);
    this->check(56, 75000);
    this->check(127, 33029);
}

// A view that starts 2 bytes past a 16-byte boundary: never the 16-byte kernels.
TYPED_TEST(Transpose, UnalignedStartOfWholeChunkShapes) {
    const std::size_t rows = 64, cols = 128;
    const std::vector<TypeParam> input = random_values<TypeParam>(rows * cols);
    DeviceArray<TypeParam> in(rows * cols, 1), out(rows * cols, 1);
    ASSERT_TRUE(in.ok() && out.ok());
    in.upload(input, 1);
    out.poison();
    gpucore::gpu::launch_transpose(dtype_of<TypeParam>(), in.data(1), out.data(1), rows, cols, this->ctx_);
    this->sync();
    const std::vector<TypeParam> got = out.download(rows * cols, 1);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            ASSERT_EQ(0, std::memcmp(&got[c * rows + r], &input[r * cols + c], sizeof(TypeParam)));
}

} // namespace
} // namespace gpu_test

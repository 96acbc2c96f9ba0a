// SPDX-License-Identifier: Apache-2.0
// The simt execution layer itself, at the width this test is built for (64 or 32): shuffles are
// exchanged per warp only (warp-uniform, block-divergent code completes), __shared__ is per block,
// __syncthreads waits for the whole block, atomics and fences make the last-block pattern exact,
// and what a GPU cannot run (a barrier or shuffle in warp-divergent code) is a clear, sticky
// launch failure that names the call site.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_vendor.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/reduce_ops.cuh"
#include "kernels/reduce_rows_kernels.cuh"
#include "kernels/transpose_kernel.cuh"
#include "kernels/transpose_narrow_sectors_kernel.cuh"
#include "kernels/transpose_pair_tile_kernel.cuh"
#include "kernels/transpose_pairs_kernel.cuh"
#include "kernels/transpose_realigned_vectors_kernel.cuh"
#include "tuning_policy.hpp"

namespace {

using gpucore::gpu::kWarpSize;
using gpucore::gpu::launch_kernel;

constexpr unsigned kWarp = static_cast<unsigned>(kWarpSize);

// ---- kernels ------------------------------------------------------------------------------------

// Lane l of every warp gets the value of lane l ^ mask within segments of `width` lanes.
__global__ void shuffle_xor_kernel(const std::uint64_t* in, std::uint64_t* out, int mask, int width) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = gpucore::gpu::shfl_xor(in[i], mask, width);
}

// Only warp 0 shuffles, the other warps end at once: per-warp shuffles complete; shuffles that
// waited for the whole block would not.
__global__ void first_warp_sums_kernel(const unsigned* in, unsigned* out) {
    const unsigned warp = threadIdx.x / kWarp;
    if (warp != 0) return;
    unsigned value = in[threadIdx.x];
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
        value += gpucore::gpu::shfl_xor(value, offset, kWarpSize);
    }
    out[threadIdx.x] = value;
}

// Warp w sums (w + 1) rounds: trip counts differ by warp, as in the row kernels.
__global__ void uneven_warp_rounds_kernel(unsigned* out) {
    const unsigned warp = threadIdx.x / kWarp;
    unsigned total = 0;
    for (unsigned round = 0; round <= warp; ++round) {
        unsigned value = 1;
        for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
            value += gpucore::gpu::shfl_xor(value, offset, kWarpSize);
        }
        total += value;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = total;
}

template <int kThreads>
__global__ void block_sum_kernel(const std::uint32_t* in, std::uint32_t* out) {
    __shared__ gpucore::gpu::BlockReduceStorage<std::uint32_t, kThreads> storage;
    const std::uint32_t value = in[blockIdx.x * kThreads + threadIdx.x];
    const std::uint32_t sum = gpucore::gpu::block_reduce<kThreads>(value, gpucore::gpu::SumOp{}, storage);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// Each block writes its index to a __shared__ variable, waits, and every thread reads it back
// after a second barrier: another block's writes would show up as a wrong index.
__global__ void shared_is_per_block_kernel(unsigned* wrong) {
    __shared__ unsigned owner;
    __shared__ unsigned slots[256];
    if (threadIdx.x == 0) owner = blockIdx.x;
    slots[threadIdx.x] = blockIdx.x * 1000u + threadIdx.x;
    __syncthreads();
    const unsigned mirror = blockDim.x - 1 - threadIdx.x;
    if (owner != blockIdx.x || slots[mirror] != blockIdx.x * 1000u + mirror) atomicAdd(wrong, 1u);
    __syncthreads();
}

// The same exchange through __shared__ without the barrier: a race that the scheduler's order
// exposes (ascending in even blocks, descending in odd ones).
// `salt` differs per launch: __shared__ is not cleared between blocks (nor on a GPU), so values
// left by an earlier launch must not pass for this one's.
__global__ void missing_barrier_kernel(unsigned* wrong, unsigned salt) {
    __shared__ unsigned slots[256];
    slots[threadIdx.x] = salt + blockIdx.x * 1000u + threadIdx.x;
    const unsigned mirror = blockDim.x - 1 - threadIdx.x;
    if (slots[mirror] != salt + blockIdx.x * 1000u + mirror) atomicAdd(wrong, 1u);
}

// The last-block pattern: partials, fence, ticket; the last block sums the partials.
__global__ void last_block_sum_kernel(unsigned* partials, unsigned* ticket, unsigned* out) {
    __shared__ bool is_last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = blockIdx.x + 1;
        __threadfence();
        is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
        if (is_last) __threadfence();
    }
    __syncthreads();
    if (is_last && threadIdx.x == 0) {
        unsigned sum = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) sum += gpucore::gpu::load_coherent(partials + b);
        *out = sum;
    }
}

__global__ void atomic_count_kernel(unsigned* counter) { atomicAdd(counter, 1u); }

// A barrier that only half of every warp reaches (the others end).
__global__ void barrier_in_divergent_warp_kernel(unsigned* out) {
    if (threadIdx.x % kWarp < kWarp / 2) {
        __syncthreads();
        out[threadIdx.x] = 1;
    }
}

// Half of every warp at one barrier, the other half at another.
__global__ void two_barriers_kernel(unsigned* out) {
    if (threadIdx.x % kWarp < kWarp / 2) __syncthreads();
    else __syncthreads();
    out[threadIdx.x] = 1;
}

// Half of a warp waits at a block barrier while the other half waits in a shuffle.
__global__ void barrier_against_shuffle_kernel(unsigned* out) {
    unsigned value = threadIdx.x;
    if (threadIdx.x % kWarp < kWarp / 2) __syncthreads();
    else value = gpucore::gpu::shfl_xor(value, 1, kWarpSize);
    out[threadIdx.x] = value;
}

// Half of every warp shuffles; the other half ends.
__global__ void shuffle_in_half_warp_kernel(unsigned* out) {
    if (threadIdx.x % kWarp >= kWarp / 2) return;
    out[threadIdx.x] = gpucore::gpu::shfl_xor(static_cast<unsigned>(threadIdx.x), 1, kWarpSize);
}

// ---- helpers ------------------------------------------------------------------------------------

template <class T>
struct DeviceArray {
    explicit DeviceArray(std::size_t n) : size(n) {
        void* p = nullptr;
        EXPECT_EQ(simtMalloc(&p, n * sizeof(T)), simtSuccess);
        data = static_cast<T*>(p);
    }
    ~DeviceArray() { simtFree(data); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    T* data = nullptr;
    std::size_t size;
};

class SimtExecution : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(simtDeviceReset(), simtSuccess);
        ASSERT_EQ(simtStreamCreateWithFlags(&stream_, simtStreamNonBlocking), simtSuccess);
    }
    void TearDown() override {
        simtStreamDestroy(stream_);
        simtDeviceReset();
    }
    // Synchronizes and expects a launch failure whose text contains every one of `parts`.
    void expect_fault(std::initializer_list<const char*> parts) {
        ASSERT_EQ(simtStreamSynchronize(stream_), simtErrorLaunchFailure);
        const std::string text = simtGetErrorString(simtErrorLaunchFailure);
        for (const char* part : parts) EXPECT_NE(text.find(part), std::string::npos) << text;
        // Sticky: every later call fails the same way, as after a kernel fault on a GPU.
        EXPECT_EQ(simtGetLastError(), simtErrorLaunchFailure);
        void* p = nullptr;
        EXPECT_EQ(simtMalloc(&p, 64), simtErrorLaunchFailure);
    }
    simtStream_t stream_ = nullptr;
};

std::vector<std::uint64_t> random_words(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> v(n);
    for (auto& x : v) x = rng();
    return v;
}

// rows x cols random words on the device and an output of rows + 1 poisoned words, for the row-sum
// kernels; expect_sums checks every row's sum and that out[rows] is untouched.
struct RowSums {
    static constexpr std::uint32_t kPoison = 0xA5A5A5A5u;
    RowSums(std::size_t rows_, std::size_t cols_, std::mt19937& rng)
        : rows(rows_), cols(cols_), in(rows_ * cols_), d_in(rows_ * cols_), d_out(rows_ + 1) {
        for (auto& x : in) x = static_cast<std::uint32_t>(rng());
        std::copy(in.begin(), in.end(), d_in.data);
        std::fill(d_out.data, d_out.data + rows + 1, kPoison);
    }
    void expect_sums(const std::string& where) const {
        for (std::size_t r = 0; r < rows; ++r) {
            const std::uint32_t want = std::accumulate(in.begin() + r * cols, in.begin() + (r + 1) * cols,
                                                       std::uint32_t{0});
            ASSERT_EQ(d_out.data[r], want) << "row " << r << ", " << where;
        }
        EXPECT_EQ(d_out.data[rows], kPoison) << "out[rows] written, " << where;
    }
    std::size_t rows, cols;
    std::vector<std::uint32_t> in;
    DeviceArray<std::uint32_t> d_in, d_out;
};

TEST_F(SimtExecution, WarpSizeFollowsTheBuild) {
    EXPECT_EQ(kWarpSize, GPUCORE_SIMT_WARP_SIZE);
    int width = 0;
    ASSERT_EQ(simtDeviceGetAttribute(&width, simtDevAttrWarpSize, 0), simtSuccess);
    EXPECT_EQ(width, kWarpSize);
}

TEST_F(SimtExecution, ShuffleXorAtEveryWidthAndMask) {
    constexpr unsigned kThreads = 256;
    constexpr unsigned kBlocks = 3;
    const auto in = random_words(kThreads * kBlocks, 11);
    DeviceArray<std::uint64_t> d_in(in.size()), d_out(in.size());
    std::copy(in.begin(), in.end(), d_in.data);
    for (int width = 1; width <= kWarpSize; width *= 2) {
        for (int mask : {1, width / 2, width - 1, width, 2 * width - 1}) {
            if (mask <= 0) continue;
            std::fill(d_out.data, d_out.data + d_out.size, ~std::uint64_t{0});
            launch_kernel(shuffle_xor_kernel, kBlocks, kThreads, 0, stream_, d_in.data, d_out.data,
                          mask, width);
            ASSERT_EQ(simtStreamSynchronize(stream_), simtSuccess) << simtGetErrorString(simtErrorLaunchFailure);
            for (unsigned i = 0; i < in.size(); ++i) {
                const unsigned lane = i % kWarp;
                const unsigned base = i - lane;
                // The mask's low log2(warp) bits count, as in CUDA's shfl (bits 4:0).
                unsigned source = lane ^ (static_cast<unsigned>(mask) & (kWarp - 1));
                // CUDA/HIP: a source past the caller's segment gives the caller its own value.
                if (source >= (lane / width + 1) * width) source = lane;
                ASSERT_EQ(d_out.data[i], in[base + source])
                    << "width " << width << " mask " << mask << " thread " << i;
            }
        }
    }
}

TEST_F(SimtExecution, ShufflesWaitForTheirWarpOnly) {
    constexpr unsigned kThreads = 4 * kWarp;
    std::vector<unsigned> in(kThreads);
    std::mt19937 rng(5);
    for (auto& x : in) x = static_cast<unsigned>(rng() % 1000);
    DeviceArray<unsigned> d_in(kThreads), d_out(kThreads);
    std::copy(in.begin(), in.end(), d_in.data);
    std::fill(d_out.data, d_out.data + kThreads, 0xdeadbeefu);
    launch_kernel(first_warp_sums_kernel, 1, kThreads, 0, stream_, d_in.data, d_out.data);
    ASSERT_EQ(simtStreamSynchronize(stream_), simtSuccess) << simtGetErrorString(simtErrorLaunchFailure);
    const unsigned expected = std::accumulate(in.begin(), in.begin() + kWarp, 0u);
    for (unsigned i = 0; i < kWarp; ++i) EXPECT_EQ(d_out.data[i], expected) << i;
    for (unsigned i = kWarp; i < kThreads; ++i) EXPECT_EQ(d_out.data[i], 0xdeadbeefu) << i;

    constexpr unsigned kBlocks = 5;
    DeviceArray<unsigned> d_rounds(kThreads * kBlocks);
    launch_kernel(uneven_warp_rounds_kernel, kBlocks, kThreads, 0, stream_, d_rounds.data);
    ASSERT_EQ(simtStreamSynchronize(stream_), simtSuccess) << simtGetErrorString(simtErrorLaunchFailure);
    for (unsigned i = 0; i < kThreads * kBlocks; ++i) {
        EXPECT_EQ(d_rounds.data[i], ((i % kThreads) / kWarp + 1) * kWarp) << i;
    }
}

template <int kThreads>
void check_block_sum(simtStream_t stream) {
    constexpr unsigned kBlocks = 7;
    std::vector<std::uint32_t> in(kThreads * kBlocks);
    std::mt19937 rng(kThreads);
    for (auto& x : in) x = static_cast<std::uint32_t>(rng());
    DeviceArray<std::uint32_t> d_in(in.size()), d_out(kBlocks);
    std::copy(in.begin(), in.end(), d_in.data);
    std::fill(d_out.data, d_out.data + kBlocks, 0u);
    launch_kernel(block_sum_kernel<kThreads>, kBlocks, kThreads, 0, stream, d_in.data, d_out.data);
    ASSERT_EQ(simtStreamSynchronize(stream), simtSuccess) << simtGetErrorString(simtErrorLaunchFailure);
    for (unsigned b = 0; b < kBlocks; ++b) {
        const std::uint32_t expected =
            std::accumulate(in.begin() + b * kThreads, in.begin() + (b + 1) * kThreads, std::uint32_t{0});
        EXPECT_EQ(d_out.data[b], expected) << "block " << b << " of " << kThreads << " threads";
    }
}

TEST_F(SimtExecution, BlockReduceAtEveryBlockSize) {
    check_block_sum<kWarpSize>(stream_);
    check_block_sum<2 * kWarpSize>(stream_);
    check_block_sum<256>(stream_);
    check_block_sum<1024>(stream_);
}

// The sub-warp row kernel at one width and elements per lane, on rows that fill every lane's
// elements, miss one, fill barely more than half, and hold one element; with one block (the grid
// strides over the rows many times) and with several.
template <int Width, int kPerLane>
void check_sub_warp_rows(simtStream_t stream) {
    using gpucore::gpu::TuningPolicy;
    constexpr int kThreads = TuningPolicy::ReduceRows::kSubWarpThreads;
    constexpr int kRowsInFlight = TuningPolicy::ReduceRows::sub_warp_rows_in_flight(kPerLane);
    constexpr std::size_t kWidest = std::size_t{Width} * kPerLane;
    constexpr std::size_t kRows = 1001;
    std::mt19937 rng(Width * 100 + kPerLane);
    for (std::size_t cols : {kWidest, kWidest - 1, kWidest / 2 + 1, std::size_t{1}}) {
        if (cols == 0) continue;
        for (unsigned grid : {1u, 5u}) {
            const RowSums arrays(kRows, cols, rng);
            launch_kernel(gpucore::gpu::reduce_rows_subwarp_kernel<std::uint32_t, gpucore::gpu::SumOp, Width,
                                                                   kPerLane, kThreads, kRowsInFlight>,
                          grid, kThreads, 0, stream, arrays.d_in.data, kRows, cols, arrays.d_out.data);
            ASSERT_EQ(simtStreamSynchronize(stream), simtSuccess) << simtGetErrorString(simtErrorLaunchFailure);
            arrays.expect_sums("width " + std::to_string(Width) + " x " + std::to_string(kPerLane) + ", cols " +
                               std::to_string(cols) + ", grid " + std::to_string(grid));
        }
    }
}

TEST_F(SimtExecution, SubWarpRowsAtEveryWidthAndElementsPerLane) {
    // One element per lane: widths 1 .. 32; strided lanes: the widths the launcher has for them.
    check_sub_warp_rows<1, 1>(stream_);
    check_sub_warp_rows<2, 1>(stream_);
    check_sub_warp_rows<4, 1>(stream_);
    check_sub_warp_rows<8, 1>(stream_);
    check_sub_warp_rows<16, 1>(stream_);
    check_sub_warp_rows<32, 1>(stream_);
    check_sub_warp_rows<4, 2>(stream_);
    check_sub_warp_rows<8, 2>(stream_);
    check_sub_warp_rows<16, 2>(stream_);
    check_sub_warp_rows<4, 4>(stream_);
    check_sub_warp_rows<8, 4>(stream_);
    check_sub_warp_rows<16, 4>(stream_);
    check_sub_warp_rows<4, 8>(stream_);
    check_sub_warp_rows<8, 8>(stream_);
    check_sub_warp_rows<16, 8>(stream_);
}

// Tile blocks of kThreads x kPacks packs (the last, partial tile a pack at a time or all at once)
// on rows of whole tiles, of a tile and a part, of less than a tile, of part of one pack per thread,
// with a grid of one block (it strides over every row) and of a block per row.
template <int kThreads, int kPacks, bool kTailInFlight>
void check_tile_rows(simtStream_t stream, unsigned seed) {
    constexpr std::size_t kTileCols = std::size_t{kThreads} * kPacks * 4;
    constexpr std::size_t kRows = 5;
    std::mt19937 rng(seed);
    for (std::size_t cols : {kTileCols, 2 * kTileCols, kTileCols + 12, 3 * kTileCols - 4, kTileCols - 4,
                             std::size_t{kThreads} * 4 + 8, std::size_t{4}, std::size_t{1000}}) {
        for (unsigned grid : {1u, static_cast<unsigned>(kRows)}) {
            const RowSums arrays(kRows, cols, rng);
            launch_kernel(gpucore::gpu::reduce_rows_tile_kernel<std::uint32_t, gpucore::gpu::SumOp, kThreads, kPacks,
                                                                kTailInFlight>,
                          grid, kThreads, 0, stream, arrays.d_in.data, kRows, cols, arrays.d_out.data);
            ASSERT_EQ(simtStreamSynchronize(stream), simtSuccess) << simtGetErrorString(simtErrorLaunchFailure);
            arrays.expect_sums(std::to_string(kThreads) + " x " + std::to_string(kPacks) + (kTailInFlight ? " in flight" : "") +
                               ", cols " + std::to_string(cols) + ", grid " + std::to_string(grid));
        }
    }
}

TEST_F(SimtExecution, TileRowsOfWholeAndPartialTiles) {
    using Policy = gpucore::gpu::TuningPolicy::ReduceRows;
    check_tile_rows<Policy::kTileRowThreads, Policy::kTileRowPacks, false>(stream_, 7);
    check_tile_rows<Policy::kShortTileNarrowThreads, Policy::kShortTilePacks, true>(stream_, 8);
    check_tile_rows<Policy::kShortTileMidThreads, Policy::kShortTilePacks, true>(stream_, 9);
    check_tile_rows<Policy::kShortTileWideThreads, Policy::kShortTilePacks, true>(stream_, 10);
    check_tile_rows<Policy::kShortTileMidThreads, Policy::kShortTilePacks8, true>(stream_, 11);
}

// A tile transpose of 32-bit positions (its two tile orders: `across` and `down`) with blocks of
// `block`, on `shapes`: inputs 0..max_in_offset words and outputs 0..8 words past the allocations'
// start (16 bytes or more), a grid of one block (every tile in the loop) and of every tile of
// tile_rows x tile_cols; every element in place, poison after the input and on both sides of the
// output.
template <class Word>
void check_tile_transpose_at_every_offset(simtStream_t stream, void (*across)(const Word*, Word*, std::uint32_t, std::uint32_t),
                                          void (*down)(const Word*, Word*, std::uint32_t, std::uint32_t), dim3 block,
                                          std::size_t tile_rows, std::size_t tile_cols,
                                          const std::vector<std::pair<std::size_t, std::size_t>>& shapes,
                                          std::size_t max_in_offset, unsigned seed) {
    constexpr Word kPoison = static_cast<Word>(0xA5A5A5A5u);
    std::mt19937 rng(seed);
    for (const auto& [rows, cols] : shapes) {
        const std::size_t n = rows * cols;
        std::vector<Word> in(n);
        for (auto& x : in) x = static_cast<Word>(rng());
        const std::size_t tiles = ((rows + tile_rows - 1) / tile_rows) * ((cols + tile_cols - 1) / tile_cols);
        for (std::size_t in_offset = 0; in_offset <= max_in_offset; ++in_offset) {
            for (std::size_t offset = 0; offset <= 8; ++offset) {
                for (const auto grid : {std::size_t{1}, tiles}) {
                    for (const bool tiles_down : {false, true}) {
                        SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", input at +" +
                                     std::to_string(in_offset) + ", output at +" + std::to_string(offset) + ", grid " +
                                     std::to_string(grid) + (tiles_down ? ", tiles down" : ", tiles across"));
                        DeviceArray<Word> d_in(n + max_in_offset), d_out(n + 16);
                        std::fill(d_in.data, d_in.data + n + max_in_offset, kPoison);
                        std::copy(in.begin(), in.end(), d_in.data + in_offset);
                        std::fill(d_out.data, d_out.data + n + 16, kPoison);
                        launch_kernel(tiles_down ? down : across, static_cast<unsigned>(grid), block, 0, stream,
                                      d_in.data + in_offset, d_out.data + offset, static_cast<std::uint32_t>(rows),
                                      static_cast<std::uint32_t>(cols));
                        ASSERT_EQ(simtStreamSynchronize(stream), simtSuccess)
                            << simtGetErrorString(simtErrorLaunchFailure);
                        for (std::size_t i = 0; i < n + 16; ++i) {
                            const bool inside = i >= offset && i < offset + n;
                            const std::size_t c = (i - offset) / rows, r = (i - offset) % rows;
                            ASSERT_EQ(d_out.data[i], inside ? in[r * cols + c] : kPoison) << "out[" << i << "]";
                        }
                    }
                }
            }
        }
    }
}

// The 2-byte realigned-pair transpose at the launcher's tile shape, on both sides of its tiles'
// edges and the sectors' (odd and even row and column counts, inner tiles whose loads skip the
// edge checks, outputs 0..8 elements past a sector boundary, inputs on and off 4-byte boundaries).
TEST_F(SimtExecution, RealignedPairTransposeAtEveryOffset) {
    using Policy = gpucore::gpu::TuningPolicy::Transpose;
    using Mover = gpucore::gpu::RealignedPairMover<Policy::kPairTileRows, Policy::kPairBlockRows>;
    using gpucore::gpu::transpose_pairs_kernel;
    check_tile_transpose_at_every_offset<std::uint16_t>(
        stream_, transpose_pairs_kernel<Policy::kPairTileRows, Policy::kPairBlockRows, false>,
        transpose_pairs_kernel<Policy::kPairTileRows, Policy::kPairBlockRows, true>,
        dim3(Mover::kGroup, Policy::kPairBlockRows), Policy::kPairTileRows, Mover::kTileCols,
        {{2, 3}, {127, 33}, {129, 31}, {300, 65}, {513, 40}, {300, 130}, {290, 191}}, 1, 7);
}

// The 4-byte realigned-vector transpose at the launcher's tile shape, on both sides of its tiles'
// edges and the sectors' (odd and even row and column counts, inner tiles whose loads skip the edge
// checks, a last tile row of one row and a last tile column of one column, outputs 0..8 words past
// a sector boundary, inputs 0..3 words past a 16-byte boundary).
TEST_F(SimtExecution, RealignedVectorTransposeAtEveryOffset) {
    using Policy = gpucore::gpu::TuningPolicy::Transpose;
    constexpr int kTileRows = Policy::kRealignedVectorTileRows;
    constexpr int kTileCols = Policy::kRealignedVectorTileCols;
    constexpr int kThreads = Policy::kRealignedVectorThreads;
    constexpr int kLanes = Policy::kRealignedVectorLanes;
    using gpucore::gpu::transpose_realigned_vectors_kernel;
    check_tile_transpose_at_every_offset<std::uint32_t>(
        stream_, transpose_realigned_vectors_kernel<std::uint32_t, kTileRows, kTileCols, kThreads, kLanes, false>,
        transpose_realigned_vectors_kernel<std::uint32_t, kTileRows, kTileCols, kThreads, kLanes, true>,
        dim3(kThreads), kTileRows, kTileCols,
        {{2, 3}, {7, 40}, {129, 33}, {257, 71}, {300, 65}, {385, 97}, {264, 36}, {131, 104}}, 3, 11);
}

// The 2-byte transpose that loads and stores pairs, at both of the launcher's block shapes: even
// shapes on both sides of its tiles' edges (one partial tile, partial tile rows and columns, a
// single pair column), with a grid of one block (every tile in the loop) and of every tile, tiles
// along the rows of tiles and down the columns; the output 4 bytes into poison on both sides.
template <int kBlockRows>
void check_pair_tiles(simtStream_t stream) {
    using Policy = gpucore::gpu::TuningPolicy::Transpose;
    constexpr int kTile = Policy::kPairTile;
    constexpr auto across = gpucore::gpu::transpose_pair_tile_kernel<kTile, kBlockRows, false>;
    constexpr auto down_kernel = gpucore::gpu::transpose_pair_tile_kernel<kTile, kBlockRows, true>;
    std::mt19937 rng(kBlockRows);
    const std::pair<std::size_t, std::size_t> shapes[] = {{2, 2},    {64, 128}, {66, 130}, {130, 258},
                                                          {192, 2},  {2, 300},  {128, 64}, {16, 400}};
    for (const auto& [rows, cols] : shapes) {
        const std::size_t n = rows * cols;
        std::vector<std::uint16_t> in(n);
        for (auto& x : in) x = static_cast<std::uint16_t>(rng());
        const std::size_t tiles = ((rows + kTile - 1) / kTile) * ((cols / 2 + kTile - 1) / kTile);
        for (const auto grid : {std::size_t{1}, tiles}) {
            for (const bool down : {false, true}) {
                SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", block rows " +
                             std::to_string(kBlockRows) + ", grid " + std::to_string(grid) +
                             (down ? ", tiles down" : ", tiles across"));
                DeviceArray<std::uint32_t> d_in(n / 2), d_out(n / 2 + 2);
                std::memcpy(d_in.data, in.data(), n * sizeof(std::uint16_t));
                std::fill(d_out.data, d_out.data + n / 2 + 2, 0xA5A5A5A5u);
                launch_kernel(down ? down_kernel : across, static_cast<unsigned>(grid), dim3(kTile, kBlockRows), 0,
                              stream, d_in.data, d_out.data + 1, static_cast<std::uint32_t>(rows),
                              static_cast<std::uint32_t>(cols / 2));
                ASSERT_EQ(simtStreamSynchronize(stream), simtSuccess) << simtGetErrorString(simtErrorLaunchFailure);
                std::vector<std::uint16_t> got(n);
                std::memcpy(got.data(), d_out.data + 1, n * sizeof(std::uint16_t));
                for (std::size_t i = 0; i < n; ++i) {
                    ASSERT_EQ(got[i], in[(i % rows) * cols + i / rows]) << "out[" << i << "]";
                }
                EXPECT_EQ(d_out.data[0], 0xA5A5A5A5u) << "wrote before the output";
                EXPECT_EQ(d_out.data[n / 2 + 1], 0xA5A5A5A5u) << "wrote past the output";
            }
        }
    }
}

TEST_F(SimtExecution, PairTileTransposeAtBothBlockShapes) {
    check_pair_tiles<gpucore::gpu::TuningPolicy::Transpose::kPairTileBlockRows>(stream_);
    check_pair_tiles<gpucore::gpu::TuningPolicy::Transpose::kPairTileBlockRowsLarge>(stream_);
}

// One 4-byte tile kernel in both tile orders: rows x cols (passed as Index) with the output `offset`
// words into poison, a grid of one block (every tile in the loop) and of every tile (tiles of `tile`).
template <class Index, class Kernel>
void check_tiles_in_both_orders(simtStream_t stream, Kernel across, Kernel down_kernel, std::size_t tile,
                                std::size_t rows, std::size_t cols, std::size_t offset, dim3 block) {
    std::mt19937 rng(static_cast<unsigned>(rows * 31 + cols));
    const std::size_t n = rows * cols;
    std::vector<std::uint32_t> in(n);
    for (auto& x : in) x = static_cast<std::uint32_t>(rng());
    const std::size_t tiles = ((rows + tile - 1) / tile) * ((cols + tile - 1) / tile);
    for (const auto grid : {std::size_t{1}, tiles}) {
        for (const bool down : {false, true}) {
            SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", output at +" +
                         std::to_string(offset) + ", grid " + std::to_string(grid) +
                         (down ? ", tiles down" : ", tiles across"));
            DeviceArray<std::uint32_t> d_in(n), d_out(n + offset + 1);
            std::copy(in.begin(), in.end(), d_in.data);
            std::fill(d_out.data, d_out.data + n + offset + 1, 0xA5A5A5A5u);
            launch_kernel(down ? down_kernel : across, static_cast<unsigned>(grid), block, 0, stream, d_in.data,
                          d_out.data + offset, static_cast<Index>(rows), static_cast<Index>(cols));
            ASSERT_EQ(simtStreamSynchronize(stream), simtSuccess) << simtGetErrorString(simtErrorLaunchFailure);
            for (std::size_t i = 0; i < n + offset + 1; ++i) {
                const bool inside = i >= offset && i < offset + n;
                const std::size_t c = (i - offset) / rows, r = (i - offset) % rows;
                ASSERT_EQ(d_out.data[i], inside ? in[r * cols + c] : 0xA5A5A5A5u) << "out[" << i << "]";
            }
        }
    }
}

// The tile kernel (plain and with sector-aligned writes) and the 16-byte vector kernel, tiles along
// the rows of tiles and down the columns: partial tiles in both dimensions, outputs off sectors.
TEST_F(SimtExecution, TileTransposesInBothOrders) {
    using gpucore::gpu::transpose_kernel;
    using gpucore::gpu::transpose_vector_kernel;
    using Word = std::uint32_t;
    constexpr int kTile = 64, kRows = 8, kSector = 32;
    const std::pair<std::size_t, std::size_t> shapes[] = {{130, 200}, {67, 45}, {200, 131}};
    for (const auto& [rows, cols] : shapes) {
        check_tiles_in_both_orders<Word>(stream_, transpose_kernel<Word, Word, kTile, kRows, 0, false>,
                                   transpose_kernel<Word, Word, kTile, kRows, 0, true>, kTile, rows, cols, 0,
                                   dim3(kTile, kRows));
        for (const std::size_t offset : {0, 3}) {
            check_tiles_in_both_orders<Word>(stream_, transpose_kernel<Word, Word, kTile, kRows, kSector, false>,
                                       transpose_kernel<Word, Word, kTile, kRows, kSector, true>, kTile, rows, cols,
                                       offset, dim3(kTile, kRows));
        }
    }
    for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{132, 36}, {36, 132}, {64, 64}}) {
        check_tiles_in_both_orders<std::size_t>(stream_, transpose_vector_kernel<Word, 8, 4, false>,
                                   transpose_vector_kernel<Word, 8, 4, true>, 32, rows, cols, 0, dim3(8, 4));
    }
}

// The narrow transpose moving pairs of words (the launcher's chunk for each word size, direction
// and chunk scale), rows x cols with rows or cols the narrow side: every element in place and
// nothing written past the output, with a grid of one block (every chunk in the loop) and of every
// chunk.
template <class Word, int kSteps, bool kFewRows, bool kOddLong>
void check_narrow_pairs(simtStream_t stream, std::size_t rows, std::size_t cols, std::mt19937& rng) {
    using Policy = gpucore::gpu::TuningPolicy::Transpose;
    constexpr int kChunk = Policy::narrow_chunk(sizeof(Word), kFewRows, kSteps, 2);
    constexpr auto kernel =
        gpucore::gpu::transpose_narrow_kernel<Word, kChunk, Policy::kNarrow, kSteps, kFewRows, 2, kOddLong>;
    constexpr std::size_t kPositions = 2 * kChunk * kSteps;
    const std::size_t n = rows * cols;
    std::vector<Word> in(n);
    for (auto& x : in) x = static_cast<Word>(rng());
    const std::size_t chunks = ((kFewRows ? cols : rows) + kPositions - 1) / kPositions;
    constexpr Word kPoison = static_cast<Word>(0xA5A5A5A5u);
    for (const auto grid : {std::size_t{1}, chunks}) {
        SCOPED_TRACE(std::to_string(sizeof(Word)) + "-byte words, " + std::to_string(rows) + " x " +
                     std::to_string(cols) + ", grid " + std::to_string(grid));
        DeviceArray<Word> d_in(n), d_out(n + 2);
        std::copy(in.begin(), in.end(), d_in.data);
        std::fill(d_out.data, d_out.data + n + 2, kPoison);
        launch_kernel(kernel, static_cast<unsigned>(grid), kChunk, 0, stream, d_in.data, d_out.data, rows, cols);
        ASSERT_EQ(simtStreamSynchronize(stream), simtSuccess) << simtGetErrorString(simtErrorLaunchFailure);
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(d_out.data[i], in[(i % rows) * cols + i / rows]) << "out[" << i << "]";
        }
        EXPECT_EQ(d_out.data[n], kPoison) << "wrote past the end";
        EXPECT_EQ(d_out.data[n + 1], kPoison) << "wrote past the end";
    }
}

// Narrow sides at every chunk scale (2: 8 steps, 3: 4, 7: 2, 9 and 16: 1), long sides odd (every
// other piece row off a pair boundary, runs of an odd length) and even, short of, at and past a
// chunk's end, both directions.
template <class Word>
void check_narrow_pairs(simtStream_t stream) {
    std::mt19937 rng(11);
    for (const std::size_t narrow : {2, 3, 7, 9, 16}) {
        for (const std::size_t length : {17, 127, 128, 255, 256, 257, 513, 2049, 4097}) {
            if (length <= narrow) continue;
            const auto check = [&](auto steps) {
                constexpr int kSteps = decltype(steps)::value;
                if (length % 2) {
                    check_narrow_pairs<Word, kSteps, true, true>(stream, narrow, length, rng);
                    check_narrow_pairs<Word, kSteps, false, true>(stream, length, narrow, rng);
                } else {
                    check_narrow_pairs<Word, kSteps, true, false>(stream, narrow, length, rng);
                    check_narrow_pairs<Word, kSteps, false, false>(stream, length, narrow, rng);
                }
            };
            const std::size_t steps = 16 / narrow; // the launcher's: the largest power of two up to it
            if (steps >= 8) check(std::integral_constant<int, 8>{});
            else if (steps >= 4) check(std::integral_constant<int, 4>{});
            else if (steps >= 2) check(std::integral_constant<int, 2>{});
            else check(std::integral_constant<int, 1>{});
        }
    }
}

TEST_F(SimtExecution, NarrowTransposeInPairsOfTwoByteWords) { check_narrow_pairs<std::uint16_t>(stream_); }
TEST_F(SimtExecution, NarrowTransposeInPairsOfFourByteWords) { check_narrow_pairs<std::uint32_t>(stream_); }

// The few-columns kernel that writes each output row in windows on its sector boundaries (the
// launcher's threads and rows per step), length x kNarrow: long sides short of, at and past a
// step's end, on and off sectors, outputs at element offsets inside a sector, a grid of one block
// (every step in the loop) and of every step; every element in place, poison before and after.
template <class Word, int kNarrow>
void check_narrow_sectors(simtStream_t stream, std::mt19937& rng) {
    using Policy = gpucore::gpu::TuningPolicy::Transpose;
    constexpr int kPositions = Policy::kNarrowSectorsPositions;
    constexpr int kThreads = Policy::narrow_sectors_threads(sizeof(Word));
    constexpr auto kernel = gpucore::gpu::transpose_narrow_sectors_kernel<Word, kNarrow, kThreads, kPositions>;
    constexpr Word kPoison = static_cast<Word>(0xA5A5A5A5u);
    constexpr std::size_t kPad = 40; // poison words on each side of the output
    for (const std::size_t length : {5, 17, 255, 256, 257, 272, 529, 1040, 1301}) {
        const std::size_t n = length * kNarrow;
        std::vector<Word> in(n);
        for (auto& x : in) x = static_cast<Word>(rng());
        const std::size_t steps = (length + kPositions - 1) / kPositions;
        for (const std::size_t offset : {0, 1, 3, 5}) {
            for (const auto grid : {std::size_t{1}, steps}) {
                SCOPED_TRACE(std::to_string(sizeof(Word)) + "-byte words, " + std::to_string(length) + " x " +
                             std::to_string(kNarrow) + ", output at +" + std::to_string(offset) + ", grid " +
                             std::to_string(grid));
                DeviceArray<Word> d_in(n), d_out(n + 2 * kPad);
                std::copy(in.begin(), in.end(), d_in.data);
                std::fill(d_out.data, d_out.data + n + 2 * kPad, kPoison);
                Word* out = d_out.data + kPad + offset; // the allocation starts on 16 bytes or more
                launch_kernel(kernel, static_cast<unsigned>(grid), kThreads, 0, stream, d_in.data, out, length);
                ASSERT_EQ(simtStreamSynchronize(stream), simtSuccess) << simtGetErrorString(simtErrorLaunchFailure);
                for (std::size_t i = 0; i < n; ++i) {
                    ASSERT_EQ(out[i], in[(i % length) * kNarrow + i / length]) << "out[" << i << "]";
                }
                for (std::size_t i = 0; i < kPad + offset; ++i) ASSERT_EQ(d_out.data[i], kPoison) << "before, " << i;
                for (std::size_t i = kPad + offset + n; i < n + 2 * kPad; ++i) {
                    ASSERT_EQ(d_out.data[i], kPoison) << "past the end, " << i;
                }
            }
        }
    }
}

TEST_F(SimtExecution, NarrowTransposeInSectorWindows) {
    std::mt19937 rng(23);
    check_narrow_sectors<std::uint16_t, 8>(stream_, rng);  // rows of one 16-byte load
    check_narrow_sectors<std::uint16_t, 9>(stream_, rng);  // rows of 2-byte loads
    check_narrow_sectors<std::uint16_t, 12>(stream_, rng); // rows of 8-byte loads
    check_narrow_sectors<std::uint16_t, 16>(stream_, rng);
    check_narrow_sectors<std::uint32_t, 9>(stream_, rng);  // rows of 4-byte loads
    check_narrow_sectors<std::uint32_t, 14>(stream_, rng);
    check_narrow_sectors<std::uint32_t, 16>(stream_, rng);
}

TEST_F(SimtExecution, SharedMemoryIsPerBlock) {
    DeviceArray<unsigned> wrong(1);
    *wrong.data = 0;
    launch_kernel(shared_is_per_block_kernel, 200, 256, 0, stream_, wrong.data);
    ASSERT_EQ(simtStreamSynchronize(stream_), simtSuccess) << simtGetErrorString(simtErrorLaunchFailure);
    EXPECT_EQ(*wrong.data, 0u);
}

TEST_F(SimtExecution, MissingBarrierIsVisibleInEveryBlock) {
    DeviceArray<unsigned> wrong(1);
    unsigned salt = 0;
    for (unsigned blocks : {1u, 2u, 9u}) {
        *wrong.data = 0;
        salt += 1000000u;
        launch_kernel(missing_barrier_kernel, blocks, 256, 0, stream_, wrong.data, salt);
        ASSERT_EQ(simtStreamSynchronize(stream_), simtSuccess);
        // Half of every block reads a slot its mirror thread has not written yet.
        EXPECT_EQ(*wrong.data, blocks * 128) << blocks << " blocks";
    }
}

TEST_F(SimtExecution, AtomicsAndFencesMakeTheLastBlockExact) {
    constexpr unsigned kBlocks = 300;
    DeviceArray<unsigned> partials(kBlocks), ticket(1), out(1), counter(1);
    for (int run = 0; run < 5; ++run) {
        *ticket.data = 0;
        *out.data = 0;
        *counter.data = 0;
        launch_kernel(last_block_sum_kernel, kBlocks, 64, 0, stream_, partials.data, ticket.data, out.data);
        launch_kernel(atomic_count_kernel, kBlocks, 128, 0, stream_, counter.data);
        ASSERT_EQ(simtStreamSynchronize(stream_), simtSuccess) << simtGetErrorString(simtErrorLaunchFailure);
        EXPECT_EQ(*out.data, kBlocks * (kBlocks + 1) / 2);
        EXPECT_EQ(*ticket.data, kBlocks);
        EXPECT_EQ(*counter.data, kBlocks * 128);
    }
}

TEST_F(SimtExecution, StreamRunsWorkInOrderAndEventsComplete) {
    DeviceArray<unsigned> counter(1);
    *counter.data = 0;
    simtEvent_t done = nullptr;
    ASSERT_EQ(simtEventCreate(&done), simtSuccess);
    for (int i = 0; i < 20; ++i) launch_kernel(atomic_count_kernel, 3, 64, 0, stream_, counter.data);
    ASSERT_EQ(simtEventRecord(done, stream_), simtSuccess);
    ASSERT_EQ(simtEventSynchronize(done), simtSuccess);
    EXPECT_EQ(*counter.data, 20u * 3 * 64);
    EXPECT_EQ(simtEventQuery(done), simtSuccess);
    EXPECT_EQ(simtEventDestroy(done), simtSuccess);
}

TEST_F(SimtExecution, InvalidLaunchShapesAreRefused) {
    DeviceArray<unsigned> counter(1);
    launch_kernel(atomic_count_kernel, 1, 1025, 0, stream_, counter.data);
    EXPECT_EQ(simtGetLastError(), simtErrorInvalidConfiguration);
    launch_kernel(atomic_count_kernel, 0, 64, 0, stream_, counter.data);
    EXPECT_EQ(simtGetLastError(), simtErrorInvalidConfiguration);
    launch_kernel(atomic_count_kernel, 1, 64, 16, stream_, counter.data);
    EXPECT_EQ(simtGetLastError(), simtErrorInvalidConfiguration) << "no dynamic shared memory";
    EXPECT_EQ(simtGetLastError(), simtSuccess) << "reading the last error resets it";
}

// ---- what a GPU cannot run --------------------------------------------------------------------------

TEST_F(SimtExecution, BarrierReachedByHalfOfEveryWarpIsAFault) {
    DeviceArray<unsigned> out(256);
    launch_kernel(barrier_in_divergent_warp_kernel, 2, 256, 0, stream_, out.data);
    expect_fault({"__syncthreads", "simt_execution_test.cpp", "divergent"});
}

TEST_F(SimtExecution, BarriersAtDifferentSitesAreAFault) {
    DeviceArray<unsigned> out(128);
    launch_kernel(two_barriers_kernel, 1, 128, 0, stream_, out.data);
    expect_fault({"different __syncthreads", "simt_execution_test.cpp"});
}

TEST_F(SimtExecution, BarrierAgainstShuffleInOneWarpIsADeadlock) {
    DeviceArray<unsigned> out(2 * kWarp);
    launch_kernel(barrier_against_shuffle_kernel, 1, 2 * kWarp, 0, stream_, out.data);
    expect_fault({"deadlock", "__syncthreads", "shuffle", "simt_execution_test.cpp"});
}

TEST_F(SimtExecution, ShuffleWithoutTheWholeWarpIsAFault) {
    DeviceArray<unsigned> out(kWarp);
    launch_kernel(shuffle_in_half_warp_kernel, 1, kWarp, 0, stream_, out.data);
    expect_fault({"shuffle", "every lane of its warp"});
}

TEST_F(SimtExecution, ShuffleInAPartialWarpIsAFault) {
    const auto in = random_words(kWarp + kWarp / 2, 3);
    DeviceArray<std::uint64_t> d_in(in.size()), d_out(in.size());
    std::copy(in.begin(), in.end(), d_in.data);
    launch_kernel(shuffle_xor_kernel, 1, kWarp + kWarp / 2, 0, stream_, d_in.data, d_out.data, 1,
                  kWarpSize);
    expect_fault({"not a whole number of warps"});
}

TEST_F(SimtExecution, WorkAfterAFaultNeverRuns) {
    DeviceArray<unsigned> out(256), counter(1);
    *counter.data = 0;
    launch_kernel(barrier_in_divergent_warp_kernel, 1, 256, 0, stream_, out.data);
    launch_kernel(atomic_count_kernel, 4, 64, 0, stream_, counter.data);
    EXPECT_EQ(simtStreamSynchronize(stream_), simtErrorLaunchFailure);
    EXPECT_EQ(*counter.data, 0u);
    ASSERT_EQ(simtDeviceReset(), simtSuccess);
    launch_kernel(atomic_count_kernel, 4, 64, 0, stream_, counter.data);
    ASSERT_EQ(simtStreamSynchronize(stream_), simtSuccess);
    EXPECT_EQ(*counter.data, 4u * 64);
}

} // namespace

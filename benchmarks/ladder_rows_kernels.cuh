// SPDX-License-Identifier: Apache-2.0
// The batched row-sum lessons: `out[r] = sum of row r` of a rows x cols row-major f32 matrix.
//   v1 (shared memory): one block of 256 threads per row; each thread adds a strided slice of the
//       row, then the block reduces its 256 sums in a shared-memory tree;
//   v2 (shuffle): the same row walk, reduced by warp shuffles (a shuffle per warp, one shared word
//       per warp, a last shuffle in the first warp): fewer barriers, no shared-memory tree.
//   tiled partition: short rows, one cooperative-groups tile per row; the tile's lanes walk the
//       row, then add across the tile with the tile's own shuffle. Tile widths 8, 16 and the
//       warp width (kWarpSize of the vendor header: 32 on NVIDIA, 64 on CDNA).
// Grids walk the rows (any number of rows); every lane of a tile takes the same trips.
#pragma once

#include <cstddef>

#include "ladder_groups.cuh"
#include "ladder_reduce_kernels.cuh"

namespace ladder {

struct RowsShape {
    static constexpr int kThreads = 256;
};

__global__ void rows_shared_kernel(const float* in, std::size_t rows, std::size_t cols, float* out) {
    __shared__ float sums[RowsShape::kThreads];
    const unsigned tid = threadIdx.x;
    for (std::size_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* row = in + r * cols;
        float sum = 0.0f;
        for (std::size_t c = tid; c < cols; c += blockDim.x) sum += row[c];
        sums[tid] = sum;
        __syncthreads();
        for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
            if (tid < stride) sums[tid] += sums[tid + stride];
            __syncthreads();
        }
        if (tid == 0) out[r] = sums[0];
        __syncthreads(); // sums[0] is read before the next row overwrites it
    }
}

__global__ void rows_shuffle_kernel(const float* in, std::size_t rows, std::size_t cols, float* out) {
    for (std::size_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* row = in + r * cols;
        float sum = 0.0f;
        for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) sum += row[c];
        sum = block_sum_shuffle(sum);
        if (threadIdx.x == 0) out[r] = sum;
    }
}

// kTileLanes = 0 stands for the warp width of the target being compiled: the host names the same
// kernel for every target, and each target's code uses its own width.
template <int kTileLanes>
__global__ void rows_tiled_partition_kernel(const float* in, std::size_t rows, std::size_t cols,
                                            float* out) {
    constexpr int kTile = kTileLanes == 0 ? gpucore::gpu::kWarpSize : kTileLanes;
    const auto tile = tiled_partition<kTile>(this_thread_block());
    const std::size_t tiles_per_block = blockDim.x / kTile;
    const std::size_t tile_in_block = threadIdx.x / kTile;
    const unsigned lane = tile.thread_rank();
    for (std::size_t r = blockIdx.x * tiles_per_block + tile_in_block; r < rows;
         r += gridDim.x * tiles_per_block) {
        const float* row = in + r * cols;
        float sum = 0.0f;
        for (std::size_t c = lane; c < cols; c += kTile) sum += row[c];
        for (int offset = kTile / 2; offset > 0; offset /= 2) sum += tile.shfl_down(sum, offset);
        if (lane == 0) out[r] = sum;
    }
}

} // namespace ladder

// SPDX-License-Identifier: Apache-2.0
// The reduction lesson's ladder (f32 sum), with its launch shape: blocks of 512 threads, one
// partial sum per block (the host adds the partials), except the last rung, which finishes on the
// device in one launch.
//   neighbored:  in place in global memory, stride 1, 2, 4, ...: `tid % (2 * stride)` leaves most
//                lanes of each warp idle (divergence);
//   interleaved: in place, stride blockDim/2, /4, ...: the working threads are contiguous;
//   unrolled xK: each block first folds K blocks' worth of input into its first one (in place),
//                then reduces interleaved: 1/K of the blocks, K loads in flight per thread;
//   shuffle:     unrolled x4 into a register (the input stays untouched), then a warp-shuffle
//                reduction per warp and one across the warps;
//   last block:  one wave of blocks walking the input grid-stride; each block stores its partial,
//                fences and takes a ticket; the block with the last ticket adds the partials and
//                writes the total (and rearms the ticket counter for the next launch).
// Every rung handles any n (tails are guarded); the in-place rungs overwrite their input.
#pragma once

#include <cstddef>

#include "gpu_vendor.hpp"

namespace ladder {

struct ReduceShape {
    static constexpr int kThreads = 512;     // the lesson's block
    static constexpr int kLastBlockThreads = 256;
};

inline unsigned reduce_grid(std::size_t n, int elements_per_thread) {
    const std::size_t per_block = static_cast<std::size_t>(ReduceShape::kThreads) * elements_per_thread;
    return static_cast<unsigned>((n + per_block - 1) / per_block);
}

// In place over data[base, base + blockDim) (elements at or past n are never touched): thread 0
// ends with the block's sum in data[base]. Needs blockDim a power of two.
__device__ inline void interleaved_in_place(float* data, std::size_t base, std::size_t n) {
    const unsigned tid = threadIdx.x;
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride && base + tid + stride < n) data[base + tid] += data[base + tid + stride];
        __syncthreads();
    }
}

__global__ void reduce_neighbored_kernel(float* data, std::size_t n, float* partials) {
    const unsigned tid = threadIdx.x;
    const std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x;
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0 && base + tid + stride < n) data[base + tid] += data[base + tid + stride];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = data[base];
}

__global__ void reduce_interleaved_kernel(float* data, std::size_t n, float* partials) {
    const std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x;
    interleaved_in_place(data, base, n);
    if (threadIdx.x == 0) partials[blockIdx.x] = data[base];
}

template <int kUnroll>
__global__ void reduce_unrolled_kernel(float* data, std::size_t n, float* partials) {
    const std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x * kUnroll;
    const std::size_t i = base + threadIdx.x;
    if (i < n) {
        float sum = data[i];
#pragma unroll
        for (int k = 1; k < kUnroll; ++k) {
            const std::size_t j = i + static_cast<std::size_t>(k) * blockDim.x;
            if (j < n) sum += data[j];
        }
        data[i] = sum;
    }
    __syncthreads();
    interleaved_in_place(data, base, n);
    if (threadIdx.x == 0) partials[blockIdx.x] = data[base];
}

// Sum over the block; the result is valid in thread 0. Whole warps only (blockDim a multiple of
// the warp width, at most kWarpSize warps). Starts with a barrier, so it may be called again.
__device__ inline float block_sum_shuffle(float value) {
    using gpucore::gpu::kWarpSize;
    __shared__ float warp_sums[1024 / kWarpSize];
    const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
    const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
    const int warps = static_cast<int>(blockDim.x) / kWarpSize;
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) value += gpucore::gpu::shfl_xor(value, offset, kWarpSize);
    __syncthreads();
    if (lane == 0) warp_sums[warp] = value;
    __syncthreads();
    if (warp == 0) {
        value = lane < warps ? warp_sums[lane] : 0.0f;
        for (int offset = kWarpSize / 2; offset > 0; offset /= 2) value += gpucore::gpu::shfl_xor(value, offset, kWarpSize);
    }
    return value;
}

__global__ void reduce_shuffle_kernel(const float* in, std::size_t n, float* partials) {
    constexpr int kUnroll = 4;
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x * kUnroll + threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
        const std::size_t j = i + static_cast<std::size_t>(k) * blockDim.x;
        if (j < n) sum += in[j];
    }
    sum = block_sum_shuffle(sum);
    if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

// `tickets` must be 0 before the first launch; the last block sets it back to 0.
__global__ void reduce_last_block_kernel(const float* in, std::size_t n, float* partials,
                                         unsigned int* tickets, float* total) {
    __shared__ bool is_last;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    float sum = 0.0f;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) { // four independent loads in flight
        sum += (in[i] + in[i + stride]) + (in[i + 2 * stride] + in[i + 3 * stride]);
    }
    for (; i < n; i += stride) sum += in[i];
    sum = block_sum_shuffle(sum);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sum;
        __threadfence(); // the partial is visible device-wide before the ticket is taken
        is_last = atomicAdd(tickets, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;
    sum = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) sum += gpucore::gpu::load_coherent(partials + b);
    sum = block_sum_shuffle(sum);
    if (threadIdx.x == 0) {
        *total = sum;
        *tickets = 0;
    }
}

} // namespace ladder

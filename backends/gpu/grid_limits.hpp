// SPDX-License-Identifier: Apache-2.0
// How many blocks one launch may have along x, on every vendor the kernels are built for.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace gpucore::gpu {

// CUDA runs at most 2^31 - 1 blocks along x. HIP also needs gridDim.x * blockDim.x below 2^32:
// AMD's dispatch packet holds each dimension's size in work-items, in 32 bits, and past it some
// ROCm releases refuse the launch while others run a truncated grid. Every kernel strides over its
// work by gridDim.x, so a grid capped here still covers all of it; 2^24 blocks of 256 threads
// fill any GPU many times over, so the cap costs no speed on either vendor.
constexpr std::size_t max_grid_blocks(std::size_t block_threads_x) {
    return std::min<std::size_t>(INT_MAX, std::numeric_limits<std::uint32_t>::max() / std::max<std::size_t>(block_threads_x, 1));
}

// `blocks` (at least 1), capped for blocks of `block_threads_x` threads along x.
constexpr unsigned int capped_grid(std::size_t blocks, std::size_t block_threads_x) {
    return static_cast<unsigned int>(std::max<std::size_t>(1, std::min(blocks, max_grid_blocks(block_threads_x))));
}

} // namespace gpucore::gpu

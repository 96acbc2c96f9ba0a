// SPDX-License-Identifier: Apache-2.0
// The three reduce_rows kernels' launchers, one translation unit each (they are many template
// instances: separate files compile in parallel). Internal to launch_reduce_rows.cu.
#pragma once

#include <cstddef>

#include "launch.hpp"

namespace gpucore::gpu {

void launch_rows_sub_warp(gpucore_dtype dtype, gpucore_reduce_op op, const void* in,
                          std::size_t rows, std::size_t cols, void* out, const RowPlan& plan,
                          const LaunchContext& ctx);
void launch_rows_warp(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, std::size_t rows,
                      std::size_t cols, void* out, const RowPlan& plan, const LaunchContext& ctx);
void launch_rows_block(gpucore_dtype dtype, gpucore_reduce_op op, const void* in,
                       std::size_t rows, std::size_t cols, void* out, const RowPlan& plan,
                       const LaunchContext& ctx);

// Blocks of the split (several blocks per row) kernel for dtype and op resident at once.
std::size_t rows_split_wave_blocks(gpucore_dtype dtype, gpucore_reduce_op op,
                                   const LaunchContext& ctx);

} // namespace gpucore::gpu

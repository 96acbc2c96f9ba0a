// SPDX-License-Identifier: Apache-2.0
// Host entry points of the kernels: each checks nothing the core already checked, sizes the grid,
// enqueues ONE kernel (or one runtime copy) on the stream and returns. A failed launch throws
// GpuError (gpu_error.hpp). Thread safety: any thread, any stream; launches on one stream run in
// order, which is what makes the per-stream scratch safe to reuse.
#pragma once

#include <cstddef>

#include "device_shape.hpp"
#include "gpu_vendor.hpp"
#include "gpucore/plugin.h"
#include "reduce_rows_plan.hpp"

namespace gpucore::gpu {

// Device memory owned by a stream for the single-pass kernels (see TuningPolicy::Scratch).
// Tickets are zero between launches.
struct StreamScratch {
    void* partials = nullptr;        // TuningPolicy::Scratch::kPartialSlots 8-byte slots
    unsigned int* tickets = nullptr; // TuningPolicy::Scratch::kTicketSlots counters
};

struct LaunchContext {
    gpuStream_t stream = nullptr;
    DeviceShape device;
    StreamScratch scratch;
};

// c[i] = a[i] + b[i]; integers wrap; f16/bf16 add in float, rounded once. Pointers aligned to
// their element size (16-byte vectors only where all three are equally placed).
void launch_vector_add(gpucore_dtype dtype, const void* a, const void* b, void* c, std::size_t n,
                       const LaunchContext& ctx);

// `count` copies of the element_size-byte (1, 2, 4, 8) pattern at `value`.
void launch_fill(void* dst, const void* value, std::size_t element_size, std::size_t count,
                 const LaunchContext& ctx);

// out (cols x rows) = in (rows x cols) transposed.
void launch_transpose(gpucore_dtype dtype, const void* in, void* out, std::size_t rows,
                      std::size_t cols, const LaunchContext& ctx);

// out[0] = op over in[0..n); identity for n == 0. One launch.
void launch_reduce(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, std::size_t n,
                   void* out, const LaunchContext& ctx);

// out[r] = op over row r; the plan from plan_reduce_rows. One launch.
void launch_reduce_rows(gpucore_dtype dtype, gpucore_reduce_op op, const void* in,
                        std::size_t rows, std::size_t cols, void* out, const LaunchContext& ctx);

// The same with a given plan (tests force each strategy with it).
void launch_reduce_rows_planned(gpucore_dtype dtype, gpucore_reduce_op op, const void* in,
                                std::size_t rows, std::size_t cols, void* out,
                                const RowPlan& plan, const LaunchContext& ctx);

} // namespace gpucore::gpu

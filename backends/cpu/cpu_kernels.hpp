// SPDX-License-Identifier: Apache-2.0
// The CPU backend's kernels: what the queued tasks run. Each shares its work over the backend's
// thread pool (cpu_thread_pool.hpp) with the calling stream worker, and stays on one thread for
// small inputs, where waking the pool would cost more than the work. Inner loops are written to
// vectorise.
//
// All functions may be called concurrently on disjoint outputs. Unknown dtypes or ops throw
// BackendError(NOT_SUPPORTED); scratch allocation failure throws std::bad_alloc.
#pragma once

#include <cstddef>
#include <cstdint>

#include <type_traits>

#include "gpucore/element_types.hpp"
#include "gpucore/plugin.h"

namespace gpucore::cpu {

// True for the dtypes and reduce ops this backend implements (all of the contract's).
bool is_known_dtype(gpucore_dtype dtype) noexcept;
bool is_known_reduce_op(gpucore_reduce_op op) noexcept;
using gpucore::element_size; // bytes per element of a dtype (0 for an unknown dtype)

// The type integer sums, products and additions are computed in: the unsigned type of the same
// width, so they wrap as unsigned arithmetic does, with no signed-overflow UB for i32.
template <class T, bool = std::is_integral_v<T>>
struct Wrapping {
    using type = T;
};
template <class T>
struct Wrapping<T, true> {
    using type = std::make_unsigned_t<T>;
};

// memcpy of `bytes`, split over threads when large. dst and src must not overlap.
void copy_bytes(void* dst, const void* src, std::size_t bytes);
// Writes `count` copies of the low `element_size` (1, 2, 4 or 8) bytes of `pattern` (in memory
// order, as the caller's value was laid out) to dst.
void fill_pattern(void* dst, std::uint64_t pattern, std::size_t element_size, std::size_t count);

// c[i] = a[i] + b[i]; integers wrap. c may be a or b (exactly), but may not partially overlap them.
void vector_add(gpucore_dtype dtype, const void* a, const void* b, void* c, std::size_t n);

// out (cols x rows, row-major) = transpose of in (rows x cols, row-major); no overlap. Cache-blocked
// tiles, threads over tiles; any shape.
void transpose(gpucore_dtype dtype, const void* in, void* out, std::size_t rows, std::size_t cols);

// out[r] = op over in[r*cols .. r*cols+cols) for r < rows; cols == 0 gives identities. reduce of n
// elements is reduce_rows with rows = 1. Float sums are pairwise trees over fixed chunks (results
// do not depend on the thread count); float min/max propagate NaN; integer sum/prod wrap.
void reduce_rows(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, std::size_t rows,
                 std::size_t cols, void* out);

// The operations' slots, each written beside its kernel: every filler stores its file's slots in
// the table (cpu_backend.cpp's make_table calls them). A new operation of an existing family adds
// its slot and one line to that family's filler.
void fill_elementwise_slots(gpucore_plugin_api& table) noexcept; // vector_add
void fill_transpose_slots(gpucore_plugin_api& table) noexcept;   // transpose
void fill_reduce_slots(gpucore_plugin_api& table) noexcept;      // reduce, reduce_rows

} // namespace gpucore::cpu

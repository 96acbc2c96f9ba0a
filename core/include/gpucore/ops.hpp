// SPDX-License-Identifier: Apache-2.0
// The operations, enqueued on a stream. All buffers must live on the stream's device; lengths are
// checked before anything is enqueued (Error(invalid_argument) naming the operation and the cause).
// Element counts are size_t: inputs larger than 2^31 elements are supported.
#pragma once

#include <cstddef>

#include "gpucore/buffer.hpp"
#include "gpucore/stream.hpp"
#include "gpucore/types.hpp"

namespace gpucore {
namespace detail {
// Untyped entry points behind the templates below.
GPUCORE_API void vector_add(Stream& stream, DType dtype, const Allocation& a, const Allocation& b,
                const Allocation& c, std::size_t n_a, std::size_t n_b, std::size_t n_c);
GPUCORE_API void transpose(Stream& stream, DType dtype, const Allocation& in, const Allocation& out,
               std::size_t n_in, std::size_t n_out, std::size_t rows, std::size_t cols);
GPUCORE_API void reduce(Stream& stream, DType dtype, ReduceOp op, const Allocation& in, const Allocation& out,
            std::size_t n_in, std::size_t n_out);
GPUCORE_API void reduce_rows(Stream& stream, DType dtype, ReduceOp op, const Allocation& in,
                 const Allocation& out, std::size_t n_in, std::size_t n_out, std::size_t rows,
                 std::size_t cols);
// Makes work enqueued on `stream` from now on wait for the work enqueued so far on the device's
// other streams (the ordering point of the blocking calls that run on a user's stream).
GPUCORE_API void order_after_device_work(Stream& stream, const char* operation);
} // namespace detail

// c = a + b, element-wise; a, b, c of equal length. Integers wrap. c may be a or b.
template <class T>
void vector_add(Stream& stream, const Buffer<T>& a, const Buffer<T>& b, Buffer<T>& c) {
    detail::vector_add(stream, dtype_of<T>(), a.allocation(), b.allocation(), c.allocation(),
                       a.size(), b.size(), c.size());
}

// out (cols x rows) = in (rows x cols) transposed; row-major; any shape; in and out must each
// hold exactly rows * cols elements (checked for overflow) and must be different buffers.
template <class T>
void transpose(Stream& stream, const Buffer<T>& in, Buffer<T>& out, std::size_t rows,
               std::size_t cols) {
    detail::transpose(stream, dtype_of<T>(), in.allocation(), out.allocation(), in.size(),
                      out.size(), rows, cols);
}

// out[0] = op over all of `in` (out must hold at least one element; only out[0] is written).
// Empty input gives the identity: sum 0, prod 1, min +inf / numeric max, max -inf / lowest.
// Integer sum and prod wrap as unsigned arithmetic does (also for i32). Float min/max propagate
// NaN: a NaN anywhere in the input gives NaN. Float sums are tree-accumulated.
template <class T>
void reduce(Stream& stream, const Buffer<T>& in, Buffer<T>& out, ReduceOp op) {
    detail::reduce(stream, dtype_of<T>(), op, in.allocation(), out.allocation(), in.size(),
                   out.size());
}

// out[r] = op over row r of `in` (rows x cols, row-major); out holds exactly `rows` elements.
template <class T>
void reduce_rows(Stream& stream, const Buffer<T>& in, Buffer<T>& out, std::size_t rows,
                 std::size_t cols, ReduceOp op) {
    detail::reduce_rows(stream, dtype_of<T>(), op, in.allocation(), out.allocation(), in.size(),
                        out.size(), rows, cols);
}

// Blocking convenience: reduces `in` on `stream` and returns the value (synchronizes `stream`).
// Like every blocking call, it sees the work enqueued before it on every stream of the device.
template <class T>
T reduce(Stream& stream, const Buffer<T>& in, ReduceOp op) {
    Buffer<T> out(stream.device(), 1);
    detail::order_after_device_work(stream, "reduce");
    reduce(stream, in, out, op);
    T value{};
    out.copy_to_host_async(stream, &value, 1);
    stream.synchronize();
    return value;
}

} // namespace gpucore

// SPDX-License-Identifier: Apache-2.0
// The operations, enqueued on a stream. All buffers and views must live on the stream's device; lengths are
// checked before anything is enqueued (Error(invalid_argument) naming the operation and the cause).
// Element counts are size_t: inputs larger than 2^31 elements are supported.
#pragma once

#include <cstddef>
#include <type_traits>

#include "gpucore/buffer.hpp"
#include "gpucore/buffer_view.hpp"
#include "gpucore/stream.hpp"
#include "gpucore/types.hpp"

namespace gpucore {

// The facts of one operation that tools derive from (the `gpucore` command's cases, the
// benchmarks' byte counts): its name, the shape of its operands, its input buffers, its output's
// length and whether it takes a ReduceOp. One per operation, in `op_info` below.
struct OpInfo {
    enum class Layout { vector, matrix };                 // n elements, or rows x cols
    enum class Output { like_input, one, one_per_row };   // rows * cols, 1 or rows elements

    const char* name = "";
    Layout layout = Layout::vector;
    std::size_t inputs = 1; // input buffers, each of rows * cols elements
    Output output = Output::like_input;
    bool takes_reduce_op = false;

    constexpr bool is_matrix() const noexcept { return layout == Layout::matrix; }
    // The output's length for a rows x cols input (vector operations: rows = 1).
    constexpr std::size_t output_elements(std::size_t rows, std::size_t cols) const noexcept {
        switch (output) {
        case Output::like_input: return rows * cols;
        case Output::one: return 1;
        case Output::one_per_row: return rows;
        }
        return 0;
    }
    // Bytes the operation must read plus bytes it must write, for a rows x cols input of
    // `element_bytes`-byte elements: the numerator of "effective bandwidth".
    constexpr double bytes_moved(std::size_t element_bytes, std::size_t rows, std::size_t cols) const noexcept {
        return static_cast<double>(element_bytes) *
               (static_cast<double>(inputs) * static_cast<double>(rows * cols) +
                static_cast<double>(output_elements(rows, cols)));
    }
};

namespace op_info {
inline constexpr OpInfo vector_add{"vector_add", OpInfo::Layout::vector, 2, OpInfo::Output::like_input, false};
inline constexpr OpInfo transpose{"transpose", OpInfo::Layout::matrix, 1, OpInfo::Output::like_input, false};
inline constexpr OpInfo reduce{"reduce", OpInfo::Layout::vector, 1, OpInfo::Output::one, true};
inline constexpr OpInfo reduce_rows{"reduce_rows", OpInfo::Layout::matrix, 1, OpInfo::Output::one_per_row, true};
} // namespace op_info

namespace detail {
// Untyped entry points behind the templates below.
GPUCORE_API void vector_add(Stream& stream, DType dtype, const MemoryRange& a, const MemoryRange& b,
                const MemoryRange& c, std::size_t n_a, std::size_t n_b, std::size_t n_c);
GPUCORE_API void transpose(Stream& stream, DType dtype, const MemoryRange& in, const MemoryRange& out,
               std::size_t n_in, std::size_t n_out, std::size_t rows, std::size_t cols);
GPUCORE_API void reduce(Stream& stream, DType dtype, ReduceOp op, const MemoryRange& in, const MemoryRange& out,
            std::size_t n_in, std::size_t n_out);
GPUCORE_API void reduce_rows(Stream& stream, DType dtype, ReduceOp op, const MemoryRange& in,
                 const MemoryRange& out, std::size_t n_in, std::size_t n_out, std::size_t rows,
                 std::size_t cols);
// The blocking reduce behind the template below: orders `stream` after the device's other work,
// reduces `in` into memory the stream keeps for it, copies the value (size_of(dtype) bytes) to
// `value` and synchronizes `stream`.
GPUCORE_API void reduce_value(Stream& stream, DType dtype, ReduceOp op, const MemoryRange& in, std::size_t n_in,
                              void* value);
// Makes work enqueued on `stream` from now on wait for the work enqueued so far on the device's
// other streams (the ordering point of the blocking calls that run on a user's stream).
GPUCORE_API void order_after_device_work(Stream& stream, const char* operation);

// Compile-time checks of the operands of one operation: Buffer<T> or BufferView<T> of one T;
// outputs writable (a Buffer<T> that is not const, or a BufferView<T> of non-const T).
template <class Out, class... In>
constexpr bool check_operands() {
    static_assert((is_operand_v<In> && ...) && is_operand_v<Out>,
                  "gpucore operations take Buffer<T> and BufferView<T> operands");
    static_assert((std::is_same_v<operand_element_t<In>, operand_element_t<Out>> && ...),
                  "all operands of a gpucore operation have the same element type");
    static_assert(is_writable_operand_v<Out>,
                  "the output of a gpucore operation is a non-const Buffer<T> or a BufferView<T> (not BufferView<const T>)");
    return true;
}
} // namespace detail

// Every operand below is a Buffer<T> or a BufferView<T> (buffer.view(offset, count)); outputs are
// a non-const Buffer<T> or a BufferView<T> of non-const T. Views at any element offset work. A
// view whose memory was released, or a null buffer, is Error(invalid_argument).
//
// Aliasing (checked: a violation is Error(invalid_argument)):
//  - vector_add: c may be exactly a or b (same address and length); c must not otherwise overlap
//    a or b. a and b may overlap each other in any way.
//  - transpose, reduce, reduce_rows: the output must not overlap the input at all.

// c = a + b, element-wise; a, b, c of equal length. Integers wrap.
template <class A, class B, class C>
void vector_add(Stream& stream, const A& a, const B& b, C&& c) {
    static_assert(detail::check_operands<C, A, B>());
    using T = detail::operand_element_t<C>;
    detail::vector_add(stream, dtype_of<T>(), detail::operand_range(a), detail::operand_range(b),
                       detail::operand_range(c), a.size(), b.size(), c.size());
}

// out (cols x rows) = in (rows x cols) transposed; row-major; any shape; in and out must each
// hold exactly rows * cols elements (checked for overflow) and must not overlap.
template <class In, class Out>
void transpose(Stream& stream, const In& in, Out&& out, std::size_t rows, std::size_t cols) {
    static_assert(detail::check_operands<Out, In>());
    using T = detail::operand_element_t<Out>;
    detail::transpose(stream, dtype_of<T>(), detail::operand_range(in), detail::operand_range(out),
                      in.size(), out.size(), rows, cols);
}

// out[0] = op over all of `in` (out must hold at least one element; only out[0] is written).
// Empty input gives the identity: sum 0, prod 1, min +inf / numeric max, max -inf / lowest.
// Integer sum and prod wrap as unsigned arithmetic does (also for i32). Float min/max propagate
// NaN: a NaN anywhere in the input gives NaN. Float sums are tree-accumulated.
template <class In, class Out>
void reduce(Stream& stream, const In& in, Out&& out, ReduceOp op) {
    static_assert(detail::check_operands<Out, In>());
    using T = detail::operand_element_t<Out>;
    detail::reduce(stream, dtype_of<T>(), op, detail::operand_range(in), detail::operand_range(out),
                   in.size(), out.size());
}

// out[r] = op over row r of `in` (rows x cols, row-major); out holds exactly `rows` elements.
template <class In, class Out>
void reduce_rows(Stream& stream, const In& in, Out&& out, std::size_t rows, std::size_t cols,
                 ReduceOp op) {
    static_assert(detail::check_operands<Out, In>());
    using T = detail::operand_element_t<Out>;
    detail::reduce_rows(stream, dtype_of<T>(), op, detail::operand_range(in),
                        detail::operand_range(out), in.size(), out.size(), rows, cols);
}

// Blocking convenience: reduces `in` on `stream` and returns the value (synchronizes `stream`).
// Like every blocking call, it sees the work enqueued before it on every stream of the device.
// The value passes through a few bytes the stream allocates on its first blocking reduce and
// keeps until it is destroyed (docs/thread_safety.md).
template <class In>
detail::operand_element_t<In> reduce(Stream& stream, const In& in, ReduceOp op) {
    static_assert(detail::is_operand_v<In>, "gpucore operations take Buffer<T> and BufferView<T> operands");
    using T = detail::operand_element_t<In>;
    T value{};
    detail::reduce_value(stream, dtype_of<T>(), op, detail::operand_range(in), in.size(), &value);
    return value;
}

} // namespace gpucore

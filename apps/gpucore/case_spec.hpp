// SPDX-License-Identifier: Apache-2.0
// CaseSpec: one operation to run or measure (op, element type, reduce op, shape), and the facts
// derived from it that the commands print: bytes moved, shape text, a short name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpucore/types.hpp"

namespace gpucore::cli {

// The ops the command runs. A new one is added to both lists, and its rules below.
enum class OpKind { vector_add, transpose, reduce, reduce_rows };
inline constexpr OpKind all_op_kinds[] = {OpKind::vector_add, OpKind::transpose, OpKind::reduce,
                                          OpKind::reduce_rows}; // the order of `run all`

const char* to_string(OpKind op) noexcept; // "vector_add"
// The op named `name` ("vector_add", ...), or nullopt.
std::optional<OpKind> parse_op_kind(const std::string& name);
std::vector<std::string> op_kind_names(); // every op's, in all_op_kinds order
std::optional<DType> parse_dtype(const std::string& name);        // "f32" ...
std::vector<std::string> dtype_names();                           // every dtype's, in list order
std::optional<ReduceOp> parse_reduce_op(const std::string& name); // "sum" ...

// True for the ops that take --rows/--cols (transpose, reduce_rows); the others take --n.
bool is_two_dimensional(OpKind op) noexcept;
// True for reduce and reduce_rows (the ops that take --op).
bool is_reduction(OpKind op) noexcept;

struct CaseSpec {
    OpKind op = OpKind::vector_add;
    DType dtype = DType::f32;
    ReduceOp reduce_op = ReduceOp::sum; // used by reductions only
    // 1-D ops (vector_add, reduce) use rows = 1 and cols = n.
    std::size_t rows = 1;
    std::size_t cols = 0;

    // rows * cols; the caller guarantees it does not overflow (see elements_fit).
    std::size_t elements() const noexcept { return rows * cols; }
    // Length of one reduction: n for reduce, cols for reduce_rows, 0 otherwise.
    std::size_t reduction_length() const noexcept;
    // Bytes the op reads plus bytes it writes (the numerator of "effective bandwidth").
    double bytes_moved() const noexcept;
    // Number of input and output elements the op's buffers hold.
    std::size_t input_elements() const noexcept;  // per input buffer
    std::size_t output_elements() const noexcept;
    // [n] for 1-D ops, [rows, cols] for 2-D ops.
    std::vector<std::size_t> shape() const;
    // "2^22" (1-D) or "5003x3001" (2-D): for tables.
    std::string shape_text() const;
    // "reduce sum f32 2^26": for tables and messages.
    std::string name() const;
};

// True when rows * cols and the op's byte counts fit in size_t.
bool elements_fit(std::size_t rows, std::size_t cols, DType dtype) noexcept;

// "2^K" for powers of two from 2^10 up, else the decimal number.
std::string count_text(std::size_t n);

// Parses a plain decimal integer (digits only, no sign, at most 2^64 - 1); nullopt otherwise.
std::optional<std::uint64_t> parse_unsigned(const std::string& text);

// Parses "4096", "2^26" or "1<<26" into a count; nullopt when the text is not one.
std::optional<std::size_t> parse_count(const std::string& text);

} // namespace gpucore::cli

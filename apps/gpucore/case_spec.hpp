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

struct Operation; // operation.hpp: one description per operation, the list `run` derives from

std::optional<DType> parse_dtype(const std::string& name);        // "f32" ...
std::vector<std::string> dtype_names();                           // every dtype's, in list order
std::optional<ReduceOp> parse_reduce_op(const std::string& name); // "sum" ...

struct CaseSpec {
    const Operation* op = nullptr; // one of all_operations()
    DType dtype = DType::f32;
    ReduceOp reduce_op = ReduceOp::sum; // used by reductions only
    // Vector ops (vector_add, reduce) use rows = 1 and cols = n.
    std::size_t rows = 1;
    std::size_t cols = 0;

    // rows * cols; the caller guarantees it does not overflow (see elements_fit).
    std::size_t elements() const noexcept { return rows * cols; }
    // Length of one reduction (the input's row length: n for reduce, cols for reduce_rows); 0 for
    // an op that takes no reduce op.
    std::size_t reduction_length() const noexcept;
    // True when the op takes a reduce op (--op).
    bool is_reduction() const noexcept;
    // Bytes the op reads plus bytes it writes (the numerator of "effective bandwidth").
    double bytes_moved() const noexcept;
    // Number of input and output elements the op's buffers hold.
    std::size_t input_elements() const noexcept;  // per input buffer
    std::size_t output_elements() const noexcept;
    // [n] for vector ops, [rows, cols] for matrix ops.
    std::vector<std::size_t> shape() const;
    // "2^22" (vector) or "5003x3001" (matrix): for tables.
    std::string shape_text() const;
    // "reduce sum f32 2^26": for tables and messages.
    std::string name() const;
    // "reduce sum": the op and, for reductions, the reduce op.
    std::string op_text() const;
};

// True when rows * cols and the byte counts of two such inputs fit in size_t.
bool elements_fit(std::size_t rows, std::size_t cols, DType dtype) noexcept;

// "2^K" for powers of two from 2^10 up, else the decimal number.
std::string count_text(std::size_t n);

// Parses a plain decimal integer (digits only, no sign, at most 2^64 - 1); nullopt otherwise.
std::optional<std::uint64_t> parse_unsigned(const std::string& text);

// Parses "4096", "2^26" or "1<<26" into a count; nullopt when the text is not one.
std::optional<std::size_t> parse_count(const std::string& text);

} // namespace gpucore::cli

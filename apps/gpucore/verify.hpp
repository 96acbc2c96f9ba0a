// SPDX-License-Identifier: Apache-2.0
// Compares a device's output with the double-precision reference (reference.hpp), element by
// element, and summarises the outcome.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <string>

#include "gpucore/types.hpp"

namespace gpucore::cli {

struct Verification {
    static constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

    bool passed = true;
    double max_error = 0;        // largest |device - reference| (infinity for NaN / wrong infinity)
    double max_error_ratio = 0;  // largest error / tolerance (<= 1 passes; error > 0 with tolerance 0: infinity)
    std::size_t mismatches = 0;  // elements outside their tolerance
    std::size_t first_mismatch = none; // index of the first one (output element index)
    double first_device = 0;     // device value and reference at first_mismatch
    double first_expected = 0;

    // Folds `other` (a later check of the same case) into this one.
    void merge(const Verification& other);
    // "ok" or "12 mismatches, first at [3]: got 1.5, expected 2.5".
    std::string summary() const;
};

// Each check is instantiated for float, double, int32_t and uint32_t; all pointers are host
// memory. Thread safety: pure functions (they run OpenMP loops of their own).
template <class T>
Verification verify_vector_add(const T* a, const T* b, const T* c, std::size_t n);
// out is cols x rows, the transpose of in (rows x cols); exact comparison.
template <class T>
Verification verify_transpose(const T* in, const T* out, std::size_t rows, std::size_t cols);
template <class T>
Verification verify_reduce(const T* in, std::size_t n, T result, ReduceOp op);
template <class T>
Verification verify_reduce_rows(const T* in, std::size_t rows, std::size_t cols, const T* out,
                                ReduceOp op);

struct Expected; // reference.hpp: a reference value and the error allowed against it
// out[i] against expected(i) for every i < n: the check of an element-wise operation whose
// description gives its reference element by element (operations.cpp). expected is called
// concurrently from several threads.
template <class T>
Verification verify_elements(const T* out, std::size_t n,
                             const std::function<Expected(std::size_t)>& expected);

} // namespace gpucore::cli

// SPDX-License-Identifier: Apache-2.0
// The CPU reference the conformance suite compares every backend against. Written independently of
// every backend: plain loops, no threads, no SIMD, no code shared with backends/.
//
// Floats: computed in long double (64-bit significand on x86-64; at least double elsewhere) with
// compensated (Neumaier) summation, so the reference sum is accurate to far below the tolerance
// allowed to the backend, and returned unrounded. Integers: exact, with sum and prod wrapping as
// unsigned 32-bit arithmetic does (also for i32), as the API specifies.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "gpucore/types.hpp"

namespace conformance::reference {

// Reference result of a reduction: long double for floats (unrounded), T for integers (exact).
template <class T>
using ReduceResult = std::conditional_t<std::is_floating_point_v<T>, long double, T>;

// The op's identity, as the API documents it for empty inputs.
template <class T>
T identity(gpucore::ReduceOp op) {
    switch (op) {
    case gpucore::ReduceOp::sum: return T(0);
    case gpucore::ReduceOp::prod: return T(1);
    case gpucore::ReduceOp::min:
        return std::is_floating_point_v<T> ? std::numeric_limits<T>::infinity()
                                           : std::numeric_limits<T>::max();
    case gpucore::ReduceOp::max:
        return std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity()
                                           : std::numeric_limits<T>::lowest();
    }
    return T(0);
}

// Wrapping integer arithmetic through uint32_t (defined behaviour for i32 too).
template <class T>
T wrap_add(T a, T b) {
    return static_cast<T>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
template <class T>
T wrap_mul(T a, T b) {
    return static_cast<T>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}

// c = a + b element-wise: integers wrap; floats are computed in double and rounded once to T,
// which for float and double equals the correctly rounded IEEE sum every backend must produce.
template <class T>
std::vector<T> vector_add(const std::vector<T>& a, const std::vector<T>& b) {
    std::vector<T> c(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        if constexpr (std::is_floating_point_v<T>)
            c[i] = static_cast<T>(static_cast<double>(a[i]) + static_cast<double>(b[i]));
        else
            c[i] = wrap_add(a[i], b[i]);
    }
    return c;
}

// out (cols x rows) = in (rows x cols) transposed, row-major.
template <class T>
std::vector<T> transpose(const std::vector<T>& in, std::size_t rows, std::size_t cols) {
    std::vector<T> out(in.size());
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
    return out;
}

// op over x[0..n). Float min/max: a NaN anywhere gives NaN.
template <class T>
ReduceResult<T> reduce(const T* x, std::size_t n, gpucore::ReduceOp op) {
    if constexpr (std::is_floating_point_v<T>) {
        using L = long double;
        switch (op) {
        case gpucore::ReduceOp::sum: {
            L sum = 0, compensation = 0; // Neumaier: the low part lost by each addition
            for (std::size_t i = 0; i < n; ++i) {
                const L v = x[i];
                const L t = sum + v;
                compensation += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
                sum = t;
            }
            return sum + compensation;
        }
        case gpucore::ReduceOp::prod: {
            L prod = 1;
            for (std::size_t i = 0; i < n; ++i) prod *= static_cast<L>(x[i]);
            return prod;
        }
        case gpucore::ReduceOp::min:
        case gpucore::ReduceOp::max: {
            L best = identity<T>(op);
            for (std::size_t i = 0; i < n; ++i) {
                if (std::isnan(x[i])) return std::numeric_limits<L>::quiet_NaN();
                const L v = x[i];
                if (op == gpucore::ReduceOp::min ? v < best : v > best) best = v;
            }
            return best;
        }
        }
        return 0;
    } else {
        T acc = identity<T>(op);
        for (std::size_t i = 0; i < n; ++i) {
            switch (op) {
            case gpucore::ReduceOp::sum: acc = wrap_add(acc, x[i]); break;
            case gpucore::ReduceOp::prod: acc = wrap_mul(acc, x[i]); break;
            case gpucore::ReduceOp::min: acc = x[i] < acc ? x[i] : acc; break;
            case gpucore::ReduceOp::max: acc = x[i] > acc ? x[i] : acc; break;
            }
        }
        return acc;
    }
}

// Row r of the result is reduce(row r). cols == 0 gives identities.
template <class T>
std::vector<ReduceResult<T>> reduce_rows(const std::vector<T>& in, std::size_t rows,
                                         std::size_t cols, gpucore::ReduceOp op) {
    std::vector<ReduceResult<T>> out(rows);
    for (std::size_t r = 0; r < rows; ++r) out[r] = reduce(in.data() + r * cols, cols, op);
    return out;
}

// sum |x_i| in long double: the scale of a float sum's rounding error.
template <class T>
long double sum_of_magnitudes(const T* x, std::size_t n) {
    long double total = 0;
    for (std::size_t i = 0; i < n; ++i) total += std::fabs(static_cast<long double>(x[i]));
    return total;
}

} // namespace conformance::reference

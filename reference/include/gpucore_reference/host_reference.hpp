// SPDX-License-Identifier: Apache-2.0
// Host references of gpucore's operations, for every dtype and reduce op: plain loops, no threads,
// no SIMD and no code shared with the backends, so a backend's bug cannot hide in its reference.
// The rules they follow are the API's (README, gpucore/dtype.h, gpucore/reduce_rules.hpp):
//  - integers: sums and products wrap as unsigned arithmetic of the same width (also for signed
//    types); min/max exact.
//  - floats: vector_add is float(a) + float(b) rounded once to T (for half, bfloat16 and float the
//    exact sum, held by a double, rounded once; double adds directly). Reductions are computed in
//    long double (a compensated sum) and rounded once to T, with the error a correct device result
//    may have (tolerance.hpp). Float min/max: a NaN anywhere gives NaN.
//  - an empty reduction gives the op's identity: sum 0, prod 1, min +infinity (integers: max),
//    max -infinity (integers: lowest).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include "gpucore/types.hpp"
#include "gpucore_reference/tolerance.hpp"

namespace gpucore::reference {

// A reference value and the largest |device - value| a correct device result may have (0: exact).
struct Expected {
    double value = 0;
    double tolerance = 0;
};

// The same expectations with every tolerance 0: for inputs built so that any order of operations
// gives the exact result.
inline std::vector<Expected> exactly(std::vector<Expected> expected) {
    for (Expected& e : expected) e.tolerance = 0;
    return expected;
}

// The identity of `op` for T: what an empty reduction gives.
template <class T>
T identity(ReduceOp op) {
    switch (op) {
    case ReduceOp::sum: return T(0);
    case ReduceOp::prod: return T(1);
    case ReduceOp::min:
        return is_float_element_v<T> ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
    case ReduceOp::max:
        return is_float_element_v<T> ? T(-static_cast<double>(std::numeric_limits<T>::infinity()))
                                     : std::numeric_limits<T>::lowest();
    }
    return T(0);
}

// Integer arithmetic in the unsigned type of T's width (at least unsigned int, so that no
// promotion to int can overflow): defined wrap-around for signed types too.
template <class T>
using WrapType = decltype(std::make_unsigned_t<T>{} + 0u);
template <class T>
T wrap_add(T a, T b) {
    return static_cast<T>(static_cast<WrapType<T>>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b)));
}
template <class T>
T wrap_mul(T a, T b) {
    return static_cast<T>(static_cast<WrapType<T>>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b)));
}

// One element of vector_add: a + b in T (integers wrap; floats rounded once).
template <class T>
T add(T a, T b) {
    if constexpr (std::is_same_v<T, double>) return a + b;
    else if constexpr (is_float_element_v<T>) return T(static_cast<double>(a) + static_cast<double>(b));
    else return wrap_add(a, b);
}

// c = a + b element-wise (a and b of the same size).
template <class T>
std::vector<T> vector_add(const std::vector<T>& a, const std::vector<T>& b) {
    std::vector<T> c(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) c[i] = add(a[i], b[i]);
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

// sum |x_i|: the scale of a float sum's rounding error.
template <class T>
double sum_of_magnitudes(const T* x, std::size_t n) {
    long double total = 0;
    for (std::size_t i = 0; i < n; ++i) total += std::fabs(static_cast<long double>(x[i]));
    return static_cast<double>(total);
}

namespace detail {

// A long double result rounded once to T (inf beyond T's range), as a double.
template <class T>
double rounded_to(long double value) {
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>)
        return static_cast<double>(static_cast<T>(value));
    else
        return static_cast<double>(static_cast<float>(T(static_cast<double>(value))));
}

template <class T>
Expected reduce_float(const T* x, std::size_t n, ReduceOp op) {
    using L = long double;
    switch (op) {
    case ReduceOp::sum: {
        L sum = 0, compensation = 0; // Neumaier: the low part lost by each addition
        for (std::size_t i = 0; i < n; ++i) {
            const L v = static_cast<L>(x[i]);
            const L t = sum + v;
            compensation += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
            sum = t;
        }
        // An infinity or NaN among the inputs: the plain sum says what IEEE arithmetic gives (the
        // compensation of an infinite sum would be NaN).
        const L exact = std::isfinite(sum) ? sum + compensation : sum;
        const double value = rounded_to<T>(exact);
        return {value, sum_tolerance<T>(n, sum_of_magnitudes(x, n), static_cast<double>(exact))};
    }
    case ReduceOp::prod: {
        L prod = 1;
        for (std::size_t i = 0; i < n; ++i) prod *= static_cast<L>(x[i]);
        return {rounded_to<T>(prod), prod_tolerance<T>(n, static_cast<double>(prod))};
    }
    case ReduceOp::min:
    case ReduceOp::max: {
        double best = static_cast<double>(identity<T>(op));
        for (std::size_t i = 0; i < n; ++i) {
            const double v = static_cast<double>(x[i]);
            if (std::isnan(v)) return {v, 0.0};
            if (op == ReduceOp::min ? v < best : v > best) best = v;
        }
        return {best, 0.0};
    }
    }
    return {};
}

template <class T>
Expected reduce_integer(const T* x, std::size_t n, ReduceOp op) {
    T acc = identity<T>(op);
    for (std::size_t i = 0; i < n; ++i) {
        switch (op) {
        case ReduceOp::sum: acc = wrap_add(acc, x[i]); break;
        case ReduceOp::prod: acc = wrap_mul(acc, x[i]); break;
        case ReduceOp::min: acc = x[i] < acc ? x[i] : acc; break;
        case ReduceOp::max: acc = x[i] > acc ? x[i] : acc; break;
        }
    }
    return {static_cast<double>(acc), 0.0};
}

} // namespace detail

// op over x[0, n): the reference value and its tolerance.
template <class T>
Expected reduce(const T* x, std::size_t n, ReduceOp op) {
    if constexpr (is_float_element_v<T>) return detail::reduce_float(x, n, op);
    else return detail::reduce_integer(x, n, op);
}

// Row r of the result is reduce(row r of in, rows x cols row-major); cols == 0 gives identities.
template <class T>
std::vector<Expected> reduce_rows(const T* in, std::size_t rows, std::size_t cols, ReduceOp op) {
    std::vector<Expected> out(rows);
    for (std::size_t r = 0; r < rows; ++r) out[r] = reduce(in + r * cols, cols, op);
    return out;
}
template <class T>
std::vector<Expected> reduce_rows(const std::vector<T>& in, std::size_t rows, std::size_t cols, ReduceOp op) {
    return reduce_rows(in.data(), rows, cols, op);
}

} // namespace gpucore::reference

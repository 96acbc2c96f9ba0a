// SPDX-License-Identifier: Apache-2.0
// Inputs whose results are exact in every summation or multiplication order; their references are
// the reference library's (gpucore_reference). Stress tests compare exactly, so a lost,
// duplicated or reordered piece of work shows as a wrong value, never hides inside a tolerance.
//
// Why these inputs are exact for any order (float and double):
//  - sum: integers in [-16, 16] over at most ~2^16 elements; every partial sum stays below 2^24.
//  - prod: +-1, with at most eight 2s and eight 0.5s; every partial product is +-2^k, |k| <= 8.
//  - min/max, transpose: order never matters.
//  - vector_add: integers below 2^20 in magnitude; the sum is exact.
// Integer types take arbitrary values: their sums and products wrap as unsigned arithmetic does,
// which is exact in any order as well.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "gpucore/gpucore.hpp"
#include "gpucore_reference/comparison.hpp"
#include "gpucore_reference/host_reference.hpp"

namespace gpucore::stress {

// A value no correct operation writes for these inputs: outputs are filled with it before a run,
// so an element the operation skipped keeps it and fails the comparison.
template <class T>
T poison() {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(-987654.25);
    else return static_cast<T>(0x5A5A5A5Au);
}

template <class T>
std::vector<T> exact_inputs(std::mt19937_64& rng, std::size_t n, ReduceOp op) {
    std::vector<T> values(n);
    if constexpr (std::is_integral_v<T>) {
        std::uniform_int_distribution<std::uint32_t> any;
        for (auto& v : values) v = static_cast<T>(any(rng));
        (void)op;
    } else {
        std::uniform_int_distribution<int> small(-16, 16);
        std::uniform_int_distribution<int> wide(-(1 << 20), 1 << 20);
        std::bernoulli_distribution coin;
        for (auto& v : values) {
            switch (op) {
            case ReduceOp::sum: v = static_cast<T>(small(rng)); break;
            case ReduceOp::prod: v = coin(rng) ? T(1) : T(-1); break;
            case ReduceOp::min:
            case ReduceOp::max: v = static_cast<T>(wide(rng)); break;
            }
        }
        if (op == ReduceOp::prod && n > 0) {
            std::uniform_int_distribution<std::size_t> where(0, n - 1);
            std::uniform_int_distribution<int> how_many(0, 8);
            for (int k = how_many(rng); k > 0; --k) values[where(rng)] = T(2);
            for (int k = how_many(rng); k > 0; --k) values[where(rng)] = T(0.5);
        }
    }
    return values;
}


// reduce of exact inputs, in T: the reference value, which these inputs make exact.
template <class T>
T exact_reduce(const T* data, std::size_t n, ReduceOp op) {
    return static_cast<T>(reference::reduce(data, n, op).value);
}

template <class T>
std::vector<T> exact_reduce_rows(const std::vector<T>& in, std::size_t rows, std::size_t cols, ReduceOp op) {
    std::vector<T> out(rows);
    for (std::size_t r = 0; r < rows; ++r) out[r] = exact_reduce(in.data() + r * cols, cols, op);
    return out;
}

// Index of the first element that differs, or -1 when equal (exact by design); 0 when the sizes
// differ.
template <class T>
long long first_mismatch(const std::vector<T>& got, const std::vector<T>& want) {
    if (got.size() != want.size()) return 0;
    const reference::Verification v = reference::compare_exact(got, want);
    return v.passed ? -1 : static_cast<long long>(v.first_mismatch);
}

inline constexpr ReduceOp all_reduce_ops[] = {ReduceOp::sum, ReduceOp::min, ReduceOp::max, ReduceOp::prod};

} // namespace gpucore::stress

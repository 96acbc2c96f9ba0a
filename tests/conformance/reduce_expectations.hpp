// SPDX-License-Identifier: Apache-2.0
// What reduce and reduce_rows are tested with: the input patterns of each op, the extremum planted
// for min/max, and which patterns the reference library's tolerance applies to (the others are
// exact in any order, so they are compared exactly).
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include "gpucore/types.hpp"
#include "gpucore_reference/host_reference.hpp"
#include "random_inputs.hpp"

namespace conformance {

// Floats: an exact pattern (any order gives the same bits) plus real-valued ones checked against
// the tolerance; integers: whole-range values (wrapping sums) or odd factors (wrapping products).
template <class T>
std::vector<Pattern> reduce_patterns(gpucore::ReduceOp op) {
    const bool is_float = std::is_floating_point_v<T>;
    switch (op) {
    case gpucore::ReduceOp::sum:
        if (is_float) return {Pattern::exact_sum, Pattern::positive_reals, Pattern::mixed_reals};
        return {Pattern::general};
    case gpucore::ReduceOp::prod:
        if (is_float) return {Pattern::exact_product, Pattern::near_one};
        return {Pattern::exact_product};
    case gpucore::ReduceOp::min:
    case gpucore::ReduceOp::max: return {Pattern::general};
    }
    return {};
}

inline bool is_order_op(gpucore::ReduceOp op) {
    return op == gpucore::ReduceOp::min || op == gpucore::ReduceOp::max;
}

// A value beyond every generated one, planted so the answer sits at a chosen position (first,
// last, middle): floats +-2000 (inputs lie in [-1000, 1000]); integers the type's extreme.
template <class T>
T planted_extremum(gpucore::ReduceOp op) {
    if constexpr (std::is_floating_point_v<T>) {
        return op == gpucore::ReduceOp::min ? T(-2000) : T(2000);
    } else {
        return op == gpucore::ReduceOp::min ? std::numeric_limits<T>::lowest()
                                            : std::numeric_limits<T>::max();
    }
}

// True when reducing inputs of `pattern` with `op` may err within the reference's tolerance:
// float sums of real values and float products near 1. Every other pattern is exact in any order.
template <class T>
bool has_rounding_error(gpucore::ReduceOp op, Pattern pattern) {
    if constexpr (!std::is_floating_point_v<T>) {
        return false;
    } else {
        return (op == gpucore::ReduceOp::sum &&
                (pattern == Pattern::positive_reals || pattern == Pattern::mixed_reals)) ||
               (op == gpucore::ReduceOp::prod && pattern == Pattern::near_one);
    }
}

// The reference of each of `rows` reductions of `cols` elements, exact unless the pattern rounds.
template <class T>
std::vector<gpucore::reference::Expected> expected_reductions(gpucore::ReduceOp op, Pattern pattern,
                                                              const std::vector<T>& in, std::size_t rows,
                                                              std::size_t cols) {
    auto expected = gpucore::reference::reduce_rows(in, rows, cols, op);
    return has_rounding_error<T>(op, pattern) ? expected : gpucore::reference::exactly(expected);
}

} // namespace conformance

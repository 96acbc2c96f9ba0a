// SPDX-License-Identifier: Apache-2.0
// What reduce and reduce_rows must produce: which input patterns each op is tested with, the
// extremum planted for min/max, and the allowed error (0 = exact) for one reduced segment.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include "gpucore/types.hpp"
#include "random_inputs.hpp"
#include "reference.hpp"
#include "tolerance.hpp"

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

// Allowed |got - want| for one segment x[0..n) reduced with `op` from inputs of `pattern`.
template <class T>
long double reduce_bound(gpucore::ReduceOp op, Pattern pattern, const T* x, std::size_t n,
                         long double want) {
    if constexpr (!std::is_floating_point_v<T>) {
        return 0;
    } else {
        if (op == gpucore::ReduceOp::sum &&
            (pattern == Pattern::positive_reals || pattern == Pattern::mixed_reals))
            return tolerance::sum_bound<T>(n, reference::sum_of_magnitudes(x, n), want);
        if (op == gpucore::ReduceOp::prod && pattern == Pattern::near_one)
            return tolerance::prod_bound<T>(n, want);
        return 0; // min/max select an input; exact_sum / exact_product are exact in any order
    }
}

} // namespace conformance

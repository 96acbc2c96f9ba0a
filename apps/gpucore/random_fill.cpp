// SPDX-License-Identifier: Apache-2.0
#include "random_fill.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace gpucore::cli {

InputDistribution input_distribution(const CaseSpec& spec) {
    using Kind = InputDistribution::Kind;
    const bool integer =
        gpucore::visit(spec.dtype, [](auto tag) { return std::is_integral_v<typename decltype(tag)::type>; });
    const bool reduction = spec.is_reduction();
    if (integer) {
        const bool product = reduction && spec.reduce_op == ReduceOp::prod;
        InputDistribution d;
        d.kind = product ? Kind::odd_bits : Kind::all_bits;
        return d;
    }
    // The largest power of two T holds: 2^15 for half, 2^127 for float.
    const int max_exponent =
        gpucore::visit(spec.dtype, [](auto tag) { return std::numeric_limits<typename decltype(tag)::type>::max_exponent; });
    if (reduction && spec.reduce_op == ReduceOp::sum) {
        InputDistribution d;
        // Mostly positive values, so the sum does not cancel; but where a sum of n such values
        // would leave T's range (half), symmetric values, whose sum grows only as sqrt(n).
        const double len = static_cast<double>(std::max<std::size_t>(spec.reduction_length(), 1));
        d.lo = std::ldexp(1.0, max_exponent - 2) < len ? -1.0 : -0.5;
        return d;
    }
    if (reduction && spec.reduce_op == ReduceOp::prod) {
        // About max_exponent / 2 non-unit values per reduction (64 for float, 8 for half): far
        // below the doublings that would leave T's range, whichever subset a partial product covers.
        const double len = static_cast<double>(std::max<std::size_t>(spec.reduction_length(), 1));
        InputDistribution d;
        d.kind = Kind::signed_powers_of_two;
        d.scaled = std::min(0.5, (max_exponent / 2) / len);
        return d;
    }
    return {}; // uniform in [-1, 1)
}

} // namespace gpucore::cli

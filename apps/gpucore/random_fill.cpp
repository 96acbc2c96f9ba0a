#include "random_fill.hpp"

#include <algorithm>
#include <type_traits>

namespace gpucore::cli {

InputDistribution input_distribution(const CaseSpec& spec) {
    using Kind = InputDistribution::Kind;
    const bool integer =
        gpucore::visit(spec.dtype, [](auto tag) { return std::is_integral_v<typename decltype(tag)::type>; });
    const bool reduction = is_reduction(spec.op);
    if (integer) {
        const bool product = reduction && spec.reduce_op == ReduceOp::prod;
        InputDistribution d;
        d.kind = product ? Kind::odd_bits : Kind::all_bits;
        return d;
    }
    if (reduction && spec.reduce_op == ReduceOp::sum) {
        InputDistribution d;
        d.lo = -0.5;
        return d;
    }
    if (reduction && spec.reduce_op == ReduceOp::prod) {
        // About 64 non-unit values per reduction: far below the 126 doublings that would leave
        // float's range, whichever subset a partial product covers.
        const double len = static_cast<double>(std::max<std::size_t>(spec.reduction_length(), 1));
        InputDistribution d;
        d.kind = Kind::signed_powers_of_two;
        d.scaled = std::min(0.5, 64.0 / len);
        return d;
    }
    return {}; // uniform in [-1, 1)
}

} // namespace gpucore::cli

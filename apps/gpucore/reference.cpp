// SPDX-License-Identifier: Apache-2.0
// Error model of the float references (u = unit roundoff of the device's type, u64 of double):
//  - sum: |error| <= (u * (2 * ceil(log2(n + 1)) + 8) + 4 * u64) * sum |x_i|. A pairwise or tree
//    sum's worst case is about u * log2(n) * sum |x|; the factor 2 and the +8 leave room for
//    blocked variants that add a few elements serially at the leaves. One long serial float
//    accumulator over millions of mostly positive values fails it (its typical error grows like
//    u * sqrt(n)), which is the point: gpucore promises accurate sums, not just fast ones. The
//    reference itself is a compensated (Neumaier) double sum, good to a few u64 * sum |x|.
//  - prod: relative |error| <= (u + u64) * (4 * sqrt(n) + 8): seven standard deviations of a
//    random walk of n independent roundings of at most u each. Roundings are not always
//    independent (a tree product of values near 1.0 is biased by ties), so the command's own
//    inputs make every product exact (random_fill.hpp) and any error there is a fault.
//  - min, max and every integer op: exact.
#include "reference.hpp"

#include <algorithm>

namespace gpucore::cli {
namespace {

std::size_t ceil_log2(std::size_t n) {
    std::size_t bits = 0;
    while ((std::size_t{1} << bits) < n && bits < 63) ++bits;
    return bits;
}

template <class T>
Expected reduce_integer(const T* x, std::size_t n, ReduceOp op) {
    switch (op) {
    case ReduceOp::sum: {
        std::uint32_t acc = 0;
        for (std::size_t i = 0; i < n; ++i) acc += static_cast<std::uint32_t>(x[i]);
        return {static_cast<double>(static_cast<T>(acc)), 0.0};
    }
    case ReduceOp::prod: {
        std::uint32_t acc = 1;
        for (std::size_t i = 0; i < n; ++i) acc *= static_cast<std::uint32_t>(x[i]);
        return {static_cast<double>(static_cast<T>(acc)), 0.0};
    }
    case ReduceOp::min: {
        T acc = std::numeric_limits<T>::max();
        for (std::size_t i = 0; i < n; ++i) acc = std::min(acc, x[i]);
        return {static_cast<double>(acc), 0.0};
    }
    case ReduceOp::max: {
        T acc = std::numeric_limits<T>::lowest();
        for (std::size_t i = 0; i < n; ++i) acc = std::max(acc, x[i]);
        return {static_cast<double>(acc), 0.0};
    }
    }
    return {};
}

template <class T>
Expected reduce_float(const T* x, std::size_t n, ReduceOp op) {
    // half and bfloat16 accumulate in float (the contract's rule) and round the result once to T.
    constexpr bool widened = sizeof(T) < sizeof(float);
    constexpr double u = widened ? unit_roundoff<float>() : unit_roundoff<T>();
    constexpr double u64 = unit_roundoff<double>();
    const auto rounded = [](Expected e) {
        if (widened) e.tolerance += 2 * unit_roundoff<T>() * std::fabs(e.value);
        return e;
    };
    const double len = static_cast<double>(n);
    switch (op) {
    case ReduceOp::sum: {
        double sum = 0, compensation = 0, magnitude = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double v = static_cast<double>(x[i]);
            const double t = sum + v;
            compensation += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
            sum = t;
            magnitude += std::fabs(v);
        }
        const double factor = u * (2.0 * static_cast<double>(ceil_log2(n + 1)) + 8.0) + 4 * u64;
        return rounded({sum + compensation, factor * magnitude});
    }
    case ReduceOp::prod: {
        double prod = 1;
        for (std::size_t i = 0; i < n; ++i) prod *= static_cast<double>(x[i]);
        return rounded({prod, (u + u64) * (4.0 * std::sqrt(len) + 8.0) * std::fabs(prod)});
    }
    case ReduceOp::min: {
        double acc = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < n; ++i) acc = std::min(acc, static_cast<double>(x[i]));
        return {acc, 0.0};
    }
    case ReduceOp::max: {
        double acc = -std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < n; ++i) acc = std::max(acc, static_cast<double>(x[i]));
        return {acc, 0.0};
    }
    }
    return {};
}

} // namespace

template <class T>
Expected reference_reduce(const T* x, std::size_t n, ReduceOp op) {
    if constexpr (gpucore::is_float_element_v<T>) return reduce_float(x, n, op);
    else return reduce_integer(x, n, op);
}

#define GPUCORE_CLI_INSTANTIATE_(ID, value, name, ctype, bytes, minor) \
    template Expected reference_reduce<element_type_t<DType::name>>(const element_type_t<DType::name>*, std::size_t, ReduceOp);
GPUCORE_DTYPE_LIST(GPUCORE_CLI_INSTANTIATE_)
#undef GPUCORE_CLI_INSTANTIATE_

} // namespace gpucore::cli

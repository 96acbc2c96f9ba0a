// SPDX-License-Identifier: Apache-2.0
// Element-wise comparisons that report what went wrong: how many elements differ, how many still
// hold the sentinel (never written), and the first few, with their position.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "poison.hpp"

namespace conformance {

template <class T>
std::string format_value(T value) {
    std::ostringstream out;
    if constexpr (std::is_floating_point_v<T>) {
        out << std::setprecision(std::numeric_limits<long double>::max_digits10) << value;
    } else {
        out << +value << " (0x" << std::hex << static_cast<std::uint32_t>(value) << ")";
    }
    return out.str();
}

// Describes index i of an output ("i=17", "row 3 col 5").
using PositionFormatter = std::function<std::string(std::size_t)>;

inline std::string flat_position(std::size_t i) { return "i=" + std::to_string(i); }

// |got - want| <= bound, with NaN matching only NaN and an infinite `want` matching only itself.
template <class T>
bool within(T got, long double want, long double bound) {
    if (std::isnan(static_cast<long double>(got)) || std::isnan(want))
        return std::isnan(static_cast<long double>(got)) && std::isnan(want);
    if (std::isinf(want) || std::isinf(got)) return static_cast<long double>(got) == want;
    return std::fabs(static_cast<long double>(got) - want) <= bound;
}

// got[i] must equal want[i] (or lie within bound(i) of it when `bound` is given) for every i.
template <class T, class U>
testing::AssertionResult elements_match(const std::vector<T>& got, const std::vector<U>& want,
                                        T sentinel, const PositionFormatter& where = flat_position,
                                        const std::function<long double(std::size_t)>& bound = {}) {
    if (got.size() != want.size())
        return testing::AssertionFailure()
               << "output has " << got.size() << " elements, expected " << want.size();
    std::size_t wrong = 0, unwritten = 0;
    std::ostringstream first;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const bool ok = bound ? within(got[i], static_cast<long double>(want[i]), bound(i))
                              : same_value(got[i], want[i]);
        if (ok) continue;
        ++wrong;
        const bool never_written = same_value(got[i], sentinel);
        if (never_written) ++unwritten;
        if (wrong <= 8) {
            first << "\n  " << where(i) << ": got " << format_value(got[i]) << ", want "
                  << format_value(want[i]);
            if (bound) first << " (tolerance " << format_value(bound(i)) << ")";
            if (never_written) first << " [sentinel: never written]";
        }
    }
    if (wrong == 0) return testing::AssertionSuccess();
    return testing::AssertionFailure() << wrong << " of " << got.size() << " elements wrong, "
                                       << unwritten << " of them never written" << first.str();
}

} // namespace conformance

// SPDX-License-Identifier: Apache-2.0
// Element-wise comparisons that report what went wrong: how many elements differ, how many still
// hold the sentinel (never written), and the first few, with their position. Results with a
// tolerance are judged by the reference library's rule (gpucore_reference/comparison.hpp).
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

#include "gpucore_reference/comparison.hpp"
#include "gpucore_reference/host_reference.hpp"
#include "poison.hpp"

namespace conformance {

namespace reference = gpucore::reference;

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

// The reference values of `expected`, without their tolerances.
inline std::vector<double> values_of(const std::vector<reference::Expected>& expected) {
    std::vector<double> values;
    for (const reference::Expected& e : expected) values.push_back(e.value);
    return values;
}

// got[i] must match want[i] (ok(i) says whether it does) for every i.
template <class T, class U, class Ok, class Tolerance>
testing::AssertionResult elements_match_by(const std::vector<T>& got, const std::vector<U>& want,
                                           T sentinel, const PositionFormatter& where, Ok ok,
                                           Tolerance tolerance) {
    if (got.size() != want.size())
        return testing::AssertionFailure()
               << "output has " << got.size() << " elements, expected " << want.size();
    std::size_t wrong = 0, unwritten = 0;
    std::ostringstream first;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (ok(i)) continue;
        ++wrong;
        const bool never_written = same_value(got[i], sentinel);
        if (never_written) ++unwritten;
        if (wrong <= 8) {
            first << "\n  " << where(i) << ": got " << format_value(got[i]) << ", want " << tolerance(i);
            if (never_written) first << " [sentinel: never written]";
        }
    }
    if (wrong == 0) return testing::AssertionSuccess();
    return testing::AssertionFailure() << wrong << " of " << got.size() << " elements wrong, "
                                       << unwritten << " of them never written" << first.str();
}

// got[i] must equal want[i] exactly (NaN equal to NaN) for every i.
template <class T, class U>
testing::AssertionResult elements_match(const std::vector<T>& got, const std::vector<U>& want,
                                        T sentinel, const PositionFormatter& where = flat_position) {
    return elements_match_by(
        got, want, sentinel, where, [&](std::size_t i) { return same_value(got[i], want[i]); },
        [&](std::size_t i) { return format_value(want[i]); });
}

// got[i] must match the reference want[i] within its tolerance for every i.
template <class T>
testing::AssertionResult elements_match(const std::vector<T>& got,
                                        const std::vector<reference::Expected>& want, T sentinel,
                                        const PositionFormatter& where = flat_position) {
    return elements_match_by(
        got, want, sentinel, where,
        [&](std::size_t i) {
            return reference::matches(static_cast<double>(got[i]), want[i].value, want[i].tolerance);
        },
        [&](std::size_t i) {
            std::string text = format_value(want[i].value);
            if (want[i].tolerance > 0) text += " (tolerance " + format_value(want[i].tolerance) + ")";
            return text;
        });
}

} // namespace conformance

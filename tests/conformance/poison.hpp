// SPDX-License-Identifier: Apache-2.0
// Sentinels written into every output before a run, so an element the backend never wrote cannot
// pass for a correct one. The sentinel is chosen to differ from every expected value.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace conformance {

template <class T>
std::vector<T> sentinel_candidates() {
    if constexpr (std::is_floating_point_v<T>) {
        return {std::numeric_limits<T>::quiet_NaN(), T(-1.5e30), T(3.25e29), T(-7.0e-31)};
    } else {
        return {static_cast<T>(0xDEADBEEFu), static_cast<T>(0xBADC0FFEu),
                static_cast<T>(0x0BADF00Du), static_cast<T>(0x7EA7B0B5u)};
    }
}

// Same value, NaN equal to NaN. U is T or the long double of a float reference.
template <class T, class U>
bool same_value(T a, U b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) || std::isnan(static_cast<long double>(b)))
            return std::isnan(a) && std::isnan(static_cast<long double>(b));
        return static_cast<long double>(a) == static_cast<long double>(b);
    } else {
        return a == static_cast<T>(b);
    }
}

// The first candidate sentinel that equals none of `expected` (one always does: the expected
// values would have to contain all four candidates).
template <class T, class U>
T sentinel_avoiding(const std::vector<U>& expected) {
    const std::vector<T> candidates = sentinel_candidates<T>();
    std::vector<bool> taken(candidates.size(), false);
    for (const U& value : expected)
        for (std::size_t c = 0; c < candidates.size(); ++c)
            if (!taken[c] && same_value(candidates[c], value)) taken[c] = true;
    for (std::size_t c = 0; c < candidates.size(); ++c)
        if (!taken[c]) return candidates[c];
    return candidates.front(); // unreachable for the inputs the suite builds
}

} // namespace conformance

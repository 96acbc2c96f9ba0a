// SPDX-License-Identifier: Apache-2.0
// CLI11 validators for the command's numbers: element counts written as "4096", "2^22" or "1<<22",
// and plain non-negative integers. Both refuse a sign, other characters and values past 64 bits,
// so "-1" is an error instead of wrapping to 2^64 - 1.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "case_spec.hpp"

namespace gpucore::cli {

inline CLI::Validator count_validator() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            if (parse_count(text)) return {};
            return "not an element count: '" + text + "' (write e.g. 4096 or 2^22)";
        },
        "COUNT");
}

// A decimal integer of 1 to 20 digits, at most 2^64 - 1 (a seed, a repeat count).
inline CLI::Validator unsigned_validator() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            if (parse_unsigned(text)) return {};
            return "not a non-negative integer below 2^64: '" + text + "'";
        },
        "UINT");
}

} // namespace gpucore::cli

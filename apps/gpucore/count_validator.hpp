// A CLI11 validator for element counts written as "4096", "2^22" or "1<<22".
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

} // namespace gpucore::cli

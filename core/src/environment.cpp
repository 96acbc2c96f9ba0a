// SPDX-License-Identifier: Apache-2.0
#include "environment.hpp"

#include <cstdlib>
#include <string_view>

namespace gpucore::detail {

std::optional<std::string> environment_variable(const char* name) {
    const char* value = ::secure_getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
}

bool environment_flag(const char* name) {
    const auto value = environment_variable(name);
    return value && *value == "1";
}

} // namespace gpucore::detail

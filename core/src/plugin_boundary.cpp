// SPDX-License-Identifier: Apache-2.0
#include "plugin_boundary.hpp"

#include <exception>

namespace gpucore::detail {

std::string describe_current_exception() {
    try {
        throw;
    } catch (const std::exception& e) {
        return std::string("threw a C++ exception (") + e.what() + ")";
    } catch (...) {
        return "threw a C++ exception that is not a std::exception";
    }
}

} // namespace gpucore::detail

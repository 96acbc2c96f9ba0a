// SPDX-License-Identifier: Apache-2.0
// Helpers for the API tests: assert that a call throws gpucore::Error with the expected code,
// operation and cause (every misuse must name both).
#pragma once

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpucore/gpucore.hpp"

namespace gpucore::test {

// Runs `call`; fails the test unless it throws gpucore::Error with `code`, operation() equal to
// `operation`, and a cause and what() containing `cause_part`. Returns the error for more checks.
template <class Call>
Error expect_error(Call&& call, ErrorCode code, const std::string& operation, const std::string& cause_part) {
    try {
        call();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), code) << e.what();
        EXPECT_EQ(e.operation(), operation) << e.what();
        EXPECT_THAT(e.cause(), ::testing::HasSubstr(cause_part)) << e.what();
        EXPECT_THAT(std::string(e.what()), ::testing::HasSubstr(operation));
        EXPECT_THAT(std::string(e.what()), ::testing::HasSubstr(std::string("[") + to_string(code) + "]"));
        return e;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "threw a non-gpucore exception: " << e.what();
        return Error(code, "", "", -1, "");
    }
    ADD_FAILURE() << "did not throw; expected " << to_string(code) << " from " << operation;
    return Error(code, "", "", -1, "");
}

// The template plugin's device (loaded from the build tree through GPUCORE_PLUGIN_PATH).
inline Device template_device() { return select_device("template"); }
inline Device cpu_device() { return select_device("cpu"); }

} // namespace gpucore::test

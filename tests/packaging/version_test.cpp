// SPDX-License-Identifier: Apache-2.0
// gpucore's version in its three places agrees with project(VERSION): the generated header's
// macros, gpucore::version() of the loaded library, and the text CMake passes in here.
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "gpucore/version.hpp"

TEST(Version, HeaderMacrosMatchTheProjectVersion) {
    EXPECT_STREQ(GPUCORE_VERSION_STRING, GPUCORE_PROJECT_VERSION);
    EXPECT_EQ(std::to_string(GPUCORE_VERSION_MAJOR) + "." + std::to_string(GPUCORE_VERSION_MINOR) +
                  "." + std::to_string(GPUCORE_VERSION_PATCH),
              GPUCORE_PROJECT_VERSION);
}

TEST(Version, RunTimeVersionMatchesTheHeaders) {
    const gpucore::Version v = gpucore::version();
    EXPECT_EQ(v.major, GPUCORE_VERSION_MAJOR);
    EXPECT_EQ(v.minor, GPUCORE_VERSION_MINOR);
    EXPECT_EQ(v.patch, GPUCORE_VERSION_PATCH);
    ASSERT_NE(v.string, nullptr);
    EXPECT_STREQ(v.string, GPUCORE_VERSION_STRING);
}

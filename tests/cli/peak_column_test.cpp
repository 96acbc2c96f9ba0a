// SPDX-License-Identifier: Apache-2.0
// The "% of peak" column of `gpucore run` and `gpucore bench`: the share of the device's
// theoretical memory bandwidth, blank ("-" / null) where the device reports none.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "case_result.hpp"
#include "child_process.hpp"
#include "cli_test_paths.hpp"

namespace gpucore::cli_test {
namespace {

TEST(PercentOfPeak, IsTheShareOfTheTheoreticalBandwidth) {
    EXPECT_DOUBLE_EQ(cli::percent_of_peak(2407.0, 4814.0), 50.0);
    EXPECT_DOUBLE_EQ(cli::percent_of_peak(4525.16, 4814.0), 100.0 * 4525.16 / 4814.0);
    EXPECT_EQ(cli::percent_of_peak_text(4525.16, 4814.0), "94.0");
    EXPECT_EQ(cli::percent_of_peak_text(1.0, 3.0), "33.3");
}

TEST(PercentOfPeak, IsBlankWhenTheDeviceReportsNoPeak) {
    EXPECT_TRUE(std::isnan(cli::percent_of_peak(100.0, 0.0)));
    EXPECT_EQ(cli::percent_of_peak_text(100.0, 0.0), "-");
    EXPECT_TRUE(cli::json_number(cli::percent_of_peak(100.0, 0.0)).is_null());
}

// The cpu backend reports no peak (it cannot be known portably from user space).
TEST(PercentOfPeak, RunShowsTheColumnBlankOnCpu) {
    const auto env = child_environment({{"GPU_BACKEND", "cpu"}});
    const ChildResult text = run_child(GPUCORE_CLI_PATH, {"run", "vector_add", "--n", "1000"}, env);
    ASSERT_EQ(text.exit_code, 0) << text.out << text.err;
    const std::size_t header = text.out.find("% of peak");
    ASSERT_NE(header, std::string::npos) << text.out;
    EXPECT_LT(header, text.out.find("verified")) << "the column sits beside the bandwidth";

    const ChildResult json =
        run_child(GPUCORE_CLI_PATH, {"run", "vector_add", "--n", "1000", "--json"}, env);
    ASSERT_EQ(json.exit_code, 0) << json.out << json.err;
    const nlohmann::json j = nlohmann::json::parse(json.out);
    ASSERT_TRUE(j.contains("percent_of_peak")) << json.out;
    EXPECT_TRUE(j.at("percent_of_peak").is_null());
    EXPECT_GT(j.at("gbps").get<double>(), 0.0);
}

} // namespace
} // namespace gpucore::cli_test

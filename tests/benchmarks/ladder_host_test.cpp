// SPDX-License-Identifier: Apache-2.0
// The host side of the lessons' ladder benchmark: the references every GPU rung is checked
// against must catch a wrong result (a misplaced element, a missing element, a block's partial
// in the wrong place), and the JSON must be valid with blank percentages where the base is unknown.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "ladder_reference.hpp"
#include "ladder_report.hpp"

namespace {

std::vector<float> small_integers(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> value(0, 7);
    std::vector<float> v(n);
    for (float& x : v) x = static_cast<float>(value(rng));
    return v;
}

// out (cols x rows) from in (rows x cols), the plain way.
std::vector<float> transposed(const std::vector<float>& in, std::size_t rows, std::size_t cols) {
    std::vector<float> out(in.size());
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
    }
    return out;
}

TEST(LadderReference, TransposeCheckAcceptsTheTransposeAndCatchesAnyMisplacedElement) {
    for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{1000, 777}, {1, 65}, {130, 1}, {64, 64}}) {
        SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
        std::vector<float> in(rows * cols);
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i); // all distinct
        std::vector<float> out = transposed(in, rows, cols);
        EXPECT_TRUE(ladder::is_transpose(in, out, rows, cols));
        // The last element, one in the middle, and a NaN (the poison) are each caught.
        for (const std::size_t k : {out.size() - 1, out.size() / 2}) {
            std::vector<float> bad = out;
            bad[k] += 1.0f;
            EXPECT_FALSE(ladder::is_transpose(in, bad, rows, cols)) << k;
            bad[k] = NAN;
            EXPECT_FALSE(ladder::is_transpose(in, bad, rows, cols)) << k;
        }
        if (rows > 1 && cols > 1) {
            EXPECT_FALSE(ladder::is_transpose(in, in, rows, cols)) << "a copy is no transpose";
        }
    }
    EXPECT_FALSE(ladder::is_transpose(std::vector<float>(6), std::vector<float>(5), 2, 3));
}

TEST(LadderReference, SegmentSumsCoverEveryElementWithAShortLastSegment) {
    const std::vector<float> in = small_integers(1000003, 1);
    const std::vector<double> sums = ladder::segment_sums(in, 512);
    ASSERT_EQ(sums.size(), (1000003 + 511) / 512);
    double last = 0;
    for (std::size_t i = (sums.size() - 1) * 512; i < in.size(); ++i) last += in[i];
    EXPECT_EQ(sums.back(), last);
    double all = 0;
    for (const float x : in) all += x;
    EXPECT_EQ(ladder::sum_of(sums), all);
}

// The last-block kernel's block b adds elements b*threads + t, then every grid*threads further on.
TEST(LadderReference, GridStrideSumsFollowTheKernelsWalk) {
    const std::size_t threads = 256, grid = 7, n = 100003;
    const std::vector<float> in = small_integers(n, 2);
    std::vector<double> walked(grid, 0.0);
    for (std::size_t b = 0; b < grid; ++b) {
        for (std::size_t t = 0; t < threads; ++t) {
            for (std::size_t i = b * threads + t; i < n; i += grid * threads) walked[b] += in[i];
        }
    }
    EXPECT_EQ(ladder::grid_stride_block_sums(in, threads, grid), walked);
}

TEST(LadderReference, SumsMatchExactlyBelow2To24AndWithinRelative1e5Above) {
    EXPECT_TRUE(ladder::sum_matches(1234567.0, 1234567.0));
    EXPECT_FALSE(ladder::sum_matches(1234566.0, 1234567.0)) << "one element of 1 missing";
    EXPECT_FALSE(ladder::sum_matches(NAN, 3.0));
    const double big = 9.4e8;
    EXPECT_TRUE(ladder::sum_matches(big * (1 + 0.9e-5), big));
    EXPECT_FALSE(ladder::sum_matches(big * (1 + 1.1e-5), big));
    EXPECT_FALSE(ladder::sum_matches(NAN, big));

    const std::vector<double> want{1, 2, 3};
    EXPECT_TRUE(ladder::sums_match({1, 2, 3}, want));
    EXPECT_FALSE(ladder::sums_match({1, 3, 2}, want)) << "partials in the wrong blocks";
    EXPECT_FALSE(ladder::sums_match({1, 2}, want));
}

ladder::Rung make_rung(const char* name, const char* kind, double ms, bool checked, bool verified) {
    ladder::Rung r;
    r.name = name;
    r.kind = kind;
    r.bytes = 2e9;
    r.ms = ms;
    r.checked = checked;
    r.verified = verified;
    r.check = "tab\there, \"quoted\"";
    return r;
}

// The report as written to a file of the running test's own: ctest runs each test of this binary
// as a process of its own, in parallel, so a path shared by two tests let one read the other's
// report.
nlohmann::json written(const ladder::Report& rep) {
    const std::string path = testing::TempDir() + "ladder_host_test_" +
                             testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                             std::to_string(getpid()) + ".json";
    EXPECT_TRUE(ladder::write_json(rep, path));
    std::ifstream in(path);
    nlohmann::json j = nlohmann::json::parse(in);
    std::remove(path.c_str());
    return j;
}

TEST(LadderReport, JsonHoldsEachRungsShareOfPeakAndCopy) {
    ladder::Report rep;
    rep.device = "GPU \"quoted\"\n";
    rep.peak_gbps = 4000;
    ladder::LadderResult l{"reduce sum f32", "2^28", {}};
    l.rungs.push_back(make_rung("D2D copy (same bytes)", "copy", 1.0, false, false)); // 2000 GB/s
    l.rungs.push_back(make_rung("neighbored", "lesson", 4.0, true, true));           // 500 GB/s
    l.rungs.back().claim = "94 % of peak";
    rep.ladders.push_back(l);
    const nlohmann::json j = written(rep);
    EXPECT_EQ(j.at("device").get<std::string>(), rep.device);
    const auto& rungs = j.at("ladders").at(0).at("rungs");
    EXPECT_DOUBLE_EQ(j.at("ladders").at(0).at("copy_gbps").get<double>(), 2000.0);
    EXPECT_TRUE(rungs.at(0).at("verified").is_null()) << "the copy is not checked";
    EXPECT_DOUBLE_EQ(rungs.at(1).at("gbps").get<double>(), 500.0);
    EXPECT_DOUBLE_EQ(rungs.at(1).at("percent_of_peak").get<double>(), 12.5);
    EXPECT_DOUBLE_EQ(rungs.at(1).at("percent_of_copy").get<double>(), 25.0);
    EXPECT_EQ(rungs.at(1).at("claim").get<std::string>(), "94 % of peak");
    EXPECT_EQ(rungs.at(1).at("check").get<std::string>(), "tab\there, \"quoted\"");
    EXPECT_TRUE(rungs.at(0).at("claim").is_null());
    EXPECT_TRUE(j.at("all_verified").get<bool>());
}

TEST(LadderReport, UnknownPeakIsNullAndAFailedCheckFailsTheRun) {
    ladder::Report rep;
    rep.peak_gbps = 0;
    ladder::LadderResult l{"transpose f32", "4096x4096", {}};
    l.rungs.push_back(make_rung("naive", "lesson", 1.0, true, true));
    rep.ladders.push_back(l);
    rep.checks.push_back({"transpose f32", "1000x777", "naive", true});
    EXPECT_TRUE(rep.all_verified());
    nlohmann::json j = written(rep);
    EXPECT_TRUE(j.at("peak_gbps").is_null());
    EXPECT_TRUE(j.at("ladders").at(0).at("rungs").at(0).at("percent_of_peak").is_null());
    EXPECT_TRUE(j.at("ladders").at(0).at("rungs").at(0).at("percent_of_copy").is_null()) << "no copy rung";

    rep.checks.push_back({"transpose f32", "1000x777", "padded", false});
    EXPECT_FALSE(rep.all_verified());
    EXPECT_FALSE(written(rep).at("all_verified").get<bool>());
    rep.checks.pop_back();
    rep.ladders[0].rungs[0].verified = false;
    EXPECT_FALSE(rep.all_verified());
}

} // namespace

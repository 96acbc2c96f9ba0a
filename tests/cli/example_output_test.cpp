// SPDX-License-Identifier: Apache-2.0
// What the examples print: streams_overlap reports honest ratios (with one stream and one chunk
// the pipelined run is the serial run's work done the same way, so its speedup is 1 up to noise;
// on the cpu backend it claims no overlap and no ideal bound); vector_add shows a few values and
// the total error, as the lesson does.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "cli_test_paths.hpp"

namespace gpucore::cli_test {
namespace {

std::string example_path(const std::string& name) {
    for (const ExamplePath& e : example_paths) {
        if (name == e.name) return e.path;
    }
    return "";
}
std::string streams_overlap_path() { return example_path("streams_overlap"); }

// One OpenMP thread: on a loaded 2-core machine a team of two waits, now and then, tens of
// milliseconds for a descheduled member, which makes single run times bimodal; the comparison of
// equal work needs no parallelism.
std::vector<std::string> cpu_environment() {
    return child_environment({{"GPU_BACKEND", "cpu"}, {"OMP_NUM_THREADS", "1"}});
}

nlohmann::json run_json(const std::vector<std::string>& args) {
    const ChildResult r = run_child(streams_overlap_path(), args, cpu_environment());
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return nlohmann::json::parse(r.out); // throws (test error) on anything but one JSON object
}

// Median of three runs, each the ratio of the best of 21 runs: robust on a loaded 2-core machine.
TEST(StreamsOverlapExample, OneStreamOneChunkMatchesSerialOnCpu) {
    ASSERT_FALSE(streams_overlap_path().empty());
    std::vector<double> speedups;
    for (int run = 0; run < 3; ++run) {
        const nlohmann::json j = run_json({"1", "1", "21", "--repeats", "21", "--json"});
        EXPECT_EQ(j.at("streams").get<int>(), 1);
        EXPECT_EQ(j.at("chunks").get<int>(), 1);
        EXPECT_EQ(j.at("wrong_elements").get<long long>(), 0);
        speedups.push_back(j.at("speedup").get<double>());
    }
    std::sort(speedups.begin(), speedups.end());
    EXPECT_NEAR(speedups[1], 1.0, 0.1) << "speedups " << speedups[0] << ", " << speedups[1] << ", "
                                       << speedups[2];
}

TEST(StreamsOverlapExample, CpuBackendClaimsNoOverlapAndNoBound) {
    const nlohmann::json j = run_json({"4", "8", "18", "--repeats", "3", "--json"});
    EXPECT_FALSE(j.at("backend_overlaps").get<bool>());
    EXPECT_TRUE(j.at("ideal_ms").is_null());
    EXPECT_GT(j.at("serial_ms").get<double>(), 0.0);
    EXPECT_GT(j.at("pipelined_ms").get<double>(), 0.0);
    EXPECT_EQ(j.at("chunks").get<int>(), 8);

    const ChildResult text = run_child(streams_overlap_path(), {"4", "8", "18", "--repeats", "3"},
                                       cpu_environment());
    EXPECT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("does not overlap"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("ideal"), std::string::npos) << "no bound is claimed on cpu:\n" << text.out;
}

TEST(StreamsOverlapExample, RejectsBadArguments) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"0"}, {"4", "8", "18", "--repeats", "0"}, {"--frobnicate"}}) {
        const ChildResult r =
            run_child(streams_overlap_path(), args, cpu_environment());
        EXPECT_NE(r.exit_code, 0) << args[0];
        EXPECT_NE(r.err.find("usage"), std::string::npos) << r.err;
    }
}

TEST(VectorAddExample, PrintsValuesAndTotalError) {
    const ChildResult r = run_child(example_path("vector_add"), {}, cpu_environment());
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    for (const char* line : {"c[0] = ", "c[1] = ", "c[2] = ", "c[49999] = ", "total error: 0\n"}) {
        EXPECT_NE(r.out.find(line), std::string::npos) << line << " missing from:\n" << r.out;
    }
}

} // namespace
} // namespace gpucore::cli_test

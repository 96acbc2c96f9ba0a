// SPDX-License-Identifier: Apache-2.0
// Tests of the built `gpucore` command and the examples, run as child processes with a controlled
// environment. Results are checked through the JSON the command prints, not only exit codes.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <iterator>
#include <cstdint>
#include <sstream>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "child_process.hpp"
#include "cli_test_paths.hpp"

namespace gpucore::cli_test {

// Found by argument-dependent lookup: ExamplePath lives in this namespace (cli_test_paths.hpp).
void PrintTo(const ExamplePath& e, std::ostream* os) { *os << e.name; }

namespace {

using nlohmann::json;

ChildResult gpucore_cli(const std::vector<std::string>& args,
                        const std::vector<std::pair<std::string, std::string>>& env = {}) {
    return run_child(GPUCORE_CLI_PATH, args, child_environment(env));
}

json parse_stdout(const ChildResult& r) {
    try {
        return json::parse(r.out);
    } catch (const json::exception& e) {
        ADD_FAILURE() << "stdout is not one JSON document (" << e.what() << "):\n"
                      << r.out << "\nstderr:\n" << r.err;
        return json();
    }
}

// Every device `gpucore info --json` lists ("cpu:0" here; "cuda:0" too on a GPU machine).
const std::vector<std::string>& device_ids() {
    static const std::vector<std::string> ids = [] {
        std::vector<std::string> out;
        const ChildResult r = gpucore_cli({"info", "--json"});
        if (r.exit_code != 0) {
            ADD_FAILURE() << "gpucore info --json exited " << r.exit_code << ":\n" << r.err;
            return out;
        }
        const json info = json::parse(r.out); // named: a range-for over a temporary's member dangles
        for (const json& d : info.at("devices")) out.push_back(d.at("id"));
        return out;
    }();
    return ids;
}

std::string backend_of(const std::string& device_id) {
    return device_id.substr(0, device_id.find(':'));
}

// ---- info -------------------------------------------------------------------------------------

TEST(Info, JsonListsTheCpuBackendItsDeviceAndTheCandidates) {
    const ChildResult r = gpucore_cli({"info", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json j = parse_stdout(r);
    ASSERT_TRUE(j.is_object());

    bool cpu_backend = false;
    for (const json& b : j.at("backends")) {
        for (const char* key : {"name", "source", "version", "reason"})
            EXPECT_TRUE(b.at(key).is_string()) << key;
        EXPECT_TRUE(b.at("usable").is_boolean());
        EXPECT_TRUE(b.at("device_count").is_number_integer());
        if (b.at("name") == "cpu") {
            cpu_backend = true;
            EXPECT_EQ(b.at("source"), "built-in");
            EXPECT_TRUE(b.at("usable").get<bool>());
            EXPECT_GE(b.at("device_count").get<int>(), 1);
        }
    }
    EXPECT_TRUE(cpu_backend) << r.out;

    bool cpu_device = false;
    for (const json& d : j.at("devices")) {
        EXPECT_EQ(d.at("id"), d.at("backend").get<std::string>() + ":" +
                                  std::to_string(d.at("index").get<int>()));
        EXPECT_FALSE(d.at("name").get<std::string>().empty());
        EXPECT_GE(d.at("compute_units").get<unsigned>(), 1u);
        EXPECT_GE(d.at("warp_size").get<unsigned>(), 1u);
        EXPECT_GT(d.at("total_memory_bytes").get<std::uint64_t>(), 0u);
        for (const char* key : {"vendor", "architecture"}) EXPECT_TRUE(d.at(key).is_string());
        for (const char* key : {"supports_pinned_host", "supports_managed"})
            EXPECT_TRUE(d.at(key).is_boolean());
        cpu_device = cpu_device || d.at("id") == "cpu:0";
    }
    EXPECT_TRUE(cpu_device) << r.out;

    ASSERT_TRUE(j.at("plugin_candidates").is_array());
    for (const json& c : j.at("plugin_candidates")) {
        EXPECT_FALSE(c.at("path").get<std::string>().empty());
        const std::string outcome = c.at("outcome");
        EXPECT_TRUE(outcome == "loaded" || outcome == "skipped") << outcome;
        if (outcome == "skipped") {
            EXPECT_FALSE(c.at("reason").get<std::string>().empty());
        }
    }
    EXPECT_TRUE(j.at("default_device").is_string());
}

TEST(Info, TextNamesBackendsDevicesAndTheDefault) {
    const ChildResult r = gpucore_cli({"info"}, {{"GPU_BACKEND", "cpu"}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* text : {"Backends", "Plugin candidates", "Devices", "cpu:0",
                             "Default device (GPU_BACKEND=cpu): cpu:0"})
        EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

TEST(Info, UnknownBackendExitsNonZeroWithTheReason) {
    const ChildResult r = gpucore_cli({"info"}, {{"GPU_BACKEND", "nosuch"}});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("nosuch"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cpu"), std::string::npos) << "should list the available backends: " << r.err;
    EXPECT_NE(r.out.find("Backends"), std::string::npos) << "the rest is still reported";
}

TEST(Info, UnknownBackendInJsonHasNoDefaultAndSaysWhy) {
    const ChildResult r = gpucore_cli({"info", "--json"}, {{"GPU_BACKEND", "nosuch"}});
    EXPECT_EQ(r.exit_code, 3);
    const json j = parse_stdout(r);
    EXPECT_TRUE(j.at("default_device").is_null());
    EXPECT_EQ(j.at("gpu_backend"), "nosuch");
    EXPECT_NE(j.at("selection_error").get<std::string>().find("nosuch"), std::string::npos);
}

TEST(Info, DeviceIndexOutOfRangeExitsNonZero) {
    const ChildResult r = gpucore_cli({"info"}, {{"GPU_BACKEND", "cpu:7"}});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("cpu:7"), std::string::npos) << r.err;
}

// ---- run: every op x dtype (x reduce op) on every device ----------------------------------------

struct RunCase {
    std::string op, dtype, reduce_op; // reduce_op empty for vector_add / transpose
    std::vector<std::string> shape_args;
    std::vector<std::size_t> shape;
};

std::string case_name(const testing::TestParamInfo<RunCase>& info) {
    std::string name = info.param.op + "_" + info.param.dtype;
    if (!info.param.reduce_op.empty()) name += "_" + info.param.reduce_op;
    for (std::size_t s : info.param.shape) name += "_" + std::to_string(s);
    return name;
}

std::vector<RunCase> all_run_cases() {
    std::vector<RunCase> cases;
    for (const char* dtype : {"f32", "f64", "i32", "u32"}) {
        cases.push_back({"vector_add", dtype, "", {"--n", "4097"}, {4097}});
        cases.push_back({"transpose", dtype, "", {"--rows", "33", "--cols", "1025"}, {33, 1025}});
        for (const char* op : {"sum", "min", "max", "prod"}) {
            cases.push_back({"reduce", dtype, op, {"--n", "100003"}, {100003}});
            cases.push_back({"reduce_rows", dtype, op, {"--rows", "31", "--cols", "1023"}, {31, 1023}});
        }
    }
    // Degenerate and empty shapes.
    for (const char* dtype : {"f32", "u32"}) {
        cases.push_back({"vector_add", dtype, "", {"--n", "0"}, {0}});
        cases.push_back({"vector_add", dtype, "", {"--n", "1"}, {1}});
        cases.push_back({"transpose", dtype, "", {"--rows", "1", "--cols", "517"}, {1, 517}});
        cases.push_back({"transpose", dtype, "", {"--rows", "517", "--cols", "1"}, {517, 1}});
        for (const char* op : {"sum", "min", "max", "prod"}) {
            cases.push_back({"reduce", dtype, op, {"--n", "0"}, {0}});
            cases.push_back({"reduce", dtype, op, {"--n", "1"}, {1}});
            cases.push_back({"reduce_rows", dtype, op, {"--rows", "3", "--cols", "0"}, {3, 0}});
        }
        cases.push_back({"reduce_rows", dtype, "sum", {"--rows", "0", "--cols", "5"}, {0, 5}});
        cases.push_back({"reduce_rows", dtype, "sum", {"--rows", "4097", "--cols", "1"}, {4097, 1}});
    }
    return cases;
}

void PrintTo(const RunCase& c, std::ostream* os) {
    *os << c.op << " " << c.dtype << " " << c.reduce_op;
    for (const std::string& a : c.shape_args) *os << " " << a;
}

class Run : public testing::TestWithParam<RunCase> {};

TEST_P(Run, JsonReportsAVerifiedResult) {
    const RunCase& c = GetParam();
    ASSERT_FALSE(device_ids().empty()) << "gpucore info --json listed no device";
    for (const std::string& device : device_ids()) {
        SCOPED_TRACE(device);
        std::vector<std::string> args{"run", c.op, "--dtype", c.dtype, "--device", device,
                                      "--repeat", "3", "--seed", "7", "--json"};
        args.insert(args.end(), c.shape_args.begin(), c.shape_args.end());
        if (!c.reduce_op.empty()) args.insert(args.end(), {"--op", c.reduce_op});
        const ChildResult r = gpucore_cli(args);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        const json j = parse_stdout(r);
        if (!j.is_object()) continue;
        EXPECT_EQ(j.at("verified"), true) << j.dump(2);
        EXPECT_EQ(j.at("mismatches"), 0);
        EXPECT_EQ(j.at("op"), c.op);
        EXPECT_EQ(j.at("dtype"), c.dtype);
        if (c.reduce_op.empty()) {
            EXPECT_FALSE(j.contains("reduce_op"));
        } else {
            EXPECT_EQ(j.at("reduce_op"), c.reduce_op);
        }
        EXPECT_EQ(j.at("shape").get<std::vector<std::size_t>>(), c.shape);
        EXPECT_EQ(j.at("device"), device);
        EXPECT_EQ(j.at("backend"), backend_of(device));
        EXPECT_EQ(j.at("repeats"), 3);
        EXPECT_EQ(j.at("seed"), 7);
        ASSERT_TRUE(j.at("ms").is_number()) << j.dump(2);
        EXPECT_GE(j.at("ms").get<double>(), 0.0);
        EXPECT_LE(j.at("ms_min").get<double>(), j.at("ms").get<double>());
        EXPECT_GE(j.at("ms_max").get<double>(), j.at("ms").get<double>());
        ASSERT_TRUE(j.at("gbps").is_number());
        EXPECT_GE(j.at("gbps").get<double>(), 0.0);
        ASSERT_TRUE(j.at("max_error").is_number());
        EXPECT_GE(j.at("max_error").get<double>(), 0.0);
        EXPECT_LE(j.at("max_error_ratio").get<double>(), 1.0);
        if (c.dtype == "i32" || c.dtype == "u32" || c.op == "transpose" || c.reduce_op == "min" ||
            c.reduce_op == "max" || c.reduce_op == "prod") {
            EXPECT_EQ(j.at("max_error").get<double>(), 0.0) << "these results are exact";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryOpAndDtype, Run, testing::ValuesIn(all_run_cases()), case_name);

TEST(RunAll, JsonHoldsEveryOpVerified) {
    const ChildResult r = gpucore_cli({"run", "all", "--n", "2^16", "--rows", "100", "--cols",
                                       "300", "--repeat", "2", "--json"},
                                      {{"GPU_BACKEND", "cpu"}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json j = parse_stdout(r);
    EXPECT_EQ(j.at("verified"), true);
    EXPECT_EQ(j.at("device"), "cpu:0");
    std::vector<std::string> ops;
    for (const json& res : j.at("results")) {
        ops.push_back(res.at("op"));
        EXPECT_EQ(res.at("verified"), true) << res.dump(2);
        EXPECT_EQ(res.at("device"), "cpu:0");
    }
    EXPECT_EQ(ops, (std::vector<std::string>{"vector_add", "transpose", "reduce", "reduce_rows"}));
    EXPECT_EQ(j.at("results").at(0).at("shape"), json({65536}));
    EXPECT_EQ(j.at("results").at(1).at("shape"), json({100, 300}));
}

TEST(RunAll, HalfAndBfloat16AreVerifiedForEveryOpAndReduceOp) {
    for (const char* dtype : {"f16", "bf16"}) {
        for (const char* op : {"sum", "min", "max", "prod"}) {
            const ChildResult r = gpucore_cli({"run", "all", "--dtype", dtype, "--op", op, "--n", "2^20",
                                               "--rows", "300", "--cols", "1001", "--repeat", "1", "--json"},
                                              {{"GPU_BACKEND", "cpu"}});
            ASSERT_EQ(r.exit_code, 0) << dtype << " " << op << "\n" << r.err << r.out;
            const json j = parse_stdout(r);
            EXPECT_EQ(j.at("verified"), true) << dtype << " " << op;
            EXPECT_EQ(j.at("results").size(), 4u);
            for (const json& res : j.at("results")) {
                EXPECT_EQ(res.at("dtype"), dtype) << res.dump(2);
                EXPECT_EQ(res.at("verified"), true) << res.dump(2);
            }
        }
    }
}

TEST(RunAll, TablePrintsOneVerifiedRowPerOp) {
    const ChildResult r = gpucore_cli({"run", "all", "--n", "1000", "--rows", "10", "--cols",
                                       "20", "--repeat", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* text : {"vector_add", "transpose", "reduce sum", "reduce_rows sum", "GB/s"})
        EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
    std::size_t ok_rows = 0;
    for (std::size_t at = r.out.find(" ok "); at != std::string::npos; at = r.out.find(" ok ", at + 1))
        ++ok_rows;
    EXPECT_EQ(ok_rows, 4u) << r.out;
}

TEST(Run, GpuBackendPicksTheDevice) {
    const ChildResult r = gpucore_cli({"run", "reduce", "--n", "1000", "--repeat", "1", "--json"},
                                      {{"GPU_BACKEND", "cpu:0"}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(parse_stdout(r).at("device"), "cpu:0");
}

// ---- a wrong backend is caught --------------------------------------------------------------------

std::vector<std::vector<std::string>> one_call_per_op() {
    return {{"vector_add", "--n", "1000"},
            {"transpose", "--rows", "30", "--cols", "70"},
            {"reduce", "--n", "1000", "--op", "max"},
            {"reduce_rows", "--rows", "30", "--cols", "70", "--dtype", "i32"}};
}

TEST(Verification, AWrongResultIsReportedAndExitsOne) {
    for (std::vector<std::string> args : one_call_per_op()) {
        SCOPED_TRACE(args.front());
        args.insert(args.begin(), "run");
        args.insert(args.end(), {"--device", "faulty", "--repeat", "2", "--json"});
        const ChildResult r = gpucore_cli(args, {{"GPUCORE_PLUGIN_PATH", GPUCORE_FAULTY_PLUGIN_DIR}});
        EXPECT_EQ(r.exit_code, 1) << r.err;
        const json j = parse_stdout(r);
        if (!j.is_object()) continue;
        EXPECT_EQ(j.at("backend"), "faulty");
        EXPECT_EQ(j.at("verified"), false);
        EXPECT_GE(j.at("mismatches").get<int>(), 1);
        const json& ratio = j.at("max_error_ratio"); // null: infinite (an exact op was off)
        EXPECT_TRUE(ratio.is_null() || ratio.get<double>() > 1.0) << ratio;
        EXPECT_NE(r.err.find("failed verification"), std::string::npos) << r.err;
    }
}

TEST(Verification, TheCorrectPluginItIsBuiltFromPasses) {
    // The control for the test above: the same plugin without the spoiling wrapper.
    for (std::vector<std::string> args : one_call_per_op()) {
        SCOPED_TRACE(args.front());
        args.insert(args.begin(), "run");
        args.insert(args.end(), {"--device", "template", "--repeat", "2", "--json"});
        const ChildResult r = gpucore_cli(args, {{"GPUCORE_PLUGIN_PATH", GPUCORE_TEMPLATE_PLUGIN_DIR}});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        const json j = parse_stdout(r);
        if (!j.is_object()) continue;
        EXPECT_EQ(j.at("backend"), "template");
        EXPECT_EQ(j.at("verified"), true);
    }
}

TEST(Verification, RunAllTableMarksTheFailure) {
    const ChildResult r = gpucore_cli({"run", "all", "--n", "1000", "--rows", "20", "--cols", "30",
                                       "--repeat", "1", "--device", "faulty"},
                                      {{"GPUCORE_PLUGIN_PATH", GPUCORE_FAULTY_PLUGIN_DIR}});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("FAILED"), std::string::npos) << r.out;
}

// ---- errors: exit codes and messages -------------------------------------------------------------

struct BadCall {
    std::string name;
    std::vector<std::string> args;
    std::string usage_start; // the usage line expected on stderr
    std::string message;     // a piece of the error message
};

void PrintTo(const BadCall& c, std::ostream* os) {
    *os << "gpucore";
    for (const std::string& a : c.args) *os << " " << a;
}

class UsageErrors : public testing::TestWithParam<BadCall> {};

TEST_P(UsageErrors, ExitTwoWithTheUsageLineOnStderr) {
    const BadCall& c = GetParam();
    const ChildResult r = gpucore_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("usage: " + c.usage_start), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << "nothing on stdout for a usage error";
}

INSTANTIATE_TEST_SUITE_P(
    BadFlagsAndValues, UsageErrors,
    testing::Values(
        BadCall{"unknown_flag", {"run", "vector_add", "--bogus"}, "gpucore run", "--bogus"},
        BadCall{"bad_dtype", {"run", "vector_add", "--dtype", "f8"}, "gpucore run", "f8"},
        BadCall{"bad_op", {"run", "vector_mul"}, "gpucore run", "vector_mul"},
        BadCall{"missing_op", {"run"}, "gpucore run", "op"},
        BadCall{"bad_count", {"run", "reduce", "--n", "many"}, "gpucore run", "many"},
        BadCall{"bad_power", {"run", "reduce", "--n", "2^99"}, "gpucore run", "2^99"},
        BadCall{"negative_count", {"run", "reduce", "--n", "-5"}, "gpucore run", "-5"},
        BadCall{"bad_reduce_op", {"run", "reduce", "--op", "mean"}, "gpucore run", "mean"},
        BadCall{"zero_repeat", {"run", "reduce", "--repeat", "0"}, "gpucore run", "repeat"},
        BadCall{"n_for_transpose", {"run", "transpose", "--n", "5"}, "gpucore run", "--rows"},
        BadCall{"rows_for_reduce", {"run", "reduce", "--rows", "5"}, "gpucore run", "--n"},
        BadCall{"op_for_vector_add", {"run", "vector_add", "--op", "sum"}, "gpucore run", "--op"},
        BadCall{"overflowing_shape",
                {"run", "transpose", "--rows", "2^40", "--cols", "2^40"}, "gpucore run", "fit"},
        BadCall{"info_flag", {"info", "--verbose"}, "gpucore info", "--verbose"},
        BadCall{"bench_flag", {"bench", "--fast"}, "gpucore bench", "--fast"},
        BadCall{"bench_repeat", {"bench", "--repeat", "x"}, "gpucore bench", "x"},
        BadCall{"bench_json_path",
                {"bench", "--quick", "--json", "/nonexistent-dir/out.json"}, "gpucore bench",
                "/nonexistent-dir/out.json"},
        BadCall{"negative_seed", {"run", "reduce", "--seed", "-1"}, "gpucore run", "-1"},
        BadCall{"overflowing_seed", {"run", "reduce", "--seed", "18446744073709551616"}, "gpucore run",
                "18446744073709551616"},
        BadCall{"signed_seed", {"run", "reduce", "--seed", "+7"}, "gpucore run", "+7"},
        BadCall{"negative_repeat", {"run", "reduce", "--repeat", "-1"}, "gpucore run", "-1"},
        BadCall{"overflowing_count", {"run", "reduce", "--n", "99999999999999999999999"}, "gpucore run",
                "99999999999999999999999"},
        BadCall{"negative_rows", {"run", "transpose", "--rows", "-3", "--cols", "4"}, "gpucore run", "-3"},
        BadCall{"bench_negative_seed", {"bench", "--seed", "-1"}, "gpucore bench", "-1"},
        BadCall{"bench_negative_repeat", {"bench", "--repeat", "-2"}, "gpucore bench", "-2"},
        BadCall{"no_subcommand", {}, "gpucore info|run|bench", "subcommand"},
        BadCall{"unknown_subcommand", {"frobnicate"}, "gpucore info|run|bench", "frobnicate"}),
    [](const testing::TestParamInfo<BadCall>& test) { return test.param.name; });

TEST(Errors, UnavailableDeviceIsAGpucoreErrorWithTheReason) {
    for (const char* device : {"nosuch", "cpu:7"}) {
        const ChildResult r = gpucore_cli({"run", "vector_add", "--n", "10", "--device", device});
        EXPECT_EQ(r.exit_code, 3) << device;
        EXPECT_NE(r.err.find(device), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
    }
}

TEST(Errors, HelpOnEveryCommandExitsZero) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--help"}, {"info", "--help"}, {"run", "--help"},
          {"bench", "--help"}}) {
        const ChildResult r = gpucore_cli(args);
        EXPECT_EQ(r.exit_code, 0) << args.front();
        EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
    }
    EXPECT_NE(gpucore_cli({"run", "--help"}).out.find("--dtype"), std::string::npos);
    EXPECT_NE(gpucore_cli({"bench", "--help"}).out.find("--quick"), std::string::npos);
}

// The op list and its shape and reduction rules are written once (operations.cpp); the usage line, the
// help and the messages of `run` are derived from them and must still name each op where it fits.
TEST(Errors, RunUsageHelpAndMessagesNameTheOpsTheyApplyTo) {
    const ChildResult usage = gpucore_cli({"run", "vector_mul"});
    EXPECT_NE(usage.err.find("usage: gpucore run vector_add|transpose|reduce|reduce_rows|all [--dtype"),
              std::string::npos)
        << usage.err;
    EXPECT_NE(usage.err.find("{vector_add,transpose,reduce,reduce_rows,all}"), std::string::npos) << usage.err;
    const std::string help = gpucore_cli({"run", "--help"}).out;
    for (const char* text : {"Elements, for vector_add and reduce (", "Rows, for transpose and reduce_rows (",
                             "Columns, for transpose and reduce_rows ("})
        EXPECT_NE(help.find(text), std::string::npos) << text << " in\n" << help;
    for (const char* op : {"vector_add", "transpose"}) {
        const ChildResult r = gpucore_cli({"run", op, "--op", "max"});
        EXPECT_EQ(r.exit_code, 2) << op;
        EXPECT_NE(r.err.find("--op applies to reduce and reduce_rows only"), std::string::npos) << r.err;
    }
}

TEST(Errors, ARunLargerThanMemoryIsRefusedWithTheNumbers) {
    for (const char* n : {"2^40", "2^50"}) {
        const ChildResult r = gpucore_cli({"run", "vector_add", "--n", n, "--device", "cpu"});
        EXPECT_EQ(r.exit_code, 3) << r.err;
        EXPECT_NE(r.err.find("needs"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("host memory"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("available"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
    }
}

// ---- output that cannot be written ----------------------------------------------------------------

// Runs the command with its standard output on /dev/full (every write fails with ENOSPC).
ChildResult gpucore_cli_to_full_device(const std::vector<std::string>& args) {
    std::vector<std::string> shell_args = {"-c", "exec \"$0\" \"$@\" >/dev/full", GPUCORE_CLI_PATH};
    shell_args.insert(shell_args.end(), args.begin(), args.end());
    return run_child("/bin/sh", shell_args, child_environment({{"GPU_BACKEND", "cpu"}}));
}

TEST(Output, AFullDeviceOnStandardOutputIsAnErrorForEveryCommand) {
    std::FILE* full = std::fopen("/dev/full", "w");
    if (full == nullptr) GTEST_SKIP() << "/dev/full is not available here";
    std::fclose(full);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"info"}, {"info", "--json"}, {"run", "vector_add", "--n", "1000", "--repeat", "1"},
          {"run", "reduce", "--n", "1000", "--repeat", "1", "--json"},
          {"bench", "--quick", "--repeat", "1"}}) {
        const ChildResult r = gpucore_cli_to_full_device(args);
        EXPECT_EQ(r.exit_code, 4) << args.front() << ": " << r.err;
        EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
    }
}

std::string read_file(const std::string& path) {
    std::string text;
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
        char buffer[4096];
        std::size_t got = 0;
        while ((got = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, got);
        std::fclose(f);
    }
    return text;
}

TEST(Output, AFailingBenchLeavesAnExistingJsonFileAsItWas) {
    const std::string folder = testing::TempDir() + "gpucore_cli_test_keep/";
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder);
    const std::string file = folder + "results.json";
    const std::string previous = "{\"previous\": \"results\"}\n";
    {
        std::FILE* f = std::fopen(file.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        std::fputs(previous.c_str(), f);
        std::fclose(f);
    }
    const ChildResult r = gpucore_cli({"bench", "--quick", "--device", "nosuch", "--json", file});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_EQ(read_file(file), previous);
    std::size_t entries = 0;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        ++entries;
        EXPECT_EQ(entry.path().filename(), "results.json") << "a temporary file was left behind";
    }
    EXPECT_EQ(entries, 1u);
    std::filesystem::remove_all(folder);
}

// `bench --json` to a character device writes through it: the node stays a device (a rename
// would replace it by a regular file; as root, `--json /dev/null` would destroy /dev/null).
TEST(Output, BenchJsonToACharacterDeviceKeepsTheDevice) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a device node (mknod)";
    const std::string folder = testing::TempDir() + "gpucore_cli_test_device/";
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder);
    const std::string null = folder + "null"; // a copy of /dev/null (1,3)
    ASSERT_EQ(::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
    const ChildResult r = gpucore_cli({"bench", "--quick", "--repeat", "1", "--dtype", "u32", "--json", null});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    struct stat status {};
    ASSERT_EQ(::lstat(null.c_str(), &status), 0);
    EXPECT_TRUE(S_ISCHR(status.st_mode)) << "the device node was replaced";
    std::size_t entries = 0;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) (void)entry, ++entries;
    EXPECT_EQ(entries, 1u) << "a temporary file was left behind";
    std::filesystem::remove_all(folder);
}

// A real memory cgroup (v1, or v2 where its parent delegates the memory controller) of `limit`
// bytes under the test's own group; empty `folder` when this system does not let the test make one.
struct MemoryCgroup {
    explicit MemoryCgroup(std::uint64_t limit) {
        if (::geteuid() != 0) return;
        std::ifstream mounts("/proc/self/mountinfo");
        std::string mount_point;
        bool v2 = false;
        for (std::string line; std::getline(mounts, line);) {
            const bool v1_memory = line.find(" - cgroup ") != std::string::npos &&
                                   line.find(",memory") != std::string::npos;
            const bool unified = line.find(" - cgroup2 ") != std::string::npos;
            if (!v1_memory && !unified) continue;
            std::istringstream words(line);
            std::string w[5];
            for (auto& word : w) words >> word;
            if (v1_memory || mount_point.empty()) mount_point = w[4], v2 = unified && !v1_memory;
            if (v1_memory) break;
        }
        if (mount_point.empty()) return;
        std::ifstream groups("/proc/self/cgroup");
        std::string own;
        for (std::string line; std::getline(groups, line);) {
            const auto colon = line.find(':'), second = line.find(':', colon + 1);
            const std::string controllers = line.substr(colon + 1, second - colon - 1);
            if (v2 ? controllers.empty() : controllers.find("memory") != std::string::npos) own = line.substr(second + 1);
        }
        std::string parent = mount_point + own;
        if (!std::filesystem::is_directory(parent)) parent = mount_point;
        if (v2) {
            std::ifstream delegated(parent + "/cgroup.subtree_control");
            std::string controllers((std::istreambuf_iterator<char>(delegated)), std::istreambuf_iterator<char>());
            if (controllers.find("memory") == std::string::npos) return;
        }
        const std::string candidate = parent + "/gpucore-cli-test-" + std::to_string(::getpid());
        if (::mkdir(candidate.c_str(), 0755) != 0) return;
        std::ofstream(candidate + (v2 ? "/memory.max" : "/memory.limit_in_bytes")) << limit;
        folder = candidate;
    }
    ~MemoryCgroup() {
        if (!folder.empty()) ::rmdir(folder.c_str());
    }
    std::string folder;
};

// `gpucore run` larger than the memory cgroup allows (though smaller than the machine's free
// memory) is refused with a message that names the cgroup limit, not killed by the OOM killer.
TEST(Memory, RunLargerThanTheMemoryCgroupAllowsIsRefusedWithAMessage) {
    const MemoryCgroup cgroup(std::uint64_t{256} << 20);
    if (cgroup.folder.empty()) GTEST_SKIP() << "cannot create a memory cgroup here (needs root and a writable cgroup fs)";
    // The shell joins the cgroup, then becomes gpucore.
    const std::string join = "echo $$ > '" + cgroup.folder + "/cgroup.procs' && exec \"$0\" \"$@\"";
    const ChildResult r = run_child("/bin/sh", {"-c", join, GPUCORE_CLI_PATH, "run", "vector_add", "--n", "100000000",
                                                "--repeat", "1"},
                                    child_environment({{"GPU_BACKEND", "cpu"}}));
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("memory cgroup"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(cgroup.folder), std::string::npos) << r.err;
    // A run that fits goes ahead in the same cgroup.
    const ChildResult small = run_child("/bin/sh", {"-c", join, GPUCORE_CLI_PATH, "run", "vector_add", "--n", "100000",
                                                    "--repeat", "1"},
                                        child_environment({{"GPU_BACKEND", "cpu"}}));
    EXPECT_EQ(small.exit_code, 0) << small.err;
}

// A plugin folder and file whose names are not UTF-8: `info --json` must still print valid JSON,
// with the invalid bytes replaced by U+FFFD.
TEST(Output, JsonStaysValidWhenAPathIsNotUtf8) {
    const std::filesystem::path folder =
        std::filesystem::path(GPUCORE_FAULTY_PLUGIN_DIR).parent_path() / "not-utf8-\xff\xfe";
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder);
    std::filesystem::permissions(folder, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                             std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                             std::filesystem::perms::others_exec);
    const std::filesystem::path file = folder / "plugin-\xc3\x28.so";
    {
        std::FILE* f = std::fopen(file.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        std::fputs("not an ELF file", f);
        std::fclose(f);
    }
    const ChildResult r = run_child(GPUCORE_CLI_PATH, {"info", "--json"},
                                    child_environment({{"GPUCORE_PLUGIN_PATH", folder.string()}}));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const json j = parse_stdout(r);
    ASSERT_TRUE(j.is_object()) << r.out;
    bool replaced = false;
    for (const json& c : j.at("plugin_candidates")) {
        const std::string path = c.at("path");
        replaced = replaced || path.find("not-utf8-\xef\xbf\xbd\xef\xbf\xbd") != std::string::npos;
    }
    EXPECT_TRUE(replaced) << r.out;
    std::filesystem::remove_all(folder);
}

// ---- bench ----------------------------------------------------------------------------------------

TEST(Bench, QuickWritesVerifiedResultsWithCopyBaselineAndPeer) {
    const std::string file = testing::TempDir() + "gpucore_cli_test_bench.json";
    std::remove(file.c_str());
    const ChildResult r = gpucore_cli({"bench", "--quick", "--repeat", "2", "--json", file},
                                      {{"GPU_BACKEND", "cpu"}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("% of copy"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("% of peak"), std::string::npos) << r.out;

    std::FILE* f = std::fopen(file.c_str(), "r");
    ASSERT_NE(f, nullptr) << file;
    const json j = json::parse(f);
    std::fclose(f);
    EXPECT_EQ(j.at("device").at("id"), "cpu:0");
    EXPECT_EQ(j.at("quick"), true);
    EXPECT_EQ(j.at("verified"), true);
    bool ops[4] = {};
    std::size_t peers = 0;
    for (const json& res : j.at("results")) {
        SCOPED_TRACE(res.at("name").get<std::string>());
        EXPECT_EQ(res.at("verified"), true);
        EXPECT_EQ(res.at("repeats"), 2);
        EXPECT_GT(res.at("gbps").get<double>(), 0.0);
        EXPECT_GT(res.at("copy").at("gbps").get<double>(), 0.0);
        EXPECT_GT(res.at("percent_of_copy").get<double>(), 0.0);
        EXPECT_TRUE(res.at("percent_of_peak").is_null()) << "the cpu backend reports no peak";
        EXPECT_GE(res.at("rotation_sets").get<int>(), 1);
        const std::string op = res.at("op");
        ops[0] |= op == "vector_add";
        ops[1] |= op == "transpose";
        ops[2] |= op == "reduce";
        ops[3] |= op == "reduce_rows";
        if (op == "vector_add") {
            ASSERT_TRUE(res.contains("peer")) << "the cpu backend's vector_add has an OpenMP peer";
            EXPECT_EQ(res.at("peer").at("name"), "openmp_loop");
            EXPECT_GT(res.at("peer").at("speedup").get<double>(), 0.0);
            ++peers;
        }
    }
    EXPECT_TRUE(ops[0] && ops[1] && ops[2] && ops[3]);
    EXPECT_GE(peers, 4u) << "a vector_add peer for each dtype";
    std::remove(file.c_str());
}

// `run all` on a backend that answers not_supported (here for the dtype: the ABI 1.0 fixture has
// no f16; a plugin older than an op answers so for that op): each such case is skipped and named
// on stderr; when nothing ran, the error is the command's (exit 3).
TEST(RunAll, CasesTheBackendDoesNotImplementAreSkippedAndNamed) {
    const ChildResult r = gpucore_cli({"run", "all", "--dtype", "f16", "--n", "1000", "--rows", "20", "--cols",
                                       "30", "--repeat", "1"},
                                      {{"GPUCORE_PLUGIN_PATH", GPUCORE_ABI10_PLUGIN_FILE},
                                       {"GPU_BACKEND", "abi10-template"}});
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    for (const char* op : {"vector_add", "transpose", "reduce sum", "reduce_rows sum"}) {
        const std::string line = "gpucore: " + std::string(op) + " f16 ";
        const std::size_t at = r.err.find(line);
        ASSERT_NE(at, std::string::npos) << line << " not named on stderr:\n" << r.err;
        EXPECT_NE(r.err.find("skipped", at), std::string::npos) << r.err;
    }
}

// A backend that answers not_supported for a dtype (the ABI 1.0 fixture has no f16 or bf16): the
// cases of that dtype are skipped, each named on stderr with the backend's reason. When nothing
// else was asked for, nothing was measured: exit 3 and no JSON file (an existing one is kept).
TEST(Bench, CasesOfADtypeTheBackendDoesNotImplementAreSkippedAndNamed) {
    const std::string file = testing::TempDir() + "gpucore_cli_test_bench_skip.json";
    const std::string previous = "{\"previous\": \"results\"}\n";
    {
        std::FILE* f = std::fopen(file.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        std::fputs(previous.c_str(), f);
        std::fclose(f);
    }
    const ChildResult r = gpucore_cli({"bench", "--quick", "--repeat", "1", "--dtype", "f16", "--dtype", "bf16",
                                       "--json", file},
                                      {{"GPUCORE_PLUGIN_PATH", GPUCORE_ABI10_PLUGIN_FILE},
                                       {"GPU_BACKEND", "abi10-template"}});
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    std::size_t skipped = 0;
    for (const char* op : {"vector_add", "reduce sum", "transpose", "reduce_rows sum"}) {
        for (const char* dtype : {"f16", "bf16"}) {
            const std::string name = std::string(op) + " " + dtype + " ";
            const std::size_t at = r.err.find("gpucore: " + name);
            EXPECT_NE(at, std::string::npos) << name << " not named on stderr:\n" << r.err;
            if (at == std::string::npos) continue;
            const std::string line = r.err.substr(at, r.err.find('\n', at) - at);
            EXPECT_NE(line.find("skipped"), std::string::npos) << line;
            EXPECT_NE(line.find("ABI 1.0"), std::string::npos) << "the backend's reason: " << line;
            EXPECT_NE(line.find(dtype), std::string::npos) << line;
            ++skipped;
        }
    }
    EXPECT_EQ(skipped, 8u);
    EXPECT_NE(r.err.find("bench measured nothing"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("FAILED"), std::string::npos) << r.out;
    EXPECT_EQ(read_file(file), previous) << "a run that measured nothing must not replace the results";
    std::remove(file.c_str());
}

TEST(Bench, AnUnknownDtypeIsAUsageError) {
    const ChildResult r = gpucore_cli({"bench", "--quick", "--dtype", "f8"}, {{"GPU_BACKEND", "cpu"}});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--dtype"), std::string::npos) << r.err;
}

// ---- examples -------------------------------------------------------------------------------------

class Example : public testing::TestWithParam<ExamplePath> {};

TEST_P(Example, RunsAndPassesOnEveryDevice) {
    const ExamplePath& e = GetParam();
    std::vector<std::string> args;
    if (std::string(e.name) == "streams_overlap") args = {"4", "8", "20"}; // 2^20: seconds, not minutes
    ASSERT_FALSE(device_ids().empty());
    for (const std::string& device : device_ids()) {
        SCOPED_TRACE(device);
        const ChildResult r = run_child(e.path, args, child_environment({{"GPU_BACKEND", device}}));
        EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
        const bool declined = std::string(e.name) == "unified_memory" &&
                              r.out.find("has no managed (unified) memory") != std::string::npos;
        EXPECT_TRUE(declined || r.out.find("PASS") != std::string::npos) << r.out;
        EXPECT_NE(r.out.find(device), std::string::npos) << "should say where it ran:\n" << r.out;
    }
}

INSTANTIATE_TEST_SUITE_P(AllExamples, Example, testing::ValuesIn(example_paths),
                         [](const testing::TestParamInfo<ExamplePath>& test) {
                             return std::string(test.param.name);
                         });

TEST(ExampleErrors, UnknownBackendFailsLoudly) {
    const ChildResult r = run_child(example_paths[0].path, {},
                                    child_environment({{"GPU_BACKEND", "nosuch"}}));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("nosuch"), std::string::npos) << r.err;
}

TEST(ExampleErrors, NegativeOrOverflowingCountsAreRefusedNotWrapped) {
    const ExamplePath* overlap = nullptr;
    for (const ExamplePath& e : example_paths)
        if (std::string(e.name) == "streams_overlap") overlap = &e;
    if (overlap == nullptr) GTEST_SKIP() << "streams_overlap is not built";
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"-1"}, {"4", "-8"}, {"4", "8", "99999999999999999999999"}, {"4x"}}) {
        const ChildResult r = run_child(overlap->path, args, child_environment({{"GPU_BACKEND", "cpu"}}));
        EXPECT_NE(r.exit_code, 0) << args.back();
        EXPECT_NE(r.err.find("is not a count"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("usage:"), std::string::npos) << r.err;
    }
}

} // namespace
} // namespace gpucore::cli_test

// SPDX-License-Identifier: Apache-2.0
#include "run_command.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "case_result.hpp"
#include "count_validator.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "gpucore/gpucore.hpp"
#include "op_case.hpp"
#include "operation.hpp"
#include "text_table.hpp"
#include "timing.hpp"

namespace gpucore::cli {

namespace {

// Moderate defaults: `run all` takes a few seconds on a 2-core CPU, references included.
constexpr std::size_t default_n = std::size_t{1} << 22;
constexpr std::size_t default_rows = 2048;
constexpr std::size_t default_cols = 2048;

std::size_t count_or(const std::string& text, std::size_t fallback) {
    return text.empty() ? fallback : *parse_count(text);
}

// "vector_add and reduce": the ops for which keep(op) is true, for help texts and messages (the
// op list and its rules live in the operations' descriptions, so a new op needs no edit here).
template <class Keep>
std::string ops_where(Keep keep) {
    std::vector<std::string> names;
    for (const Operation& op : all_operations())
        if (keep(op)) names.emplace_back(op.name);
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) text += i + 1 == names.size() ? " and " : ", ";
        text += names[i];
    }
    return text;
}

bool is_vector(const Operation& op) noexcept { return !op.is_matrix(); }
bool is_matrix(const Operation& op) noexcept { return op.is_matrix(); }
bool takes_reduce_op(const Operation& op) noexcept { return op.takes_reduce_op; }

std::vector<std::string> operation_names() {
    std::vector<std::string> names;
    for (const Operation& op : all_operations()) names.emplace_back(op.name);
    return names;
}

std::vector<CaseSpec> plan_cases(const RunOptions& o) {
    const bool all = o.op == "all";
    std::vector<const Operation*> ops;
    if (all) {
        for (const Operation& op : all_operations()) ops.push_back(&op);
    } else {
        ops = {&operation(o.op)};
    }

    if (!all) {
        const Operation& op = *ops.front();
        if (op.is_matrix() && !o.n.empty())
            throw UsageError(o.op + " takes --rows and --cols, not --n");
        if (!op.is_matrix() && (!o.rows.empty() || !o.cols.empty()))
            throw UsageError(o.op + " takes --n, not --rows/--cols");
        if (!op.takes_reduce_op && !o.reduce_op.empty())
            throw UsageError("--op applies to " + ops_where(takes_reduce_op) + " only");
    }
    std::vector<CaseSpec> cases;
    for (const Operation* op : ops) {
        CaseSpec spec;
        spec.op = op;
        spec.dtype = *parse_dtype(o.dtype);
        spec.reduce_op = o.reduce_op.empty() ? ReduceOp::sum : *parse_reduce_op(o.reduce_op);
        if (op->is_matrix()) {
            spec.rows = count_or(o.rows, default_rows);
            spec.cols = count_or(o.cols, default_cols);
        } else {
            spec.rows = 1;
            spec.cols = count_or(o.n, default_n);
        }
        if (!elements_fit(spec.rows, spec.cols, spec.dtype))
            throw UsageError("shape " + std::to_string(spec.rows) + " x " +
                             std::to_string(spec.cols) + " does not fit in memory addresses");
        cases.push_back(spec);
    }
    return cases;
}

// Poison, warm-up run (verified), `repeats` event-timed runs (the last one poisoned first and
// verified again, so a run that skips writing some outputs cannot pass on stale values).
template <class T>
CaseResult run_case(const Device& device, const CaseSpec& spec, std::size_t repeats,
                    std::uint64_t seed) {
    OpCase<T> op(device, spec, 1, seed);
    Stream stream(device);
    op.poison_output(stream, 0);
    op.enqueue(stream, 0);
    CaseResult result;
    result.spec = spec;
    result.device = device;
    result.seed = seed;
    result.verification = op.verify(stream, 0);
    settle_host_threads();
    const auto times = event_times_ms(
        stream, repeats,
        [&](std::size_t i) {
            if (i + 1 == repeats) op.poison_output(stream, 0);
        },
        [&](std::size_t) { op.enqueue(stream, 0); });
    result.verification.merge(op.verify(stream, 0));
    result.timing = summarize(times);
    result.gbps = gbps(spec.bytes_moved(), result.timing.median_ms);
    return result;
}

std::string error_text(const Verification& v) {
    if (!std::isfinite(v.max_error)) return "inf";
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", v.max_error);
    return text;
}

void print_table(const Device& device, const RunOptions& o, const std::vector<CaseResult>& rs) {
    std::cout << "gpucore run on " << device.to_string() << " (" << device.properties().name
              << "): median of " << o.repeat << " event-timed runs after a warm-up, seed "
              << o.seed << "\n";
    const double peak = device.properties().peak_memory_bandwidth_gbps;
    TextTable table({"op", "dtype", "shape", "ms", "GB/s", "% of peak", "verified", "max error",
                     "error/tolerance"});
    for (const CaseResult& r : rs) {
        table.add_row({r.spec.op_text(), gpucore::to_string(r.spec.dtype), r.spec.shape_text(),
                       fixed(r.timing.median_ms, 3), fixed(r.gbps, 2), percent_of_peak_text(r.gbps, peak),
                       r.verification.passed ? "ok" : "FAILED", error_text(r.verification),
                       std::isfinite(r.verification.max_error_ratio)
                           ? fixed(r.verification.max_error_ratio, 3)
                           : "inf"});
    }
    table.print(std::cout);
}

} // namespace

std::string run_usage() {
    std::string ops;
    for (const std::string& name : operation_names()) ops += name + "|";
    return "gpucore run " + ops + "all [--dtype DTYPE] [--n N | --rows R --cols C] "
           "[--op sum|min|max|prod] [--device SEL] [--repeat K] [--seed S] [--json]";
}

CLI::App* add_run_command(CLI::App& app, RunOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "run", "Run operations on one device with random inputs, verify them against a "
               "double-precision CPU reference, print time and effective bandwidth");
    std::vector<std::string> operations = operation_names();
    operations.emplace_back("all");
    // Named "operation", not "op": CLI11 2.4 treats a positional "op" and "--op" as one name.
    cmd->add_option("operation", o.op, "The operation, or 'all' for each op at moderate sizes")
        ->required()
        ->check(CLI::IsMember(operations));
    cmd->add_option("--dtype", o.dtype, "Element type")
        ->check(CLI::IsMember(dtype_names()))
        ->capture_default_str();
    cmd->add_option("--n", o.n, "Elements, for " + ops_where(is_vector) + " (default 2^22)")
        ->check(count_validator());
    cmd->add_option("--rows", o.rows, "Rows, for " + ops_where(is_matrix) + " (default 2048)")
        ->check(count_validator());
    cmd->add_option("--cols", o.cols, "Columns, for " + ops_where(is_matrix) + " (default 2048)")
        ->check(count_validator());
    cmd->add_option("--op", o.reduce_op, "Reduce operation (default sum)")
        ->check(CLI::IsMember({"sum", "min", "max", "prod"}));
    cmd->add_option("--device", o.device,
                    "Device: cpu, cuda, hip or a plugin's name, optionally ':N' (default: "
                    "GPU_BACKEND, else auto)");
    cmd->add_option("--repeat", o.repeat, "Timed runs after the warm-up (the median is shown)")
        ->check(unsigned_validator() & CLI::Range(std::size_t{1}, std::size_t{100000}))
        ->capture_default_str();
    cmd->add_option("--seed", o.seed, "Seed of the random inputs")
        ->check(unsigned_validator())
        ->capture_default_str();
    cmd->add_flag("--json", o.json, "Print one JSON object instead of the table");
    return cmd;
}

int run_command(const RunOptions& o) {
    const std::vector<CaseSpec> cases = plan_cases(o);
    const Device device = o.device.empty() ? default_device() : select_device(o.device);

    std::vector<CaseResult> results;
    std::optional<gpucore::Error> first_skipped;
    bool all_passed = true;
    for (const CaseSpec& spec : cases) {
        try {
            results.push_back(gpucore::visit(spec.dtype, [&](auto tag) {
                using T = typename decltype(tag)::type;
                return run_case<T>(device, spec, o.repeat, o.seed);
            }));
        } catch (const gpucore::Error& e) {
            // `run all` runs every op of the list; one the backend does not implement (a plugin
            // older than the op) is skipped and said, as `bench` does. Any other failure stops it.
            if (o.op != "all" || e.code() != gpucore::ErrorCode::not_supported) throw;
            std::cerr << "gpucore: " << spec.name() << " skipped: " << e.what() << "\n";
            if (!first_skipped) first_skipped = e;
            continue;
        }
        all_passed = all_passed && results.back().verification.passed;
    }
    if (results.empty() && first_skipped) throw *first_skipped; // nothing ran

    if (o.json) {
        nlohmann::json out;
        if (o.op == "all") {
            out["backend"] = device.backend_name();
            out["device"] = device.to_string();
            out["device_name"] = device.properties().name;
            out["verified"] = all_passed;
            out["results"] = nlohmann::json::array();
            for (const CaseResult& r : results) out["results"].push_back(to_json(r));
        } else {
            out = to_json(results.front());
        }
        std::cout << json_text(out) << "\n";
    } else {
        print_table(device, o, results);
    }
    for (const CaseResult& r : results)
        if (!r.verification.passed)
            std::cerr << "gpucore: " << r.spec.name() << " on " << device.to_string()
                      << " failed verification: " << r.verification.summary() << "\n";
    return all_passed ? exit_success : exit_verification_failed;
}

} // namespace gpucore::cli

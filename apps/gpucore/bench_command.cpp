// SPDX-License-Identifier: Apache-2.0
// Method (also stated in the JSON): each case is verified once against the CPU reference, warmed
// up, then timed with events around each of `repeats` runs; the median is reported. Runs rotate
// through several identical copies of the buffers ("sets", up to 256) so that about
// max(4 x the largest cache, 256 MiB) is touched between two uses of one set (the cpu backend
// counts the host's last-level cache; --quick only the device's L2): inputs are not served from cache
// (except the smallest cases, whose 256 sets still fit; the JSON gives each case's footprint).
// The copy baseline copies half the case's bytes_moved (a copy reads and writes each byte) with
// Buffer::copy_from_async on the same device, the same way.
#include "bench_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_plan.hpp"
#include "case_result.hpp"
#include "count_validator.hpp"
#include "exit_codes.hpp"
#include "in_turn.hpp"
#include "output.hpp"
#include "gpucore/gpucore.hpp"
#include "op_case.hpp"
#include "openmp_peer.hpp"
#include "text_table.hpp"
#include "timing.hpp"

namespace gpucore::cli {

const char* const bench_usage =
    "gpucore bench [--device SEL] [--dtype DTYPE]... [--json FILE] [--quick] [--repeat K] [--seed S]";

namespace {

constexpr std::size_t max_sets = 256;
constexpr std::size_t warmup_runs = 2;

struct PeerResult {
    std::string name;
    TimingStats peer_wall;    // the peer's wall-clock times
    TimingStats gpucore_wall; // gpucore's, enqueue + synchronize, same buffers
    double speedup = 0;       // peer median / gpucore median (> 1: gpucore faster)
};

// A case timed in turn with the reference its target names (BenchCase::in_turn_with, in_turn.hpp):
// the median, least and greatest of its GB/s over the reference's, per pair of runs.
struct InTurnResult {
    std::string reference;
    std::size_t pairs = 0;
    double ratio = 0; // the median pair's
    double ratio_min = 0;
    double ratio_max = 0;
};

struct BenchResult {
    CaseResult run;
    std::string target;
    std::optional<InTurnResult> in_turn;
    std::string in_turn_skipped; // why a case with in_turn_with was not timed in turn
    std::size_t sets = 1;
    double footprint_bytes = 0;
    TimingStats copy;
    double copy_gbps = 0;
    std::optional<PeerResult> peer;
};

// The largest cache that can keep a set between two of its uses: the device's L2 (a GPU's last
// level); on the cpu backend, whose device reports one core's L2, the host's last level too
// (a server's L3 can hold hundreds of MiB).
double largest_cache_bytes(const Device& device) {
    double bytes = static_cast<double>(device.properties().l2_cache_bytes);
    if (device.backend_name() == "cpu") {
#if defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL4_CACHE_SIZE)
        for (const int level : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL4_CACHE_SIZE}) {
            bytes = std::max(bytes, static_cast<double>(std::max(0L, ::sysconf(level))));
        }
#endif
    }
    return bytes;
}

// Bytes that must be touched between two uses of one set so it has left the caches. A --quick run
// (small sizes, seconds) counts the device's own L2 only: filling sets as large as a server's L3
// would take most of its time.
double rotation_target_bytes(const Device& device, bool quick) {
    const double cache = quick ? static_cast<double>(device.properties().l2_cache_bytes) : largest_cache_bytes(device);
    return std::max(4.0 * cache, 256.0 * 1024 * 1024);
}

std::size_t rotation_sets(double rotation_bytes, double bytes_per_set) {
    if (bytes_per_set <= 0) return 1;
    const double wanted = std::ceil(rotation_bytes / bytes_per_set);
    return static_cast<std::size_t>(std::clamp(wanted, 1.0, static_cast<double>(max_sets)));
}

std::size_t next_set(std::size_t i, std::size_t sets) { return (i + 1) % sets; }

// Device-to-device copies moving `bytes_moved` bytes in all (half read, half written).
TimingStats time_copy(const Device& device, double bytes_moved, double rotation_bytes, std::size_t repeats,
                      double& copy_gbps) {
    const auto count =
        static_cast<std::size_t>(std::max(1.0, std::floor(bytes_moved / 2.0 / sizeof(std::uint32_t))));
    const double moved = 2.0 * static_cast<double>(count * sizeof(std::uint32_t));
    const std::size_t sets = rotation_sets(rotation_bytes, moved);
    std::vector<Buffer<std::uint32_t>> src, dst;
    for (std::size_t s = 0; s < sets; ++s) {
        src.emplace_back(device, count);
        dst.emplace_back(device, count);
        src.back().fill(static_cast<std::uint32_t>(s));
        dst.back().fill(0u);
    }
    Stream stream(device);
    for (std::size_t i = 0; i < warmup_runs_over(sets, warmup_runs); ++i)
        dst[i % sets].copy_from_async(stream, src[i % sets]);
    stream.synchronize();
    settle_host_threads();
    const auto times = event_times_ms(
        stream, repeats, [](std::size_t) {},
        [&](std::size_t i) { dst[next_set(i, sets)].copy_from_async(stream, src[next_set(i, sets)]); });
    const TimingStats stats = summarize(times);
    copy_gbps = gbps(moved, stats.median_ms);
    return stats;
}

template <class T>
PeerResult time_openmp_peer(OpCase<T>& op, Stream& stream, std::size_t repeats) {
    const std::size_t sets = op.sets(), n = op.spec().elements();
    const int threads = static_cast<int>(std::max(1u, stream.device().properties().compute_units));
    auto peer = [&](std::size_t s) {
        // The cpu backend's buffers are host memory; synchronize() above each use keeps the
        // backend's own work on them finished.
        openmp_vector_add(op.in(s, 0).data(), op.in(s, 1).data(), op.out(s).data(), n, threads);
    };
    auto ours = [&](std::size_t s) {
        op.enqueue(stream, s);
        stream.synchronize();
    };
    for (std::size_t i = 0; i < warmup_runs_over(sets, warmup_runs); ++i) {
        peer(i % sets);
        ours(i % sets);
    }
    PeerResult r;
    r.name = "openmp_loop";
    settle_host_threads();
    r.peer_wall = summarize(wall_times_ms(repeats, [&](std::size_t i) { peer(next_set(i, sets)); }));
    settle_host_threads();
    r.gpucore_wall =
        summarize(wall_times_ms(repeats, [&](std::size_t i) { ours(next_set(i, sets)); }));
    r.speedup = r.gpucore_wall.median_ms > 0 ? r.peer_wall.median_ms / r.gpucore_wall.median_ms : 0;
    return r;
}

// Times `ours` and the reference case `reference_spec` in turn (in_turn.hpp): `repeats` pairs,
// both rotating through their sets, all on one stream.
template <class T>
InTurnResult time_in_turn(const Device& device, OpCase<T>& ours, Stream& stream, const CaseSpec& reference_spec,
                          double rotation_bytes, std::size_t repeats, std::uint64_t seed) {
    return gpucore::visit(reference_spec.dtype, [&](auto tag) {
        using R = typename decltype(tag)::type;
        OpCase<R> reference(device, reference_spec, rotation_sets(rotation_bytes, reference_spec.bytes_moved()), seed);
        for (std::size_t i = 0; i < warmup_runs_over(reference.sets(), warmup_runs); ++i)
            reference.enqueue(stream, i % reference.sets());
        stream.synchronize();
        settle_host_threads();
        const auto times = event_times_ms(stream, 2 * repeats, [](std::size_t) {}, [&](std::size_t i) {
            if (in_turn_run_is_measured(i)) ours.enqueue(stream, next_set(i / 2, ours.sets()));
            else reference.enqueue(stream, next_set(i / 2, reference.sets()));
        });
        // summarize's order statistics, here of ratios rather than milliseconds.
        const TimingStats stats =
            summarize(in_turn_gbps_ratios(times, ours.spec().bytes_moved(), reference_spec.bytes_moved()));
        InTurnResult r;
        r.reference = reference_spec.name();
        r.pairs = stats.samples;
        r.ratio = stats.median_ms;
        r.ratio_min = stats.min_ms;
        r.ratio_max = stats.max_ms;
        return r;
    });
}

template <class T>
BenchResult bench_case(const Device& device, const BenchCase& bc, double rotation_bytes, std::size_t repeats,
                       std::uint64_t seed) {
    const CaseSpec& spec = bc.spec;
    BenchResult result;
    result.target = bc.target;
    result.run.spec = spec;
    result.run.device = device;
    result.run.seed = seed;
    {
        // One element first: a dtype the backend does not implement is refused (not_supported)
        // before the case allocates and fills its rotation sets.
        CaseSpec probe_spec = spec;
        probe_spec.rows = probe_spec.cols = 1;
        OpCase<T> probe(device, probe_spec, 1, seed);
        Stream stream(device);
        probe.enqueue(stream, 0);
        stream.synchronize();
    }
    {
        OpCase<T> op(device, spec, rotation_sets(rotation_bytes, spec.bytes_moved()), seed);
        result.sets = op.sets();
        result.footprint_bytes = op.footprint_bytes();
        Stream stream(device);
        op.poison_output(stream, 0);
        op.enqueue(stream, 0);
        result.run.verification = op.verify(stream, 0);
        for (std::size_t i = 1; i < warmup_runs_over(op.sets(), warmup_runs); ++i) op.enqueue(stream, i % op.sets());
        stream.synchronize();
        settle_host_threads();
        const auto times = event_times_ms(
            stream, repeats, [](std::size_t) {},
            [&](std::size_t i) { op.enqueue(stream, next_set(i, op.sets())); });
        result.run.timing = summarize(times);
        result.run.gbps = gbps(spec.bytes_moved(), result.run.timing.median_ms);
        if (device.backend_name() == "cpu" && spec.op == &operation("vector_add"))
            result.peer = time_openmp_peer(op, stream, repeats);
        if (bc.in_turn_with) {
            try {
                result.in_turn = time_in_turn(device, op, stream, *bc.in_turn_with, rotation_bytes, repeats, seed);
            } catch (const ResourceError& e) {
                // Both cases' sets at once do not fit: the two rows stay, timed apart.
                result.in_turn_skipped = e.what();
            }
        }
    } // frees the case's buffers before the copy baseline allocates its own
    result.copy = time_copy(device, spec.bytes_moved(), rotation_bytes, repeats, result.copy_gbps);
    return result;
}

std::string case_label(const CaseSpec& spec) {
    return spec.op_text() + " " + gpucore::to_string(spec.dtype);
}

nlohmann::json timing_json(const TimingStats& t) {
    return {{"ms", json_number(t.median_ms)},
            {"ms_min", json_number(t.min_ms)},
            {"ms_max", json_number(t.max_ms)},
            {"repeats", t.samples}};
}

nlohmann::json bench_json(const BenchResult& r) {
    nlohmann::json j = to_json(r.run);
    j["name"] = r.run.spec.name();
    j["target"] = r.target;
    j["rotation_sets"] = r.sets;
    j["footprint_bytes"] = r.footprint_bytes;
    j["copy"] = timing_json(r.copy);
    j["copy"]["gbps"] = json_number(r.copy_gbps);
    j["percent_of_copy"] = json_number(r.copy_gbps > 0 ? 100.0 * r.run.gbps / r.copy_gbps : NAN);
    if (!r.in_turn_skipped.empty()) j["in_turn"] = {{"skipped", r.in_turn_skipped}};
    if (r.in_turn) {
        j["in_turn"] = {{"reference", r.in_turn->reference},
                        {"pairs", r.in_turn->pairs},
                        {"gbps_ratio", json_number(r.in_turn->ratio)},
                        {"gbps_ratio_min", json_number(r.in_turn->ratio_min)},
                        {"gbps_ratio_max", json_number(r.in_turn->ratio_max)}};
    }
    if (r.peer) {
        j["peer"] = {{"name", r.peer->name},
                     {"peer_wall", timing_json(r.peer->peer_wall)},
                     {"gpucore_wall", timing_json(r.peer->gpucore_wall)},
                     {"speedup", json_number(r.peer->speedup)}};
    }
    return j;
}

std::string utc_timestamp() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

// The plan's cases of the dtypes named (all of them when none is).
std::vector<BenchCase> select_dtypes(std::vector<BenchCase> plan, const std::vector<std::string>& dtypes) {
    if (dtypes.empty()) return plan;
    std::vector<BenchCase> kept;
    for (BenchCase& c : plan)
        if (std::find(dtypes.begin(), dtypes.end(), gpucore::to_string(c.spec.dtype)) != dtypes.end())
            kept.push_back(std::move(c));
    return kept;
}

void print_table(const Device& device, std::size_t repeats, const std::vector<BenchResult>& rs) {
    std::cout << "gpucore bench on " << device.to_string() << " (" << device.properties().name
              << "): median of " << repeats
              << " event-timed runs after a warm-up; buffers rotated past the caches\n"
              << "copy = Buffer::copy_from_async of the same bytes on the same device; "
                 "* = a case with a speed target (listed below the table)\n";
    const double peak = device.properties().peak_memory_bandwidth_gbps;
    TextTable table({"case", "shape", "ms", "GB/s", "copy GB/s", "% of copy", "% of peak", "peer",
                     "verified"});
    for (const BenchResult& r : rs) {
        const std::string peer =
            r.peer ? fixed(r.peer->speedup, 2) + "x " + r.peer->name : std::string();
        table.add_row({(r.target.empty() ? "  " : "* ") + case_label(r.run.spec),
                       r.run.spec.shape_text(), fixed(r.run.timing.median_ms, 3),
                       fixed(r.run.gbps, 2), fixed(r.copy_gbps, 2),
                       r.copy_gbps > 0 ? fixed(100.0 * r.run.gbps / r.copy_gbps, 1) : "-",
                       percent_of_peak_text(r.run.gbps, peak), peer,
                       r.run.verification.passed ? "ok" : "FAILED"});
    }
    table.print(std::cout);
    bool any_peer = false;
    for (const BenchResult& r : rs) any_peer = any_peer || r.peer.has_value();
    if (any_peer)
        std::cout << "peer: openmp_loop time / gpucore time, both host wall-clock including "
                     "synchronisation (> 1: gpucore faster)\n";
    for (const BenchResult& r : rs) {
        if (r.target.empty()) continue;
        std::cout << "* " << r.run.spec.name() << ": " << r.target;
        if (r.in_turn)
            std::cout << "; timed in turn with " << r.in_turn->reference << ": " << fixed(r.in_turn->ratio, 3)
                      << "x (median of " << r.in_turn->pairs << " pairs, " << fixed(r.in_turn->ratio_min, 3) << "-"
                      << fixed(r.in_turn->ratio_max, 3) << ")";
        if (!r.in_turn_skipped.empty()) std::cout << "; not timed in turn: " << r.in_turn_skipped;
        std::cout << "\n";
    }
}

} // namespace

CLI::App* add_bench_command(CLI::App& app, BenchOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "bench", "Measure every op over a sweep of sizes and dtypes against a device-to-device "
                 "copy of the same bytes (and a plain OpenMP loop on the cpu backend)");
    cmd->add_option("--device", o.device,
                    "Device: cpu, cuda, hip or a plugin's name, optionally ':N' (default: "
                    "GPU_BACKEND, else auto)");
    cmd->add_option("--json", o.json_file, "Also write the results to this JSON file");
    cmd->add_option("--dtype", o.dtypes, "Only the cases of this element type (repeatable; default: all)")
        ->check(CLI::IsMember(dtype_names()));
    cmd->add_flag("--quick", o.quick, "Small sizes only (seconds; no target cases)");
    cmd->add_option("--repeat", o.repeat, "Timed runs per case (default 10, 5 with --quick)")
        ->check(unsigned_validator() & CLI::Range(std::size_t{1}, std::size_t{10000}));
    cmd->add_option("--seed", o.seed, "Seed of the random inputs")
        ->check(unsigned_validator())
        ->capture_default_str();
    return cmd;
}

int bench_command(const BenchOptions& o) {
    // Create the output first, under a temporary name: a typo in the path should not cost a whole
    // run, and a run that fails must leave an existing file as it was.
    std::optional<ReplacingFile> json_out;
    if (!o.json_file.empty()) {
        try {
            json_out.emplace(o.json_file);
        } catch (const OutputError& e) {
            throw UsageError(e.what()); // a path that cannot be written is a bad --json value
        }
    }
    const Device device = o.device.empty() ? default_device() : select_device(o.device);
    const std::size_t repeats = o.repeat ? o.repeat : (o.quick ? 5 : 10);
    const double rotation_bytes = rotation_target_bytes(device, o.quick);
    const std::vector<BenchCase> plan =
        select_dtypes(bench_plan(o.quick, device.backend_name() != "cpu"), o.dtypes);
    const bool progress = isatty(STDERR_FILENO) != 0;

    std::vector<BenchResult> results;
    std::vector<std::pair<std::string, std::string>> skipped; // case, reason
    bool all_passed = true;
    for (std::size_t i = 0; i < plan.size(); ++i) {
        if (progress)
            std::cerr << "\r[" << (i + 1) << "/" << plan.size() << "] " << plan[i].spec.name()
                      << "\033[K" << std::flush;
        try {
            results.push_back(gpucore::visit(plan[i].spec.dtype, [&](auto tag) {
                using T = typename decltype(tag)::type;
                return bench_case<T>(device, plan[i], rotation_bytes, repeats, o.seed);
            }));
        } catch (const gpucore::Error& e) {
            // A sweep covers every dtype; one the backend does not implement is skipped and said,
            // any other failure stops the run.
            if (e.code() != gpucore::ErrorCode::not_supported) throw;
            skipped.push_back({plan[i].spec.name(), e.what()});
            std::cerr << (progress ? "\r" : "") << "gpucore: " << plan[i].spec.name()
                      << " skipped: " << e.what() << "\n";
            continue;
        }
        if (!results.back().run.verification.passed) {
            all_passed = false;
            std::cerr << (progress ? "\r" : "") << "gpucore: " << plan[i].spec.name()
                      << " failed verification: " << results.back().run.verification.summary()
                      << "\n";
        }
    }
    if (progress) std::cerr << "\r\033[K" << std::flush;
    if (results.empty() && !skipped.empty()) {
        std::cerr << "gpucore: bench measured nothing: " << device.to_string()
                  << " does not support any of the " << skipped.size() << " cases requested (first: "
                  << skipped.front().second << ")\n";
        return exit_gpucore_error;
    }
    print_table(device, repeats, results);
    if (!skipped.empty()) {
        std::cout << "skipped, not supported by " << device.to_string() << ":";
        for (std::size_t i = 0; i < skipped.size(); ++i)
            std::cout << (i == 0 ? " " : "; ") << skipped[i].first;
        std::cout << "\n";
    }

    if (json_out) {
        const DeviceProperties& p = device.properties();
        nlohmann::json out;
        out["tool"] = "gpucore bench";
        out["date"] = utc_timestamp();
        out["device"] = {{"id", device.to_string()},
                         {"backend", p.backend},
                         {"name", p.name},
                         {"architecture", p.architecture},
                         {"compute_units", p.compute_units},
                         {"l2_cache_bytes", p.l2_cache_bytes},
                         {"peak_memory_bandwidth_gbps", p.peak_memory_bandwidth_gbps}};
        out["quick"] = o.quick;
        out["repeats"] = repeats;
        out["warmup_runs"] = warmup_runs;
        out["seed"] = o.seed;
        out["skipped"] = nlohmann::json::array();
        for (const auto& [name, reason] : skipped) out["skipped"].push_back({{"case", name}, {"reason", reason}});
        out["method"] = "median of event-timed runs after warm-up runs over every rotation set (at least "
                        "warmup_runs); buffers rotated through up to " +
                        std::to_string(max_sets) +
                        " sets touching max(4 x the largest cache (cpu: the host's last level; --quick: "
                        "the device's L2), 256 MiB) between uses; copy baseline = "
                        "Buffer::copy_from_async moving the same bytes; peer timings are host "
                        "wall-clock including synchronisation";
        out["verified"] = all_passed;
        out["results"] = nlohmann::json::array();
        for (const BenchResult& r : results) out["results"].push_back(bench_json(r));
        json_out->commit(json_text(out) + "\n");
    }
    return all_passed ? exit_success : exit_verification_failed;
}

} // namespace gpucore::cli

// SPDX-License-Identifier: Apache-2.0
// The lessons' optimisation ladders beside gpucore's own kernels, on one GPU, in one run: each
// lesson's rungs (ladder_*_kernels.cuh, written against gpu_vendor.hpp's neutral names, so nvcc
// and hipcc build this same file), gpucore's op through the public API, and a device-to-device
// copy of the same bytes, all on the same data. Every rung is checked against a host reference
// at the timed shape and exactly at an awkward one. Prints GB/s, % of the theoretical peak and
// % of the copy per rung; writes JSON.
//
//   gpucore_ladder [--json FILE] [--reps N] [--quick] [--device NAME]
//
// --quick: small shapes (a smoke test of every rung in seconds); --device: a gpucore device name
// of this program's backend (default: the backend's first device).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ladder_reduce_kernels.cuh"
#include "ladder_reference.hpp"
#include "ladder_report.hpp"
#include "ladder_rows_kernels.cuh"
#include "ladder_runner.cuh"
#include "ladder_support.cuh"
#include "ladder_transpose_kernels.cuh"

namespace ladder {
namespace {

constexpr std::uint32_t kWideValues = 0xFFFF; // transposes: values that tell positions apart
constexpr std::uint32_t kSmallValues = 7;     // sums: 0..7, exact in f32 below 2^24

// Byte counts as doubles (for GB/s).
double bytes_of_floats(std::size_t count) { return static_cast<double>(count) * sizeof(float); }

std::string shape_text(std::size_t rows, std::size_t cols) {
    return std::to_string(rows) + "x" + std::to_string(cols);
}
std::string size_text(std::size_t n) {
    for (int k = 0; k < 63; ++k) {
        if ((std::size_t{1} << k) == n) return "2^" + std::to_string(k);
    }
    return std::to_string(n);
}

Rung rung(const char* name, const char* kind, double bytes, std::string check = "") {
    Rung r;
    r.name = name;
    r.kind = kind;
    r.bytes = bytes;
    r.check = std::move(check);
    return r;
}

// The device-to-device copy moving `bytes_moved` (it reads and writes half of them).
Step copy_step(Runner& run, void* dst, const void* src, double bytes_moved) {
    Step s;
    s.rung = rung("D2D copy (same bytes)", "copy", bytes_moved, "baseline, not checked");
    const std::size_t half = static_cast<std::size_t>(bytes_moved / 2);
    s.enqueue = [&run, dst, src, half] {
        LADDER_CHECK(gpuMemcpyAsync(dst, src, half, gpuMemcpyDefault, run.raw()));
    };
    return s;
}

template <class T>
void poison(Runner& run, gpucore::Buffer<T>& out) {
    LADDER_CHECK(gpuMemsetAsync(out.data(), 0xFF, out.bytes(), run.raw())); // NaN for floats
}

void transpose_ladder(Runner& run, Report& rep, std::size_t rows, std::size_t cols, bool timed) {
    const std::size_t n = rows * cols;
    gpucore::Buffer<float> in(run.device(), n), out(run.device(), n);
    fill_integers(in.data(), n, 11, kWideValues, run.raw());
    const std::vector<float> host_in = in.to_vector();
    std::vector<float> host_out(n);
    const auto fetch = [&] { out.copy_to_host(host_out.data(), n); };
    const auto transposed = [&] {
        fetch();
        return is_transpose(host_in, host_out, rows, cols);
    };
    const auto copied = [&] {
        fetch();
        return host_out == host_in;
    };
    const double bytes = 2 * bytes_of_floats(n);
    const dim3 grid = transpose_grid(rows, cols), block = transpose_block();
    const char* check = "every element at its transposed place (host)";
    std::vector<Step> steps;
    steps.push_back(copy_step(run, out.data(), in.data(), bytes));
    const auto lesson = [&](const char* name, auto kernel, bool transposes) {
        Step s;
        s.rung = rung(name, "lesson", bytes, transposes ? check : "every element equal to the input (host)");
        s.enqueue = [&run, kernel, grid, block, &in, &out, rows, cols] {
            kernel<<<grid, block, 0, run.raw()>>>(in.data(), out.data(), rows, cols);
        };
        s.poison = [&] { poison(run, out); };
        s.verify = transposes ? std::function<bool()>(transposed) : std::function<bool()>(copied);
        steps.push_back(std::move(s));
    };
    lesson("copy kernel", copy_tiles_kernel, false);
    lesson("naive", transpose_naive_kernel, true);
    lesson("shared memory", transpose_shared_kernel<0>, true);
    lesson("shared memory, padded", transpose_shared_kernel<1>, true);
    Step ours;
    ours.rung = rung("gpucore", "gpucore", bytes, check);
    ours.on_gpucore = true;
    ours.enqueue = [&] { gpucore::transpose(run.stream(), in, out, rows, cols); };
    ours.poison = [&] { poison(run, out); };
    ours.verify = transposed;
    steps.push_back(std::move(ours));
    run.run(rep, "transpose f32", shape_text(rows, cols), steps, timed);
}

void reduce_ladder(Runner& run, Report& rep, std::size_t n, bool timed) {
    // One wave of last-block blocks, as the occupancy calculator gives it.
    int per_sm = 0;
    LADDER_CHECK(gpuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_last_block_kernel,
                                                              ReduceShape::kLastBlockThreads, 0));
    const unsigned last_grid = static_cast<unsigned>(std::max(per_sm, 1)) *
                               std::max(run.device().properties().compute_units, 1u);
    const unsigned grid1 = reduce_grid(n, 1), grid2 = reduce_grid(n, 2), grid4 = reduce_grid(n, 4);

    gpucore::Buffer<float> pristine(run.device(), n), work(run.device(), n);
    gpucore::Buffer<float> partials(run.device(), std::max<std::size_t>(grid1, last_grid));
    gpucore::Buffer<float> total(run.device(), 1), ours_out(run.device(), 1);
    gpucore::Buffer<std::uint32_t> tickets(run.device(), 1);
    tickets.fill(0u);
    fill_integers(pristine.data(), n, 12, kSmallValues, run.raw());
    const std::vector<float> host_in = pristine.to_vector();
    const double want_total = sum_of(segment_sums(host_in, ReduceShape::kThreads));

    const auto restore = [&] {
        LADDER_CHECK(gpuMemcpyAsync(work.data(), pristine.data(), n * sizeof(float), gpuMemcpyDefault, run.raw()));
    };
    const auto poison_all = [&] {
        poison(run, partials);
        poison(run, total);
        poison(run, ours_out);
    };
    // The partials of blocks of `segment` consecutive elements, each exact.
    const auto partials_match = [&](std::size_t count, std::vector<double> want) {
        // The buffer holds the largest grid's partials: read it whole, compare the first `count`.
        std::vector<float> got = partials.to_vector();
        got.resize(count);
        return sums_match(got, want);
    };
    const double bytes = bytes_of_floats(n);
    const std::string block_check =
        "every block's partial exactly (host; the host adds the partials, untimed)";
    std::vector<Step> steps;
    steps.push_back(copy_step(run, work.data(), pristine.data(), bytes));
    const auto in_place = [&](const char* name, auto kernel, unsigned grid, std::size_t segment) {
        Step s;
        s.rung = rung(name, "lesson", bytes, block_check);
        s.prepare = restore;
        s.enqueue = [&run, kernel, grid, &work, &partials, n] {
            kernel<<<grid, ReduceShape::kThreads, 0, run.raw()>>>(work.data(), n, partials.data());
        };
        s.poison = poison_all;
        s.verify = [&partials_match, &host_in, grid, segment] {
            return partials_match(grid, segment_sums(host_in, segment));
        };
        steps.push_back(std::move(s));
    };
    const std::size_t t = ReduceShape::kThreads;
    in_place("neighbored", reduce_neighbored_kernel, grid1, t);
    in_place("interleaved", reduce_interleaved_kernel, grid1, t);
    in_place("unrolled x2", reduce_unrolled_kernel<2>, grid2, 2 * t);
    in_place("unrolled x4", reduce_unrolled_kernel<4>, grid4, 4 * t);

    Step shuffle;
    shuffle.rung = rung("warp shuffle", "lesson", bytes, block_check);
    shuffle.enqueue = [&run, &pristine, &partials, grid4, n] {
        reduce_shuffle_kernel<<<grid4, ReduceShape::kThreads, 0, run.raw()>>>(pristine.data(), n, partials.data());
    };
    shuffle.poison = poison_all;
    shuffle.verify = [&, grid4] { return partials_match(grid4, segment_sums(host_in, 4 * t)); };
    steps.push_back(std::move(shuffle));

    Step last;
    last.rung = rung("last block, one launch", "lesson", bytes,
                     std::string("every block's partial exactly, the total ") + sum_rule() + " (host)");
    last.enqueue = [&run, &pristine, &partials, &tickets, &total, last_grid, n] {
        reduce_last_block_kernel<<<last_grid, ReduceShape::kLastBlockThreads, 0, run.raw()>>>(
            pristine.data(), n, partials.data(), tickets.data(), total.data());
    };
    last.poison = poison_all;
    last.verify = [&, last_grid] {
        const std::vector<double> want =
            grid_stride_block_sums(host_in, ReduceShape::kLastBlockThreads, last_grid);
        return partials_match(last_grid, want) && sum_matches(total.to_vector()[0], want_total);
    };
    steps.push_back(std::move(last));

    Step ours;
    ours.rung = rung("gpucore", "gpucore", bytes, std::string("the total ") + sum_rule() + " (host)");
    ours.on_gpucore = true;
    ours.enqueue = [&] { gpucore::reduce(run.stream(), pristine, ours_out, gpucore::ReduceOp::sum); };
    ours.poison = poison_all;
    ours.verify = [&] { return sum_matches(ours_out.to_vector()[0], want_total); };
    steps.push_back(std::move(ours));
    run.run(rep, "reduce sum f32", size_text(n), steps, timed);
}

// The row sums of `in` (rows x cols) checked against the host's, on `out`.
struct RowsData {
    RowsData(Runner& run, std::size_t rows_, std::size_t cols_)
        : rows(rows_), cols(cols_), in(run.device(), rows_ * cols_), out(run.device(), rows_),
          scratch(run.device(), rows_ * cols_ / 2 + 1) {
        fill_integers(in.data(), rows * cols, 13, kSmallValues, run.raw());
        want = segment_sums(in.to_vector(), cols);
    }
    bool rows_match() const { return sums_match(out.to_vector(), want); }
    double bytes() const { return bytes_of_floats(rows * cols + rows); }

    std::size_t rows, cols;
    gpucore::Buffer<float> in, out, scratch;
    std::vector<double> want;
};

Step rows_gpucore_step(Runner& run, RowsData& d, const std::string& check) {
    Step s;
    s.rung = rung("gpucore", "gpucore", d.bytes(), check);
    s.on_gpucore = true;
    s.enqueue = [&run, &d] {
        gpucore::reduce_rows(run.stream(), d.in, d.out, d.rows, d.cols, gpucore::ReduceOp::sum);
    };
    s.poison = [&run, &d] { poison(run, d.out); };
    s.verify = [&d] { return d.rows_match(); };
    return s;
}

// The lessons' claims the repository records: v2 reaches 94 % of peak at 2048 x 262144.
std::string rows_claim(const char* rung_name, std::size_t rows, std::size_t cols) {
    if (std::string(rung_name) == "v2 (shuffle)" && rows == 2048 && cols == 262144) return "94 % of peak";
    return "";
}

void rows_ladder(Runner& run, Report& rep, std::size_t rows, std::size_t cols, bool timed) {
    RowsData d(run, rows, cols);
    const std::string check = std::string("every row sum ") + sum_rule() + " (host)";
    const unsigned grid = static_cast<unsigned>(std::min<std::size_t>(rows, 1u << 30));
    std::vector<Step> steps;
    steps.push_back(copy_step(run, d.scratch.data(), d.in.data(), bytes_of_floats(rows * cols)));
    const auto lesson = [&](const char* name, auto kernel) {
        Step s;
        s.rung = rung(name, "lesson", d.bytes(), check);
        s.rung.claim = rows_claim(name, rows, cols);
        s.enqueue = [&run, &d, kernel, grid] {
            kernel<<<grid, RowsShape::kThreads, 0, run.raw()>>>(d.in.data(), d.rows, d.cols, d.out.data());
        };
        s.poison = [&run, &d] { poison(run, d.out); };
        s.verify = [&d] { return d.rows_match(); };
        steps.push_back(std::move(s));
    };
    lesson("v1 (shared memory)", rows_shared_kernel);
    lesson("v2 (shuffle)", rows_shuffle_kernel);
    steps.push_back(rows_gpucore_step(run, d, check));
    run.run(rep, "batched row sums f32", shape_text(rows, cols), steps, timed);
}

void tiled_ladder(Runner& run, Report& rep, std::size_t rows, std::size_t cols, bool timed) {
    RowsData d(run, rows, cols);
    const std::string check = std::string("every row sum ") + sum_rule() + " (host)";
    const unsigned warp = std::max(run.device().properties().warp_size, 1u);
    std::vector<Step> steps;
    steps.push_back(copy_step(run, d.scratch.data(), d.in.data(), bytes_of_floats(rows * cols)));
    const auto lesson = [&](std::string name, auto kernel, unsigned lanes) {
        const std::size_t rows_per_block = RowsShape::kThreads / lanes;
        const unsigned grid = static_cast<unsigned>(
            std::min<std::size_t>((rows + rows_per_block - 1) / rows_per_block, 1u << 30));
        Step s;
        s.rung = rung("", "lesson", d.bytes(), check);
        s.rung.name = std::move(name);
        s.enqueue = [&run, &d, kernel, grid] {
            kernel<<<grid, RowsShape::kThreads, 0, run.raw()>>>(d.in.data(), d.rows, d.cols, d.out.data());
        };
        s.poison = [&run, &d] { poison(run, d.out); };
        s.verify = [&d] { return d.rows_match(); };
        steps.push_back(std::move(s));
    };
    lesson("tile 8", rows_tiled_partition_kernel<8>, 8);
    lesson("tile 16", rows_tiled_partition_kernel<16>, 16);
    lesson("tile " + std::to_string(warp) + " (warp)", rows_tiled_partition_kernel<0>, warp);
    steps.push_back(rows_gpucore_step(run, d, check));
    run.run(rep, "tiled-partition row sums f32", shape_text(rows, cols), steps, timed);
}

struct Options {
    std::string json_path;
    std::string device = GPUCORE_GPU_BACKEND_NAME;
    Repeats repeats;
    bool quick = false;
};

void run_all(const Options& opt, Report& rep) {
    const gpucore::Device device = gpucore::select_device(opt.device);
    if (device.backend_name() != GPUCORE_GPU_BACKEND_NAME) {
        throw std::runtime_error("this build runs " GPUCORE_GPU_BACKEND_NAME " devices, not " +
                                 device.to_string());
    }
    const gpucore::DeviceProperties& props = device.properties();
    rep.device = props.name;
    rep.architecture = props.architecture;
    rep.backend = device.to_string();
    rep.peak_gbps = props.peak_memory_bandwidth_gbps;
    rep.warp_size = props.warp_size;
    int runtime = 0;
    LADDER_CHECK(gpuRuntimeGetVersion(&runtime));
    rep.runtime = std::string(GPUCORE_GPU_RUNTIME_NAME) + " " + std::to_string(runtime);
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    rep.date = date;
    Runner run(device, opt.repeats);

    // Exact checks of every rung at shapes no block, tile or vector width divides.
    transpose_ladder(run, rep, 1000, 777, false);
    reduce_ladder(run, rep, 1000003, false);
    rows_ladder(run, rep, 37, 100003, false);
    tiled_ladder(run, rep, 1001, 37, false);

    run.warm_up(1.0);
    const std::size_t k = 1;
    if (opt.quick) {
        transpose_ladder(run, rep, 2048, 2048, true);
        reduce_ladder(run, rep, k << 24, true);
        rows_ladder(run, rep, 256, 65536, true);
        rows_ladder(run, rep, 8, k << 21, true);
        tiled_ladder(run, rep, k << 18, 32, true);
        return;
    }
    transpose_ladder(run, rep, 4096, 4096, true);
    transpose_ladder(run, rep, 16384, 16384, true);
    reduce_ladder(run, rep, k << 28, true);
    rows_ladder(run, rep, 2048, 262144, true);
    rows_ladder(run, rep, 8, k << 26, true);
    tiled_ladder(run, rep, k << 22, 32, true);
}

} // namespace
} // namespace ladder

int main(int argc, char** argv) {
    ladder::Options opt;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--json" && i + 1 < argc) {
            opt.json_path = argv[++i];
        } else if (arg == "--reps" && i + 1 < argc) {
            const int reps = std::atoi(argv[++i]);
            if (reps < 1) {
                std::fprintf(stderr, "--reps needs a positive count, got '%s'\n", argv[i]);
                return 1;
            }
            opt.repeats.reps = reps;
        } else if (arg == "--device" && i + 1 < argc) {
            opt.device = argv[++i];
        } else if (arg == "--quick") {
            opt.quick = true;
        } else {
            std::fprintf(stderr, "usage: %s [--json FILE] [--reps N] [--quick] [--device NAME]\n", argv[0]);
            return arg == "--help" ? 0 : 1;
        }
    }
    // What was measured before a failure is still printed and written.
    ladder::Report rep;
    int status = 0;
    try {
        ladder::run_all(opt, rep);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpucore_ladder: %s\n", e.what());
        status = 2;
    }
    if (rep.device.empty()) return status; // no device: nothing was measured
    ladder::print_report(rep);
    if (!opt.json_path.empty() && !ladder::write_json(rep, opt.json_path)) {
        std::fprintf(stderr, "gpucore_ladder: cannot write %s\n", opt.json_path.c_str());
        return 1;
    }
    if (status != 0) return status;
    if (!rep.all_verified()) {
        std::fprintf(stderr, "gpucore_ladder: some results did not verify\n");
        return 3;
    }
    return 0;
}

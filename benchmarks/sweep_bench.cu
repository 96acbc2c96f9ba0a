// SPDX-License-Identifier: Apache-2.0
// The speed sweep: every op (vector_add, transpose, reduce, reduce_rows) and every dtype (f32 f64
// i32 u32 f16 bf16) over the whole range of shapes, gpucore (the public API on the cuda device)
// beside its peers in the same run on the same data:
//   vector_add   thrust::transform (16-bit: adding in float, rounding once); a D2D copy of the same
//                bytes as the ceiling
//   reduce       cub::DeviceReduce::Sum (16-bit: TransformReduce widening to float); f32: the
//                lesson's one-launch last-block rung
//   reduce_rows  cub::DeviceSegmentedReduce::Sum (16-bit: ::Reduce of the widened values in float);
//                f32: the lessons' tiled-partition rungs (tiles 8, 16, the warp) for rows up to 64
//                columns, the block-per-row shuffle rung for longer ones
//   transpose    32-bit types: the lesson's padded shared-memory rung; every type: a D2D copy of the
//                same bytes, with the copy-fraction goal (0.90; 0.85 for shapes no tile divides)
// The ratio of a case is the fastest comparable peer's time over gpucore's (>= 1: gpucore is not
// slower); the copy is a ceiling, reported as a fraction, never counted as a comparable peer.
// reduce_rows also times the planner's alternatives ("variants": each strategy forced through the
// plugin's launcher, linked here) so one GPU run shows which plan each shape should get.
//
// Each side is timed in two rounds, in the order gpucore, peers..., peers reversed, gpucore (a clock
// drifting during a case falls on every side alike), each round the median of --reps event-timed
// runs after warm-up (more where one run takes under 1 / --reps ms, up to 51: case_settings), each
// run after an L2 flush (bench_support.cuh). Cases whose slowest side takes under 50 us repeat
// that order three times and take each side's median round (time_sides): a round of a
// few-microsecond case now and then reads 10 % slow, on any side, and of two rounds one such round
// moves the result. Every gpucore result, and every variant's, is checked against a peer's on the
// device (exact for integers and vector_add, within float rounding for float sums) so a fast wrong
// answer is caught.
//
//   gpucore_sweep_bench <out-dir> [--quick] [--reps N] [--ops LIST] [--dtypes LIST]
//                       [--max-gib G] [--no-variants] [--row-shapes RxC,...]
//
// --quick: a few shapes per op (a smoke test in seconds). --ops / --dtypes: comma-separated
// subsets. --row-shapes: reduce_rows on these rows x cols shapes only (to time the planner's
// variants around a rule's boundary). --max-gib: device memory one op's buffers may take (default
// 40); larger shapes are skipped and listed. Writes <out-dir>/sweep.json (every case, peer and variant) and
// <out-dir>/sweep.md (cases below 1.00x of the best peer, transposes below their copy goal, the
// variants' winners, per-op summaries); prints the same. benchmarks/plot_sweep.py draws the plot.
// Exit status: 0; 3 when a gpucore or variant result did not verify; 1 usage; 2 failure.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/transform.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.cuh"
#include "ladder_reduce_kernels.cuh"
#include "ladder_rows_kernels.cuh"
#include "ladder_transpose_kernels.cuh"
#include "launch.hpp"
#include "reduce_rows_plan.hpp"
#include "tuning_policy.hpp"

namespace sweep {
namespace {

using bench::as_cuda;
using bench::cuda_t;

constexpr std::size_t kOne = 1;

template <class T>
std::string dtype_name() {
    return gpucore::to_string(gpucore::dtype_of<T>());
}
template <class T>
gpucore_dtype plugin_dtype() { // the public DType and the contract's ids come from one list
    return static_cast<gpucore_dtype>(static_cast<int>(gpucore::dtype_of<T>()));
}
template <class T>
constexpr bool is_16bit_float() {
    return std::is_same_v<T, gpucore::half> || std::is_same_v<T, gpucore::bfloat16>;
}

std::string size_text(std::size_t n) {
    for (int k = 0; k < 63; ++k) {
        if ((kOne << k) == n) return "2^" + std::to_string(k);
    }
    return std::to_string(n);
}
std::string shape_text(std::size_t rows, std::size_t cols) { return size_text(rows) + "x" + size_text(cols); }

// ---- one timed side and one case -------------------------------------------------------------

struct Side {
    std::string name;
    std::string kind; // gpucore, peer, lesson, copy, variant
    std::function<void()> enqueue;
    bool on_gpucore = false; // a gpucore stream (public API) or the raw peer stream
    double ms = 0;
    bool verified = true; // variants: their output checked like gpucore's
    std::string note;     // variants: the plan
};

struct Case {
    std::string op, dtype, shape, group;
    std::size_t rows = 0, cols = 0, n = 0;
    double bytes = 0; // bytes the op must move
    double gpucore_ms = 0;
    std::vector<Side> peers;    // comparable: the best one sets the ratio
    std::vector<Side> variants; // reduce_rows: the launcher's plans, raw
    double copy_ms = 0;         // D2D copy of the same bytes moved (vector_add, transpose)
    double copy_goal = 0;       // transpose: the fraction of the copy to reach
    int reps_per_round = 0;     // timed runs per side and round
    int rounds = 0;             // rounds per side
    std::string best_peer;
    double best_peer_ms = 0;
    bool verified = false;
    std::string check;
    double ratio() const { return gpucore_ms > 0 && best_peer_ms > 0 ? best_peer_ms / gpucore_ms : 0; }
    double copy_fraction() const { return gpucore_ms > 0 && copy_ms > 0 ? copy_ms / gpucore_ms : 0; }
    double gbps() const { return gpucore_ms > 0 ? bytes / gpucore_ms / 1e6 : 0; }
};

struct Skipped {
    std::string what, why;
};

struct Options {
    std::string out_dir;
    bool quick = false;
    bool variants = true;
    double max_gib = 40;
    std::set<std::string> ops, dtypes; // empty: all
    std::vector<std::pair<std::size_t, std::size_t>> row_shapes; // empty: the sweep's own
    bench::Settings settings{2, 7};
};

// ---- device-side checks --------------------------------------------------------------------

__device__ __forceinline__ double to_double(double x) { return x; }
__device__ __forceinline__ double to_double(float x) { return x; }
__device__ __forceinline__ double to_double(std::int32_t x) { return x; }
__device__ __forceinline__ double to_double(std::uint32_t x) { return x; }
__device__ __forceinline__ double to_double(__half x) { return __half2float(x); }
__device__ __forceinline__ double to_double(__nv_bfloat16 x) { return __bfloat162float(x); }

// Counts i where |got[i] - want[i]| > rel * |want[i]| + abs (integers: got != want).
template <class G, class W>
__global__ void count_far_kernel(const G* got, const W* want, std::size_t n, double rel, double abs,
                                 unsigned long long* bad) {
    unsigned long long local = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const double g = to_double(got[i]), w = to_double(want[i]);
        local += !(fabs(g - w) <= rel * fabs(w) + abs) ? 1 : 0; // NaN counts as far
    }
    if (local) atomicAdd(bad, local);
}

template <class G, class W>
unsigned long long count_far(const G* got, const W* want, std::size_t n, double rel, double abs) {
    return bench::device_count([&](unsigned long long* counter) {
        count_far_kernel<<<1024, 256>>>(got, want, n, rel, abs, counter);
    });
}

// Row sums' tolerance against the peer's: integers exact (both wrap); f32 / f64 relative (two
// orders of summation of values in [0, 1)); 16-bit: one rounding to the type plus float sums in
// two orders (values in [-1, 1)).
template <class T>
std::pair<double, double> sum_tolerance(std::size_t terms) {
    if constexpr (std::is_same_v<T, float>) return {terms > (kOne << 18) ? 1e-3 : 1e-4, 1e-30};
    else if constexpr (std::is_same_v<T, double>) return {1e-10, 1e-300};
    else if constexpr (std::is_same_v<T, gpucore::half>) return {1.0 / 1024, 1e-7 * double(terms) + 1e-7};
    else if constexpr (std::is_same_v<T, gpucore::bfloat16>) return {1.0 / 128, 1e-7 * double(terms) + 1e-7};
    else return {0.0, 0.0};
}

// ---- the sweep -------------------------------------------------------------------------------

class Sweep {
public:
    explicit Sweep(const Options& opt)
        : opt_(opt), device_(gpucore::select_device("cuda")), stream_(device_) {
        const auto& props = device_.properties();
        flush_count_ = std::max<std::size_t>(props.l2_cache_bytes * 2, std::size_t{64} << 20) / 4;
        flush_ = gpucore::Buffer<std::uint32_t>(device_, flush_count_);
        flush_out_ = gpucore::Buffer<std::uint32_t>(device_, 1);
        flush_.fill(1u);
        BENCH_CUDA(cudaStreamCreateWithFlags(&raw_, cudaStreamNonBlocking));
        // The plugin's launcher, linked into this program, for the variants: its own scratch.
        BENCH_CUDA(cudaMalloc(&partials_, gpucore::gpu::TuningPolicy::Scratch::kPartialSlots * 8));
        BENCH_CUDA(cudaMalloc(&tickets_, gpucore::gpu::TuningPolicy::Scratch::kTicketSlots * 4));
        BENCH_CUDA(cudaMemset(tickets_, 0, gpucore::gpu::TuningPolicy::Scratch::kTicketSlots * 4));
        int ordinal = device_.index(), value = 0;
        BENCH_CUDA(cudaSetDevice(ordinal));
        ctx_.stream = raw_;
        ctx_.device.ordinal = ordinal;
        BENCH_CUDA(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, ordinal));
        ctx_.device.sm_count = value;
        BENCH_CUDA(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, ordinal));
        ctx_.device.warp_size = value;
        BENCH_CUDA(cudaDeviceGetAttribute(&value, cudaDevAttrMaxThreadsPerMultiProcessor, ordinal));
        ctx_.device.max_threads_per_sm = value;
        ctx_.scratch.partials = partials_;
        ctx_.scratch.tickets = tickets_;
        device_name_ = props.name;
        architecture_ = props.architecture;
        peak_gbps_ = props.peak_memory_bandwidth_gbps;
        warp_size_ = static_cast<int>(props.warp_size);
        int driver = 0, runtime = 0;
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        versions_ = "driver " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10) +
                    ", runtime " + std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
    }
    ~Sweep() {
        cudaFree(partials_);
        cudaFree(tickets_);
        cudaStreamDestroy(raw_);
    }

    bool wanted_op(const std::string& op) const { return opt_.ops.empty() || opt_.ops.count(op); }
    template <class T>
    bool wanted_dtype() const {
        return opt_.dtypes.empty() || opt_.dtypes.count(dtype_name<T>());
    }
    bool fits(const std::string& what, double bytes) {
        if (bytes <= opt_.max_gib * double(kOne << 30)) return true;
        skipped_.push_back({what, "needs " + std::to_string(bytes / double(kOne << 30)).substr(0, 5) +
                                      " GiB (> --max-gib)"});
        return false;
    }

    // Warms the GPU up with copies within the flush buffer for `seconds`.
    void warm_up(double seconds) {
        bench::keep_busy(flush_.data(), flush_count_ * sizeof(std::uint32_t), raw_, seconds);
    }

    // ---- timing ----

    double round_ms(Side& s, const bench::Settings& settings) {
        BENCH_CUDA(cudaDeviceSynchronize());
        if (s.on_gpucore) return bench::time_gpucore_ms(stream_, flush_, flush_out_, settings, s.enqueue);
        return bench::time_cuda_ms(raw_, flush_.data(), flush_count_ * 4, settings, s.enqueue);
    }

    // Each side untimed for a few milliseconds first (memory allocated moments ago runs slow for
    // its first uses; the first side timed would pay for it). Returns the mean milliseconds of one
    // enqueue, host time included.
    double settle(Side& s) {
        constexpr double kSettleMs = 8;
        const auto start = std::chrono::steady_clock::now();
        const auto until = start + std::chrono::duration<double, std::milli>(kSettleMs);
        int runs = 0;
        do {
            for (int i = 0; i < 4; ++i) s.enqueue();
            runs += 4;
            if (s.on_gpucore) stream_.synchronize();
            else BENCH_CUDA(cudaStreamSynchronize(raw_));
        } while (std::chrono::steady_clock::now() < until);
        const std::chrono::duration<double, std::milli> spent = std::chrono::steady_clock::now() - start;
        return spent.count() / runs;
    }

    // Runs per round for a case whose slowest side takes `slowest_ms`: --reps, or more for short
    // work, up to kMaxRepsPerRound, so that a round times about kRoundWorkMs of work. The median of
    // a few runs of a few microseconds moves by more than the differences between the sides.
    bench::Settings case_settings(double slowest_ms) const {
        constexpr double kRoundWorkMs = 1.0;
        constexpr int kMaxRepsPerRound = 51;
        bench::Settings settings = opt_.settings;
        const double wanted = std::ceil(kRoundWorkMs / std::max(slowest_ms, 1e-6));
        settings.reps = static_cast<int>(
            std::clamp<double>(wanted, opt_.settings.reps, std::max(kMaxRepsPerRound, opt_.settings.reps)));
        return settings;
    }

    // sides[0] is gpucore. Order: 0, 1, ..., k, k, ..., 1, 0 (three times for short cases); each
    // side's time is the median of its round medians (two rounds: their mean). Every side of a case
    // is timed with the same number of runs and rounds, returned.
    struct Timing {
        int reps_per_round, rounds;
    };
    Timing time_sides(std::vector<Side*> sides) {
        constexpr double kShortCaseMs = 0.05;
        double slowest_ms = 0;
        for (Side* s : sides) slowest_ms = std::max(slowest_ms, settle(*s));
        const bench::Settings settings = case_settings(slowest_ms);
        const int passes = slowest_ms < kShortCaseMs ? 3 : 1;
        std::vector<std::vector<double>> rounds(sides.size());
        for (int pass = 0; pass < passes; ++pass) {
            for (std::size_t i = 0; i < sides.size(); ++i) rounds[i].push_back(round_ms(*sides[i], settings));
            for (std::size_t i = sides.size(); i-- > 0;) rounds[i].push_back(round_ms(*sides[i], settings));
        }
        for (std::size_t i = 0; i < sides.size(); ++i) sides[i]->ms = bench::median(rounds[i]);
        BENCH_CUDA(cudaDeviceSynchronize());
        BENCH_CUDA(cudaGetLastError());
        return {settings.reps, 2 * passes};
    }

    // Times gpucore, the peers and the variants of `c` (copy: its own side), then picks the best peer.
    void time_case(Case& c, Side& ours, Side* copy) {
        std::vector<Side*> sides{&ours};
        for (Side& p : c.peers) sides.push_back(&p);
        if (copy) sides.push_back(copy);
        const Timing timing = time_sides(sides);
        c.reps_per_round = timing.reps_per_round;
        c.rounds = timing.rounds;
        c.gpucore_ms = ours.ms;
        if (copy) c.copy_ms = copy->ms;
        for (const Side& p : c.peers) {
            if (c.best_peer.empty() || p.ms < c.best_peer_ms) {
                c.best_peer = p.name;
                c.best_peer_ms = p.ms;
            }
        }
    }

    static Side gpucore_side(std::function<void()> f) {
        Side s;
        s.name = "gpucore";
        s.kind = "gpucore";
        s.enqueue = std::move(f);
        s.on_gpucore = true;
        return s;
    }
    static Side raw_side(std::string name, std::string kind, std::function<void()> f) {
        Side s;
        s.name = std::move(name);
        s.kind = std::move(kind);
        s.enqueue = std::move(f);
        return s;
    }
    Side copy_side(void* dst, const void* src, std::size_t bytes) {
        cudaStream_t raw = raw_;
        return raw_side("cudaMemcpy D2D (same bytes moved)", "copy", [=] {
            BENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, raw));
        });
    }

    // ---- vector_add ----

    template <class T>
    void vector_add(const std::vector<std::size_t>& sizes) {
        if (!wanted_op("vector_add") || !wanted_dtype<T>() || sizes.empty()) return;
        using D = cuda_t<T>;
        std::vector<std::size_t> todo;
        for (std::size_t n : sizes) {
            const std::size_t stride = (n + 63) / 64 * 64; // b starts 256-byte aligned, as a's start
            if (fits("vector_add " + dtype_name<T>() + " " + size_text(n), double(sizeof(T)) * (2 * stride + n + (3 * n + 1) / 2)))
                todo.push_back(n);
        }
        if (todo.empty()) return;
        const std::size_t max_n = *std::max_element(todo.begin(), todo.end());
        const std::size_t max_stride = (max_n + 63) / 64 * 64;
        // a and b in one allocation, so the copy peer can read 1.5 n elements from a's start.
        gpucore::Buffer<T> ab(device_, 2 * max_stride), c(device_, max_n), want(device_, (3 * max_n + 1) / 2);
        bench::random_fill(ab.data(), 2 * max_stride, 1);
        BENCH_CUDA(cudaDeviceSynchronize());
        for (std::size_t n : todo) {
            const std::size_t stride = (n + 63) / 64 * 64;
            auto a = ab.view(0, n);
            auto b = ab.view(stride, n);
            auto out = c.view(0, n);
            D* pa = as_cuda(ab.data());
            D* pb = as_cuda(ab.data() + stride);
            D* pw = as_cuda(want.data());
            cudaStream_t raw = raw_;
            Case k = make_case<T>("vector_add", size_text(n), "elements",
                                  gpucore::op_info::vector_add.bytes_moved(sizeof(T), 1, n));
            k.n = n;
            const auto thrust_add = [=] {
                if constexpr (is_16bit_float<T>()) {
                    thrust::transform(thrust::cuda::par_nosync.on(raw), pa, pa + n, pb, pw, bench::AddInFloat<D>{});
                } else {
                    thrust::transform(thrust::cuda::par_nosync.on(raw), pa, pa + n, pb, pw, thrust::plus<D>());
                }
            };
            k.peers.push_back(raw_side("thrust::transform", "peer", thrust_add));
            Side ours = gpucore_side([&] { gpucore::vector_add(stream_, a, b, out); });
            Side copy = copy_side(want.data(), ab.data(), (3 * n / 2) * sizeof(T));
            time_case(k, ours, &copy);
            thrust_add(); // the copy overwrote thrust's result
            BENCH_CUDA(cudaDeviceSynchronize());
            if constexpr (sizeof(T) == 2) {
                k.verified = bench::count_mismatches(reinterpret_cast<const std::uint16_t*>(c.data()),
                                                     reinterpret_cast<const std::uint16_t*>(want.data()), n, 0.0) == 0;
            } else {
                k.verified = bench::count_mismatches(c.data(), want.data(), n, 0.0) == 0;
            }
            k.check = "every element's bits equal to thrust's";
            add(std::move(k));
        }
    }

    // ---- reduce ----

    template <class T>
    void reduce(const std::vector<std::size_t>& sizes) {
        if (!wanted_op("reduce") || !wanted_dtype<T>() || sizes.empty()) return;
        using D = cuda_t<T>;
        using Want = std::conditional_t<is_16bit_float<T>(), float, D>;
        std::vector<std::size_t> todo;
        for (std::size_t n : sizes) {
            if (fits("reduce " + dtype_name<T>() + " " + size_text(n), double(sizeof(T)) * n)) todo.push_back(n);
        }
        if (todo.empty()) return;
        const std::size_t max_n = *std::max_element(todo.begin(), todo.end());
        gpucore::Buffer<T> in(device_, max_n), out(device_, 1);
        bench::random_fill(in.data(), max_n, 3);
        Want* peer_out = nullptr;
        float* lesson_out = nullptr;
        float* lesson_partials = nullptr;
        unsigned* lesson_tickets = nullptr;
        BENCH_CUDA(cudaMalloc(&peer_out, sizeof(Want)));
        int per_sm = 0;
        BENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ladder::reduce_last_block_kernel,
                                                                 ladder::ReduceShape::kLastBlockThreads, 0));
        const unsigned lesson_grid = static_cast<unsigned>(std::max(per_sm, 1) * ctx_.device.sm_count);
        BENCH_CUDA(cudaMalloc(&lesson_out, sizeof(float)));
        BENCH_CUDA(cudaMalloc(&lesson_partials, lesson_grid * sizeof(float)));
        BENCH_CUDA(cudaMalloc(&lesson_tickets, sizeof(unsigned)));
        BENCH_CUDA(cudaMemset(lesson_tickets, 0, sizeof(unsigned)));
        BENCH_CUDA(cudaDeviceSynchronize());
        for (std::size_t n : todo) {
            const D* d_in = as_cuda(in.data());
            auto view = in.view(0, n);
            cudaStream_t raw = raw_;
            const auto cub_sum = [=](void* temp, std::size_t& temp_bytes) {
                if constexpr (is_16bit_float<T>()) {
                    return cub::DeviceReduce::TransformReduce(temp, temp_bytes, d_in, peer_out,
                                                              static_cast<std::int64_t>(n), bench::FloatSum{},
                                                              bench::WidenToFloat{}, 0.0f, raw);
                } else {
                    return cub::DeviceReduce::Sum(temp, temp_bytes, d_in, peer_out, static_cast<std::int64_t>(n), raw);
                }
            };
            std::size_t temp_bytes = 0;
            BENCH_CUDA(cub_sum(nullptr, temp_bytes));
            void* temp = nullptr;
            BENCH_CUDA(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 1)));
            Case k = make_case<T>("reduce", size_text(n), "elements",
                                  gpucore::op_info::reduce.bytes_moved(sizeof(T), 1, n));
            k.n = n;
            k.peers.push_back(raw_side(is_16bit_float<T>() ? "cub::DeviceReduce::TransformReduce (float)"
                                                            : "cub::DeviceReduce::Sum",
                                       "peer", [=]() mutable { BENCH_CUDA(cub_sum(temp, temp_bytes)); }));
            if constexpr (std::is_same_v<T, float>) {
                const float* f_in = in.data();
                k.peers.push_back(raw_side("lesson: last block, one launch", "lesson", [=] {
                    ladder::reduce_last_block_kernel<<<lesson_grid, ladder::ReduceShape::kLastBlockThreads, 0, raw>>>(
                        f_in, n, lesson_partials, lesson_tickets, lesson_out);
                }));
            }
            Side ours = gpucore_side([&] { gpucore::reduce(stream_, view, out, gpucore::ReduceOp::sum); });
            time_case(k, ours, nullptr);
            BENCH_CUDA(cub_sum(temp, temp_bytes)); // the peer's result last
            BENCH_CUDA(cudaDeviceSynchronize());
            const auto [rel, abs] = sum_tolerance<T>(n);
            k.verified = count_far(as_cuda(out.data()), peer_out, 1, rel, abs) == 0;
            k.check = std::string("the sum against CUB's: ") + tolerance_text<T>();
            cudaFree(temp);
            add(std::move(k));
        }
        cudaFree(peer_out);
        cudaFree(lesson_out);
        cudaFree(lesson_partials);
        cudaFree(lesson_tickets);
    }

    // ---- reduce_rows ----

    struct RowShape {
        std::size_t rows, cols;
        std::string group;
    };

    template <class T>
    void reduce_rows(const std::vector<RowShape>& shapes) {
        if (!wanted_op("reduce_rows") || !wanted_dtype<T>() || shapes.empty()) return;
        using D = cuda_t<T>;
        using Want = std::conditional_t<is_16bit_float<T>(), float, D>;
        std::vector<RowShape> todo;
        for (const RowShape& s : shapes) {
            if (fits("reduce_rows " + dtype_name<T>() + " " + shape_text(s.rows, s.cols),
                     double(sizeof(T)) * s.rows * s.cols + 2.0 * double(sizeof(Want)) * s.rows))
                todo.push_back(s);
        }
        if (todo.empty()) return;
        std::size_t max_n = 1, max_rows = 1;
        for (const RowShape& s : todo) {
            max_n = std::max(max_n, s.rows * s.cols);
            max_rows = std::max(max_rows, s.rows);
        }
        gpucore::Buffer<T> in(device_, max_n), out(device_, max_rows), variant_out(device_, max_rows);
        Want* want = nullptr;
        BENCH_CUDA(cudaMalloc(&want, max_rows * sizeof(Want)));
        bench::random_fill(in.data(), max_n, 4);
        BENCH_CUDA(cudaDeviceSynchronize());
        for (const RowShape& s : todo) {
            const std::size_t rows = s.rows, cols = s.cols, n = rows * cols;
            const D* d_in = as_cuda(in.data());
            auto in_view = in.view(0, n);
            auto out_view = out.view(0, rows);
            cudaStream_t raw = raw_;
            auto begins = thrust::make_transform_iterator(thrust::make_counting_iterator<int>(0),
                                                          bench::RowStart{static_cast<int>(cols)});
            const auto cub_rows = [=](void* temp, std::size_t& temp_bytes) {
                if constexpr (is_16bit_float<T>()) {
                    auto widened = thrust::make_transform_iterator(d_in, bench::WidenToFloat{});
                    return cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, widened, want,
                                                              static_cast<std::int64_t>(rows), begins, begins + 1,
                                                              bench::FloatSum{}, 0.0f, raw);
                } else {
                    return cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, d_in, want,
                                                           static_cast<std::int64_t>(rows), begins, begins + 1, raw);
                }
            };
            std::size_t temp_bytes = 0;
            BENCH_CUDA(cub_rows(nullptr, temp_bytes));
            void* temp = nullptr;
            BENCH_CUDA(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 1)));
            Case k = make_case<T>("reduce_rows", shape_text(rows, cols), s.group,
                                  gpucore::op_info::reduce_rows.bytes_moved(sizeof(T), rows, cols));
            k.rows = rows;
            k.cols = cols;
            k.n = n;
            k.peers.push_back(raw_side(is_16bit_float<T>() ? "cub::DeviceSegmentedReduce::Reduce (float)"
                                                            : "cub::DeviceSegmentedReduce::Sum",
                                       "peer", [=]() mutable { BENCH_CUDA(cub_rows(temp, temp_bytes)); }));
            if constexpr (std::is_same_v<T, float>) add_rows_lessons(k, in.data(), variant_out.data(), rows, cols);
            Side ours = gpucore_side([&] {
                gpucore::reduce_rows(stream_, in_view, out_view, rows, cols, gpucore::ReduceOp::sum);
            });
            time_case(k, ours, nullptr);
            BENCH_CUDA(cub_rows(temp, temp_bytes)); // the peer's rows last (the lessons share variant_out)
            BENCH_CUDA(cudaDeviceSynchronize());
            const auto [rel, abs] = sum_tolerance<T>(cols);
            k.verified = count_far(as_cuda(out.data()), want, rows, rel, abs) == 0;
            k.check = std::string("every row against CUB's: ") + tolerance_text<T>();
            if (opt_.variants) row_variants<T>(k, in.data(), variant_out.data(), want, rows, cols, rel, abs);
            cudaFree(temp);
            add(std::move(k));
        }
        cudaFree(want);
    }

    // The lessons' row-sum rungs (f32 only, as the lessons).
    void add_rows_lessons(Case& k, const float* in, float* out, std::size_t rows, std::size_t cols) {
        cudaStream_t raw = raw_;
        constexpr int kThreads = ladder::RowsShape::kThreads;
        const auto grid_for = [rows](std::size_t lanes) {
            const std::size_t per_block = kThreads / lanes;
            return static_cast<unsigned>(std::min<std::size_t>((rows + per_block - 1) / per_block, kOne << 30));
        };
        if (cols <= 64) {
            const unsigned g8 = grid_for(8), g16 = grid_for(16), gw = grid_for(static_cast<std::size_t>(warp_size_));
            k.peers.push_back(raw_side("lesson: tiled partition, tile 8", "lesson", [=] {
                ladder::rows_tiled_partition_kernel<8><<<g8, kThreads, 0, raw>>>(in, rows, cols, out);
            }));
            k.peers.push_back(raw_side("lesson: tiled partition, tile 16", "lesson", [=] {
                ladder::rows_tiled_partition_kernel<16><<<g16, kThreads, 0, raw>>>(in, rows, cols, out);
            }));
            k.peers.push_back(raw_side("lesson: tiled partition, warp tile", "lesson", [=] {
                ladder::rows_tiled_partition_kernel<0><<<gw, kThreads, 0, raw>>>(in, rows, cols, out);
            }));
        } else if (cols >= 1024) {
            const unsigned grid = static_cast<unsigned>(std::min<std::size_t>(rows, kOne << 30));
            k.peers.push_back(raw_side("lesson: v2 (shuffle), a block per row", "lesson", [=] {
                ladder::rows_shuffle_kernel<<<grid, kThreads, 0, raw>>>(in, rows, cols, out);
            }));
        }
    }

    // The planner's alternatives for this shape, each through the plugin's launcher, timed together
    // (with the planner's own choice) and each checked against the peer's rows.
    template <class T>
    void row_variants(Case& k, const T* in, T* out, const void* want, std::size_t rows, std::size_t cols,
                      double rel, double abs) {
        using gpucore::gpu::RowPlan;
        using gpucore::gpu::RowStrategy;
        using Policy = gpucore::gpu::TuningPolicy;
        std::vector<std::pair<std::string, RowPlan>> plans;
        const auto forced = [&](RowStrategy strategy, std::size_t split) {
            return gpucore::gpu::forced_row_plan(strategy, rows, cols, split, ctx_.device,
                                                 Policy::Scratch::kPartialSlots, Policy::Scratch::kTicketSlots);
        };
        if (cols <= static_cast<std::size_t>(Policy::ReduceRows::kSubWarpMaxCols)) {
            // Every sub-warp kernel that covers the row: one lane per element (the plan before
            // strided lanes) and 2, 4, 8 elements per lane.
            for (int per_lane = 1; per_lane <= Policy::ReduceRows::kSubWarpMaxPerLane; per_lane *= 2) {
                const RowPlan p = gpucore::gpu::sub_warp_row_plan(rows, cols, per_lane, ctx_.device);
                if (p.logical_width > 0) {
                    plans.push_back({"sub_warp " + std::to_string(p.logical_width) + " per_lane " + std::to_string(p.per_lane) + " lanes x " +
                                         std::to_string(per_lane) + (per_lane == 1 ? " (lane per element)" : ""),
                                     p});
                }
            }
        }
        if (cols > 1 && cols <= 16384) {
            plans.push_back({"warp_per_row", forced(RowStrategy::warp_per_row, 1)});
            if (cols > 64) {
                plans.push_back({"warp_per_row, 4 packs",
                                 gpucore::gpu::warp_row_plan(rows, Policy::ReduceRows::kWarpRowKiBRowPacks,
                                                             ctx_.device)});
            }
        }
        if (cols >= 64) {
            plans.push_back({"block_per_row, split 1", forced(RowStrategy::block_per_row, 1)});
            plans.push_back({"block_per_row, lean", gpucore::gpu::lean_row_plan(rows, Policy::ReduceRows::kLeanRowThreads)});
            plans.push_back({"block_per_row, lean 64", gpucore::gpu::lean_row_plan(rows, Policy::ReduceRows::kLeanMidRowThreads)});
            plans.push_back({"block_per_row, lean 256", gpucore::gpu::lean_row_plan(rows, Policy::ReduceRows::kLeanWideRowThreads)});
            if (sizeof(T) >= Policy::ReduceRows::kTileRowMinElementBytes) {
                plans.push_back({"block_per_row, tile", gpucore::gpu::tile_row_plan(rows)});
                for (int threads : {Policy::ReduceRows::kShortTileNarrowThreads, Policy::ReduceRows::kShortTileMidThreads,
                                    Policy::ReduceRows::kShortTileWideThreads}) {
                    plans.push_back({"block_per_row, short tile " + std::to_string(threads),
                                     gpucore::gpu::short_tile_row_plan(rows, threads)});
                }
                plans.push_back({"block_per_row, short tile 128 x 2",
                                 gpucore::gpu::short_tile_row_plan(rows, Policy::ReduceRows::kShortTileMidThreads,
                                                                   Policy::ReduceRows::kShortTilePacks8)});
            }
        }
        // Few long rows: the split kernel with each row split over 2..16 blocks (a per-row ticket),
        // for the planner's split rule.
        for (std::size_t split = 2; split <= 16 && cols >= 8192; split *= 2) {
            const RowPlan p = forced(RowStrategy::block_per_row, split);
            if (p.split == split) plans.push_back({"block_per_row, split " + std::to_string(split), p});
        }
        std::vector<Side> sides;
        sides.push_back(raw_side("planned (launch_reduce_rows)", "variant", [=] {
            gpucore::gpu::launch_reduce_rows(plugin_dtype<T>(), GPUCORE_REDUCE_SUM, in, rows, cols, out, ctx_);
        }));
        for (auto& [name, plan] : plans) {
            const RowPlan p = plan;
            sides.push_back(raw_side(name, "variant", [=] {
                gpucore::gpu::launch_reduce_rows_planned(plugin_dtype<T>(), GPUCORE_REDUCE_SUM, in, rows, cols, out,
                                                         p, ctx_);
            }));
            sides.back().note = std::string(gpucore::gpu::to_string(p.strategy)) + " width " +
                                std::to_string(p.logical_width) + " per_lane " + std::to_string(p.per_lane) +
                                " split " + std::to_string(p.split) + " grid " + std::to_string(p.grid);
        }
        std::vector<Side*> order;
        for (Side& s : sides) order.push_back(&s);
        time_sides(order);
        // Each variant's output, checked: run it once more alone.
        for (Side& s : sides) {
            BENCH_CUDA(cudaMemsetAsync(out, 0xFF, rows * sizeof(T), raw_));
            s.enqueue();
            BENCH_CUDA(cudaStreamSynchronize(raw_));
            using Want = std::conditional_t<is_16bit_float<T>(), float, cuda_t<T>>;
            s.verified = count_far(as_cuda(out), static_cast<const Want*>(want), rows, rel, abs) == 0;
        }
        k.variants = std::move(sides);
    }

    // ---- transpose ----

    struct TransposeShape {
        std::size_t rows, cols;
        std::string group;
    };

    template <class T>
    void transpose(const std::vector<TransposeShape>& shapes) {
        if (!wanted_op("transpose") || !wanted_dtype<T>() || shapes.empty()) return;
        std::vector<TransposeShape> todo;
        for (const TransposeShape& s : shapes) {
            if (fits("transpose " + dtype_name<T>() + " " + shape_text(s.rows, s.cols), 3.0 * double(sizeof(T)) * s.rows * s.cols))
                todo.push_back(s);
        }
        if (todo.empty()) return;
        std::size_t max_n = 1;
        for (const TransposeShape& s : todo) max_n = std::max(max_n, s.rows * s.cols);
        gpucore::Buffer<T> in(device_, max_n), out(device_, max_n), scratch(device_, max_n);
        bench::random_fill(in.data(), max_n, 5);
        BENCH_CUDA(cudaDeviceSynchronize());
        for (const TransposeShape& s : todo) {
            const std::size_t rows = s.rows, cols = s.cols, n = rows * cols;
            auto in_view = in.view(0, n);
            auto out_view = out.view(0, n);
            cudaStream_t raw = raw_;
            Case k = make_case<T>("transpose", shape_text(rows, cols), s.group,
                                  gpucore::op_info::transpose.bytes_moved(sizeof(T), rows, cols));
            k.rows = rows;
            k.cols = cols;
            k.n = n;
            const bool tiled = rows % 64 == 0 && cols % 64 == 0;
            k.copy_goal = tiled ? 0.90 : 0.85;
            if constexpr (sizeof(T) == 4) {
                const auto* f_in = reinterpret_cast<const float*>(in.data());
                auto* f_out = reinterpret_cast<float*>(scratch.data());
                const dim3 grid = ladder::transpose_grid(rows, cols), block = ladder::transpose_block();
                if (grid.y <= 65535) {
                    k.peers.push_back(raw_side("lesson: shared memory, padded", "lesson", [=] {
                        ladder::transpose_shared_kernel<1><<<grid, block, 0, raw>>>(f_in, f_out, rows, cols);
                    }));
                }
            }
            Side ours = gpucore_side([&] { gpucore::transpose(stream_, in_view, out_view, rows, cols); });
            Side copy = copy_side(scratch.data(), in.data(), n * sizeof(T));
            time_case(k, ours, &copy);
            if constexpr (sizeof(T) == 2) {
                k.verified = bench::count_transpose_mismatches(reinterpret_cast<const std::uint16_t*>(in.data()),
                                                               reinterpret_cast<const std::uint16_t*>(out.data()), rows,
                                                               cols) == 0;
            } else {
                k.verified = bench::count_transpose_mismatches(in.data(), out.data(), rows, cols) == 0;
            }
            k.check = "every element at its transposed place";
            add(std::move(k));
        }
    }

    // ---- results ----

    template <class T>
    Case make_case(const std::string& op, const std::string& shape, const std::string& group, double bytes) {
        Case c;
        c.op = op;
        c.dtype = dtype_name<T>();
        c.shape = shape;
        c.group = group;
        c.bytes = bytes;
        return c;
    }

    template <class T>
    static std::string tolerance_text() {
        if constexpr (std::is_same_v<T, float>) return "relative 1e-4 (1e-3 past 2^18 terms)";
        else if constexpr (std::is_same_v<T, double>) return "relative 1e-10";
        else if constexpr (is_16bit_float<T>()) return "one rounding to the type + 1e-7 per term";
        else return "exact";
    }

    void add(Case c) {
        const double r = c.ratio();
        std::printf("  %-12s %-5s %-18s %10.2f us %8.1f GB/s  %-46s %10.2f us  %6.3fx%s%s\n", c.op.c_str(),
                    c.dtype.c_str(), c.shape.c_str(), c.gpucore_ms * 1e3, c.gbps(),
                    c.best_peer.empty() ? "(no comparable peer)" : c.best_peer.c_str(), c.best_peer_ms * 1e3, r,
                    c.copy_ms > 0 ? ("  copy " + std::to_string(c.copy_fraction()).substr(0, 5)).c_str() : "",
                    c.verified ? "" : "  NOT VERIFIED");
        std::fflush(stdout);
        cases_.push_back(std::move(c));
    }

    bool all_verified() const {
        for (const Case& c : cases_) {
            if (!c.verified) return false;
            for (const Side& v : c.variants) {
                if (!v.verified) return false;
            }
        }
        return true;
    }

    std::string markdown(double seconds) const;
    bool write_json(const std::string& path, double seconds) const;

private:
    Options opt_;
    gpucore::Device device_;
    gpucore::Stream stream_;
    cudaStream_t raw_ = nullptr;
    std::size_t flush_count_ = 0;
    gpucore::Buffer<std::uint32_t> flush_, flush_out_;
    void* partials_ = nullptr;
    unsigned* tickets_ = nullptr;
    gpucore::gpu::LaunchContext ctx_;
    std::string device_name_, architecture_, versions_;
    double peak_gbps_ = 0;
    int warp_size_ = 32;
    std::vector<Case> cases_;
    std::vector<Skipped> skipped_;
};

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string Sweep::markdown(double seconds) const {
    std::ostringstream md;
    md << "# gpucore speed sweep\n\n"
       << device_name_ << " (" << architecture_ << "), " << versions_ << ", " << cases_.size() << " cases in "
       << fixed(seconds, 0) << " s, " << (all_verified() ? "every result verified" : "**SOME RESULTS DID NOT VERIFY**")
       << ".\nRatio: the best comparable peer's time / gpucore's (>= 1: gpucore not slower). Copy: gpucore's "
          "fraction of a D2D copy of the same bytes.\n\n";
    md << "## Below 1.00x of the best peer\n\n| op | dtype | shape | gpucore us | GB/s | best peer | peer us | ratio |\n"
          "|---|---|---|---|---|---|---|---|\n";
    int below = 0;
    for (const Case& c : cases_) {
        if (c.best_peer.empty() || c.ratio() >= 1.0) continue;
        ++below;
        md << "| " << c.op << " | " << c.dtype << " | " << c.shape << " | " << fixed(c.gpucore_ms * 1e3, 2) << " | "
           << fixed(c.gbps(), 0) << " | " << c.best_peer << " | " << fixed(c.best_peer_ms * 1e3, 2) << " | "
           << fixed(c.ratio(), 3) << " |\n";
    }
    md << "\n" << below << " of " << cases_.size() << " cases below 1.00x.\n\n";
    md << "## Transposes below their copy goal\n\n| dtype | shape | gpucore us | GB/s | copy fraction | goal |\n"
          "|---|---|---|---|---|---|\n";
    for (const Case& c : cases_) {
        if (c.op != "transpose" || c.copy_fraction() >= c.copy_goal) continue;
        md << "| " << c.dtype << " | " << c.shape << " | " << fixed(c.gpucore_ms * 1e3, 2) << " | " << fixed(c.gbps(), 0)
           << " | " << fixed(c.copy_fraction(), 3) << " | " << fixed(c.copy_goal, 2) << " |\n";
    }
    md << "\n## Per op and dtype: ratio to the best peer (min / median / max over shapes)\n\n"
          "| op | dtype | cases | min | median | max | worst shape |\n|---|---|---|---|---|---|---|\n";
    std::map<std::pair<std::string, std::string>, std::vector<const Case*>> groups;
    for (const Case& c : cases_) {
        if (!c.best_peer.empty()) groups[{c.op, c.dtype}].push_back(&c);
    }
    for (const auto& [key, list] : groups) {
        std::vector<double> r;
        const Case* worst = list.front();
        for (const Case* c : list) {
            r.push_back(c->ratio());
            if (c->ratio() < worst->ratio()) worst = c;
        }
        std::sort(r.begin(), r.end());
        md << "| " << key.first << " | " << key.second << " | " << r.size() << " | " << fixed(r.front(), 3) << " | "
           << fixed(bench::median(r), 3) << " | " << fixed(r.back(), 3) << " | " << worst->shape << " |\n";
    }
    md << "\n## reduce_rows: the launcher's plans (raw launches, us; * = fastest; planned = the planner's "
          "choice)\n\n| dtype | shape | planned | fastest | fastest us | planned / fastest | all |\n"
          "|---|---|---|---|---|---|---|\n";
    for (const Case& c : cases_) {
        if (c.variants.empty()) continue;
        const Side* best = &c.variants.front();
        for (const Side& v : c.variants) {
            if (v.ms < best->ms) best = &v;
        }
        std::string all;
        for (const Side& v : c.variants) {
            all += (all.empty() ? "" : "; ") + v.name + " " + fixed(v.ms * 1e3, 2) + (&v == best ? "*" : "") +
                   (v.verified ? "" : " WRONG");
        }
        md << "| " << c.dtype << " | " << c.shape << " | " << fixed(c.variants.front().ms * 1e3, 2) << " | "
           << best->name << " | " << fixed(best->ms * 1e3, 2) << " | "
           << fixed(c.variants.front().ms / std::max(best->ms, 1e-9), 3) << " | " << all << " |\n";
    }
    if (!skipped_.empty()) {
        md << "\n## Skipped\n\n";
        for (const Skipped& s : skipped_) md << "- " << s.what << ": " << s.why << "\n";
    }
    return md.str();
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\') out += '\\';
        out += ch;
    }
    return out + "\"";
}

std::string json_number(double v) {
    if (!std::isfinite(v)) return "null";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

bool Sweep::write_json(const std::string& path, double seconds) const {
    std::ofstream f(path);
    if (!f) return false;
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    f << "{\n  \"device\": " << json_string(device_name_) << ",\n  \"architecture\": " << json_string(architecture_)
      << ",\n  \"versions\": " << json_string(versions_) << ",\n  \"date\": " << json_string(date)
      << ",\n  \"peak_gbps\": " << json_number(peak_gbps_) << ",\n  \"seconds\": " << json_number(seconds)
      << ",\n  \"quick\": " << (opt_.quick ? "true" : "false") << ",\n  \"reps\": " << opt_.settings.reps
      << ",\n  \"all_verified\": " << (all_verified() ? "true" : "false") << ",\n  \"cases\": [";
    const auto side_json = [](const Side& s) {
        std::string j = "{\"name\": " + json_string(s.name) + ", \"kind\": " + json_string(s.kind) +
                        ", \"ms\": " + json_number(s.ms);
        if (s.kind == "variant") j += ", \"verified\": " + std::string(s.verified ? "true" : "false");
        if (!s.note.empty()) j += ", \"plan\": " + json_string(s.note);
        return j + "}";
    };
    for (std::size_t i = 0; i < cases_.size(); ++i) {
        const Case& c = cases_[i];
        f << (i ? "," : "") << "\n    {\"op\": " << json_string(c.op) << ", \"dtype\": " << json_string(c.dtype)
          << ", \"shape\": " << json_string(c.shape) << ", \"group\": " << json_string(c.group)
          << ", \"rows\": " << c.rows << ", \"cols\": " << c.cols << ", \"n\": " << c.n
          << ", \"bytes\": " << json_number(c.bytes) << ", \"gpucore_ms\": " << json_number(c.gpucore_ms)
          << ", \"gpucore_gbps\": " << json_number(c.gbps()) << ", \"best_peer\": " << json_string(c.best_peer)
          << ", \"best_peer_ms\": " << json_number(c.best_peer_ms) << ", \"ratio\": "
          << (c.best_peer.empty() ? "null" : json_number(c.ratio()));
        if (c.copy_ms > 0) {
            f << ", \"copy_ms\": " << json_number(c.copy_ms) << ", \"copy_fraction\": " << json_number(c.copy_fraction());
        }
        if (c.copy_goal > 0) f << ", \"copy_goal\": " << json_number(c.copy_goal);
        f << ", \"reps_per_round\": " << c.reps_per_round << ", \"rounds\": " << c.rounds;
        f << ", \"verified\": " << (c.verified ? "true" : "false") << ", \"check\": " << json_string(c.check)
          << ",\n     \"peers\": [";
        for (std::size_t p = 0; p < c.peers.size(); ++p) f << (p ? ", " : "") << side_json(c.peers[p]);
        f << "]";
        if (!c.variants.empty()) {
            f << ",\n     \"variants\": [";
            for (std::size_t v = 0; v < c.variants.size(); ++v) f << (v ? ", " : "") << side_json(c.variants[v]);
            f << "]";
        }
        f << "}";
    }
    f << "\n  ],\n  \"skipped\": [";
    for (std::size_t i = 0; i < skipped_.size(); ++i) {
        f << (i ? ", " : "") << "{\"what\": " << json_string(skipped_[i].what) << ", \"why\": "
          << json_string(skipped_[i].why) << "}";
    }
    f << "]\n}\n";
    return static_cast<bool>(f);
}

// ---- the shapes ------------------------------------------------------------------------------

std::vector<std::size_t> flat_sizes(bool quick) {
    if (quick) return {kOne << 10, kOne << 20, 1000003};
    std::vector<std::size_t> sizes;
    for (int k = 10; k <= 30; k += 2) sizes.push_back(kOne << k);
    sizes.push_back(1000003);   // an odd tail
    sizes.push_back(50000017);  // an odd tail, past L2
    std::sort(sizes.begin(), sizes.end());
    return sizes;
}

std::vector<Sweep::RowShape> row_shapes(const Options& opt) {
    std::vector<Sweep::RowShape> shapes;
    if (!opt.row_shapes.empty()) {
        for (auto [rows, cols] : opt.row_shapes) shapes.push_back({rows, cols, "chosen"});
        return shapes;
    }
    const bool quick = opt.quick;
    // Rows chosen so rows x cols is the group's element count, at most 2^22 rows (CUB's segmented
    // reduce costs about a microsecond per 1000 rows however short they are).
    const auto add = [&](std::size_t total, const char* group, std::size_t cols) {
        std::size_t rows = std::max<std::size_t>(1, total / cols);
        rows = std::min<std::size_t>(rows, kOne << 22);
        shapes.push_back({rows, cols, group});
    };
    if (quick) {
        for (std::size_t cols : {std::size_t{1}, std::size_t{7}, std::size_t{16}, std::size_t{32}, std::size_t{33},
                                 std::size_t{64}, std::size_t{1000}, std::size_t{8192}, kOne << 20})
            add(kOne << 22, "rows x cols = 2^22", cols);
        return shapes;
    }
    std::vector<std::size_t> cols_list;
    for (int k = 0; k <= 24; ++k) cols_list.push_back(kOne << k);
    // Odd sizes, among them rows of 1 to 12 KiB between the powers of two (where each kernel's last,
    // partial round of loads costs the most).
    for (std::size_t odd : {3, 7, 17, 33, 48, 63, 100, 260, 600, 1000, 1100, 2304, 2500, 3001, 5003, 100003, 1000003})
        cols_list.push_back(odd);
    std::sort(cols_list.begin(), cols_list.end());
    for (std::size_t cols : cols_list) add(kOne << 24, "rows x cols = 2^24", cols);
    for (std::size_t cols : cols_list) add(kOne << 28, "rows x cols = 2^28", cols);
    return shapes;
}

std::vector<Sweep::TransposeShape> transpose_shapes(bool quick) {
    if (quick) return {{1024, 1024, "square"}, {1000, 777, "odd"}, {16, kOne << 16, "skinny"}};
    std::vector<Sweep::TransposeShape> shapes;
    for (std::size_t side = 256; side <= 16384; side *= 2) shapes.push_back({side, side, "square"});
    for (auto [r, c] : {std::pair<std::size_t, std::size_t>{5003, 3001}, {3001, 5003}, {1000, 777}, {4097, 4097},
                        {8191, 8193}, {12345, 6789}})
        shapes.push_back({r, c, "odd"});
    // Narrow sides of 9 rows or columns (a narrow kernel's stage part empty) and 16 with an odd long
    // side (2-byte words one per access: rows start off 4-byte boundaries) besides the powers of two.
    for (auto [r, c] : {std::pair<std::size_t, std::size_t>{2, kOne << 24}, {kOne << 24, 2}, {16, kOne << 22},
                        {kOne << 22, 16}, {64, kOne << 20}, {kOne << 20, 64}, {512, kOne << 17}, {kOne << 17, 512},
                        {7, 1000003}, {1000003, 7}, {9, kOne << 22}, {kOne << 22, 9}, {16, (kOne << 22) + 1},
                        {(kOne << 22) + 1, 16}})
        shapes.push_back({r, c, "skinny"});
    return shapes;
}

template <class T>
void run_dtype(Sweep& s, const Options& opt) {
    s.vector_add<T>(flat_sizes(opt.quick));
    s.reduce<T>(flat_sizes(opt.quick));
    s.reduce_rows<T>(row_shapes(opt));
    s.transpose<T>(transpose_shapes(opt.quick));
}

std::set<std::string> split_list(const std::string& text) {
    std::set<std::string> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (!item.empty()) out.insert(item);
    }
    return out;
}

// "RxC,RxC,...": rows x cols pairs, each > 0; false on anything else.
bool parse_row_shapes(const std::string& text, std::vector<std::pair<std::size_t, std::size_t>>& shapes) {
    for (const std::string& item : split_list(text)) {
        const std::size_t x = item.find('x');
        if (x == std::string::npos || x == 0 || x + 1 == item.size() ||
            item.find_first_not_of("0123456789x") != std::string::npos || item.find('x', x + 1) != std::string::npos)
            return false;
        char* end = nullptr;
        const unsigned long long rows = std::strtoull(item.c_str(), &end, 10);
        if (end != item.c_str() + x) return false;
        const unsigned long long cols = std::strtoull(item.c_str() + x + 1, &end, 10);
        if (*end != '\0' || rows == 0 || cols == 0) return false;
        shapes.push_back({rows, cols});
    }
    std::sort(shapes.begin(), shapes.end());
    return !shapes.empty();
}

} // namespace
} // namespace sweep

int main(int argc, char** argv) {
    sweep::Options opt;
    const char* usage = "usage: %s <out-dir> [--quick] [--reps N] [--ops vector_add,transpose,reduce,reduce_rows] "
                        "[--dtypes f32,f64,i32,u32,f16,bf16] [--max-gib G] [--no-variants] [--row-shapes RxC,...]\n";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick") opt.quick = true;
        else if (arg == "--no-variants") opt.variants = false;
        else if (arg == "--reps" && i + 1 < argc) opt.settings.reps = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--ops" && i + 1 < argc) opt.ops = sweep::split_list(argv[++i]);
        else if (arg == "--dtypes" && i + 1 < argc) opt.dtypes = sweep::split_list(argv[++i]);
        else if (arg == "--max-gib" && i + 1 < argc) opt.max_gib = std::atof(argv[++i]);
        else if (arg == "--row-shapes" && i + 1 < argc) {
            if (!sweep::parse_row_shapes(argv[++i], opt.row_shapes)) {
                std::fprintf(stderr, "--row-shapes: expected rows x cols pairs such as 16384x1024,128x131072\n");
                return 1;
            }
        } else if (arg == "--help") {
            std::printf(usage, argv[0]);
            return 0;
        } else if (!arg.empty() && arg[0] != '-' && opt.out_dir.empty()) opt.out_dir = arg;
        else {
            std::fprintf(stderr, usage, argv[0]);
            return 1;
        }
    }
    if (opt.out_dir.empty()) {
        std::fprintf(stderr, usage, argv[0]);
        return 1;
    }
    mkdir(opt.out_dir.c_str(), 0755); // an existing folder is fine; a failure shows when writing
    const auto start = std::chrono::steady_clock::now();
    try {
        sweep::Sweep s(opt);
        s.warm_up(1.0);
        std::printf("  %-12s %-5s %-18s %13s %13s  %-46s %13s  %7s\n", "op", "dtype", "shape", "gpucore", "",
                    "best peer", "peer", "ratio");
        sweep::run_dtype<float>(s, opt);
        sweep::run_dtype<double>(s, opt);
        sweep::run_dtype<std::int32_t>(s, opt);
        sweep::run_dtype<std::uint32_t>(s, opt);
        sweep::run_dtype<gpucore::half>(s, opt);
        sweep::run_dtype<gpucore::bfloat16>(s, opt);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::string md = s.markdown(seconds);
        std::printf("\n%s", md.c_str());
        std::ofstream(opt.out_dir + "/sweep.md") << md;
        if (!s.write_json(opt.out_dir + "/sweep.json", seconds)) {
            std::fprintf(stderr, "cannot write %s/sweep.json\n", opt.out_dir.c_str());
            return 2;
        }
        if (!s.all_verified()) {
            std::fprintf(stderr, "some gpucore or variant results did not verify\n");
            return 3;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpucore_sweep_bench: %s\n", e.what());
        return 2;
    }
    return 0;
}

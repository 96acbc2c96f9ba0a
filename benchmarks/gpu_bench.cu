// SPDX-License-Identifier: Apache-2.0
// The CUDA benchmark: gpucore (through the public API and the loaded cuda plugin) timed
// beside its peers in the same run on the same device: cudaMemcpy D2D, thrust::transform,
// cub::DeviceReduce::Sum (f16/bf16: cub::DeviceReduce::TransformReduce with a float accumulator),
// cub::DeviceSegmentedReduce::Sum. Medians of event-timed repeats after
// warm-up, each repeat after an L2 flush by reading 2x L2 (inputs never cache-resident, no dirty
// lines left to write back during the timed work); every gpucore result is
// verified (exactly, or against the peer within float rounding). Also the host latency of blocking
// small copies (to_vector, copy_from_host) beside cudaMemcpy, with idle and busy streams present.
// Prints the tables, writes JSON.
//
//   gpucore_cuda_bench [--json FILE] [--reps N] [--quick] [--tune]
//
// --quick: the targets' table only (no f64/i32/u32 rows, no sweep), for short runs.
// --tune: also time the kernel templates with other tuning values (bench_tuning.cuh).
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/transform.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <string>

#include "bench_report.hpp"
#include "bench_support.cuh"
#include "bench_tuning.cuh"
#include "kernels/elementwise_kernels.cuh"
#include "tuning_policy.hpp"

namespace bench {
namespace {

template <class T>
const char* dtype_name() {
    if constexpr (std::is_same_v<T, float>) return "f32";
    else if constexpr (std::is_same_v<T, double>) return "f64";
    else if constexpr (std::is_same_v<T, std::int32_t>) return "i32";
    else if constexpr (std::is_same_v<T, gpucore::half>) return "f16";
    else if constexpr (std::is_same_v<T, gpucore::bfloat16>) return "bf16";
    else return "u32";
}

std::string pow2_name(std::size_t n) {
    int k = 0;
    while ((std::size_t{1} << k) < n) ++k;
    return (std::size_t{1} << k) == n ? "2^" + std::to_string(k) : std::to_string(n);
}

// Relative tolerance between two float reductions of the same inputs in different orders
// (inputs in [0, 1): no cancellation); 0 = exact.
template <class T>
double peer_tolerance() {
    if constexpr (std::is_same_v<T, float>) return 1e-4;
    else if constexpr (std::is_same_v<T, double>) return 1e-10;
    else return 0;
}

class Bench {
public:
    explicit Bench(Settings settings)
        : device_(gpucore::select_device("cuda")), stream_(device_), settings_(settings) {
        const auto& props = device_.properties();
        // Twice the L2, so one overwrite evicts everything a timed op could find there.
        flush_count_ = std::max<std::size_t>(props.l2_cache_bytes * 2, std::size_t{64} << 20) / 4;
        flush_ = gpucore::Buffer<std::uint32_t>(device_, flush_count_);
        flush_out_ = gpucore::Buffer<std::uint32_t>(device_, 1);
        flush_.fill(1u); // read by every flush; never the all-ones word read_flush_kernel tests
        BENCH_CUDA(cudaStreamCreateWithFlags(&peer_, cudaStreamNonBlocking));
        report_.device = props.name;
        report_.architecture = props.architecture;
        report_.peak_gbps = props.peak_memory_bandwidth_gbps;
        int driver = 0, runtime = 0;
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        report_.driver = std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
        report_.runtime = std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
        char date[32];
        const std::time_t now = std::time(nullptr);
        std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
        report_.date = date;
    }
    ~Bench() { cudaStreamDestroy(peer_); }

    Report& report() { return report_; }
    void tune() {
        BENCH_CUDA(cudaDeviceSynchronize());
        run_tuning(peer_, flush_.data(), flush_count_ * 4, settings_);
    }
    Settings& settings() { return settings_; }

    template <class Enqueue>
    double gpucore_ms(Enqueue&& enqueue) {
        BENCH_CUDA(cudaDeviceSynchronize());
        return time_gpucore_ms(stream_, flush_, flush_out_, settings_, enqueue);
    }
    template <class Enqueue>
    double peer_ms(Enqueue&& enqueue) {
        BENCH_CUDA(cudaDeviceSynchronize());
        return time_cuda_ms(peer_, flush_.data(), flush_count_ * 4, settings_, enqueue);
    }
    // gpucore and its peer in four rounds, ordered gpucore, peer, peer, gpucore: each side's time
    // is the mean of its two round medians, so a clock or memory state drifting steadily during a
    // case falls on both sides alike (an ABAB order puts the first, coldest round on gpucore).
    template <class Ours, class Theirs>
    void time_pair(CaseResult& r, Ours&& ours, Theirs&& theirs) {
        settle(ours, theirs);
        const double a1 = gpucore_ms(ours);
        const double b1 = peer_ms(theirs);
        const double b2 = peer_ms(theirs);
        const double a2 = gpucore_ms(ours);
        r.gpucore_ms = 0.5 * (a1 + a2);
        r.peer_ms = 0.5 * (b1 + b2);
    }

    // Runs each side untimed for kSettleMs first. Memory just allocated runs slow for its first
    // milliseconds of use (BENCHMARKS.md, Method), which would fall on whichever side is timed first.
    template <class Ours, class Theirs>
    void settle(Ours&& ours, Theirs&& theirs) {
        constexpr double kSettleMs = 30;
        const auto run_for = [&](auto&& enqueue, auto&& wait) {
            const auto until = std::chrono::steady_clock::now() +
                               std::chrono::duration<double, std::milli>(kSettleMs);
            do {
                for (int i = 0; i < 8; ++i) enqueue();
                wait();
            } while (std::chrono::steady_clock::now() < until);
        };
        run_for(ours, [&] { stream_.synchronize(); });
        run_for(theirs, [&] { BENCH_CUDA(cudaStreamSynchronize(peer_)); });
    }

    // Warms the GPU up with copies within the flush buffer (all ones) for `seconds`.
    void warm_up(double seconds) {
        keep_busy(flush_.data(), flush_count_ * sizeof(std::uint32_t), peer_, seconds);
    }

    // Device-to-device copy of `bytes` (read + write counted: 2 * bytes moved).
    double copy_ms(void* dst, const void* src, std::size_t bytes) {
        return peer_ms([&] {
            BENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, peer_));
        });
    }

    template <class T>
    CaseResult vector_add(std::size_t n) {
        gpucore::Buffer<T> a(device_, n), b(device_, n), c(device_, n), want(device_, n);
        random_fill(a.data(), n, 1);
        random_fill(b.data(), n, 2);
        CaseResult r = named<T>("vector_add", pow2_name(n), gpucore::op_info::vector_add.bytes_moved(sizeof(T), 1, n));
        r.peer = "thrust::transform";
        r.peer_bytes = r.bytes;
        time_pair(r, [&] { gpucore::vector_add(stream_, a, b, c); }, [&] {
            thrust::transform(thrust::cuda::par_nosync.on(peer_), a.data(), a.data() + n, b.data(),
                              want.data(), thrust::plus<T>());
        });
        BENCH_CUDA(cudaDeviceSynchronize());
        r.verified = count_mismatches(c.data(), want.data(), n, 0.0) == 0;
        r.check = "every element equal to thrust's";
        return r;
    }

    template <class T>
    CaseResult reduce(std::size_t n) {
        gpucore::Buffer<T> in(device_, n), out(device_, 1);
        random_fill(in.data(), n, 3);
        T* cub_out = nullptr;
        BENCH_CUDA(cudaMalloc(&cub_out, sizeof(T)));
        std::size_t temp_bytes = 0;
        BENCH_CUDA(cub::DeviceReduce::Sum(nullptr, temp_bytes, in.data(), cub_out,
                                          static_cast<std::int64_t>(n), peer_));
        void* temp = nullptr;
        BENCH_CUDA(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 1)));
        CaseResult r = named<T>("reduce_sum", pow2_name(n), gpucore::op_info::reduce.bytes_moved(sizeof(T), 1, n));
        r.peer = "cub::DeviceReduce::Sum";
        r.peer_bytes = r.bytes;
        time_pair(r, [&] { gpucore::reduce(stream_, in, out, gpucore::ReduceOp::sum); }, [&] {
            BENCH_CUDA(cub::DeviceReduce::Sum(temp, temp_bytes, in.data(), cub_out,
                                              static_cast<std::int64_t>(n), peer_));
        });
        BENCH_CUDA(cudaDeviceSynchronize());
        T got{}, want{};
        BENCH_CUDA(cudaMemcpy(&got, out.data(), sizeof(T), cudaMemcpyDeviceToHost));
        BENCH_CUDA(cudaMemcpy(&want, cub_out, sizeof(T), cudaMemcpyDeviceToHost));
        const double tol = peer_tolerance<T>();
        r.verified = tol == 0 ? got == want
                              : std::fabs(double(got) - double(want)) <= tol * std::fabs(double(want));
        r.check = tol == 0 ? "equal to CUB's" : "within relative 1e-4 (f32) / 1e-10 (f64) of CUB's";
        cudaFree(temp);
        cudaFree(cub_out);
        return r;
    }

    template <class T>
    CaseResult reduce_rows(std::size_t rows, std::size_t cols) {
        const std::size_t n = rows * cols;
        gpucore::Buffer<T> in(device_, n), out(device_, rows), want(device_, rows);
        random_fill(in.data(), n, 4);
        auto begins = thrust::make_transform_iterator(thrust::make_counting_iterator<int>(0),
                                                      RowStart{static_cast<int>(cols)});
        std::size_t temp_bytes = 0;
        BENCH_CUDA(cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes, in.data(), want.data(),
                                                   static_cast<std::int64_t>(rows), begins,
                                                   begins + 1, peer_));
        void* temp = nullptr;
        BENCH_CUDA(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 1)));
        CaseResult r = named<T>("reduce_rows_sum", std::to_string(rows) + "x" + std::to_string(cols),
                                gpucore::op_info::reduce_rows.bytes_moved(sizeof(T), rows, cols));
        r.peer = "cub::DeviceSegmentedReduce::Sum";
        r.peer_bytes = r.bytes;
        time_pair(r, [&] { gpucore::reduce_rows(stream_, in, out, rows, cols, gpucore::ReduceOp::sum); },
                  [&] {
                      BENCH_CUDA(cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, in.data(),
                                                                 want.data(),
                                                                 static_cast<std::int64_t>(rows),
                                                                 begins, begins + 1, peer_));
                  });
        BENCH_CUDA(cudaDeviceSynchronize());
        r.verified = count_mismatches(out.data(), want.data(), rows, peer_tolerance<T>()) == 0;
        r.check = "every row against CUB's (float: relative tolerance)";
        cudaFree(temp);
        return r;
    }

    // f16 / bf16 vector_add against thrust::transform on the same type, adding in float.
    template <class T>
    CaseResult vector_add_16(std::size_t n) {
        using D = cuda_t<T>;
        gpucore::Buffer<T> a(device_, n), b(device_, n), c(device_, n), want(device_, n);
        random_fill(a.data(), n, 1);
        random_fill(b.data(), n, 2);
        CaseResult r = named<T>("vector_add", pow2_name(n), gpucore::op_info::vector_add.bytes_moved(sizeof(T), 1, n));
        r.peer = "thrust::transform";
        r.peer_bytes = r.bytes;
        time_pair(r, [&] { gpucore::vector_add(stream_, a, b, c); }, [&] {
            thrust::transform(thrust::cuda::par_nosync.on(peer_), as_cuda(a.data()),
                              as_cuda(a.data()) + n, as_cuda(b.data()), as_cuda(want.data()),
                              AddInFloat<D>{});
        });
        BENCH_CUDA(cudaDeviceSynchronize());
        r.verified = count_mismatches(reinterpret_cast<const std::uint16_t*>(c.data()),
                                      reinterpret_cast<const std::uint16_t*>(want.data()), n, 0.0) == 0;
        r.check = "every element's bits equal to thrust's";
        return r;
    }

    // f16 / bf16 sum against CUB's TransformReduce widening to float (gpucore rounds its float
    // sum to T once; inputs in [-1, 1)).
    template <class T>
    CaseResult reduce_16(std::size_t n) {
        gpucore::Buffer<T> in(device_, n), out(device_, 1);
        random_fill(in.data(), n, 3);
        float* cub_out = nullptr;
        BENCH_CUDA(cudaMalloc(&cub_out, sizeof(float)));
        const auto* d_in = as_cuda(in.data());
        const auto cub_sum = [&](void* temp, std::size_t& temp_bytes) {
            return cub::DeviceReduce::TransformReduce(temp, temp_bytes, d_in, cub_out,
                                                      static_cast<std::int64_t>(n), FloatSum{},
                                                      WidenToFloat{}, 0.0f, peer_);
        };
        std::size_t temp_bytes = 0;
        BENCH_CUDA(cub_sum(nullptr, temp_bytes));
        void* temp = nullptr;
        BENCH_CUDA(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 1)));
        CaseResult r = named<T>("reduce_sum", pow2_name(n), gpucore::op_info::reduce.bytes_moved(sizeof(T), 1, n));
        r.peer = "cub::DeviceReduce::TransformReduce (float)";
        r.peer_bytes = r.bytes;
        time_pair(r, [&] { gpucore::reduce(stream_, in, out, gpucore::ReduceOp::sum); },
                  [&] { BENCH_CUDA(cub_sum(temp, temp_bytes)); });
        BENCH_CUDA(cudaDeviceSynchronize());
        T got{};
        float want = 0;
        BENCH_CUDA(cudaMemcpy(&got, out.data(), sizeof(T), cudaMemcpyDeviceToHost));
        BENCH_CUDA(cudaMemcpy(&want, cub_out, sizeof(float), cudaMemcpyDeviceToHost));
        // One rounding to T, plus float sums in two orders over n values of magnitude < 1.
        const double tol = static_cast<double>(std::numeric_limits<T>::epsilon()) * std::fabs(want) +
                           1e-7 * static_cast<double>(n);
        r.verified = std::fabs(static_cast<double>(static_cast<float>(got)) - want) <= tol;
        r.check = "within one rounding to the type (+ 1e-7 n) of CUB's float sum";
        cudaFree(temp);
        cudaFree(cub_out);
        return r;
    }

    template <class T>
    CaseResult transpose(std::size_t rows, std::size_t cols) {
        const std::size_t n = rows * cols;
        gpucore::Buffer<T> in(device_, n), out(device_, n), copy(device_, n);
        random_fill(in.data(), n, 5);
        CaseResult r = named<T>("transpose", std::to_string(rows) + "x" + std::to_string(cols),
                                gpucore::op_info::transpose.bytes_moved(sizeof(T), rows, cols));
        r.peer = "cudaMemcpy D2D (same bytes)";
        r.peer_bytes = r.bytes;
        time_pair(r, [&] { gpucore::transpose(stream_, in, out, rows, cols); }, [&] {
            BENCH_CUDA(cudaMemcpyAsync(copy.data(), in.data(), n * sizeof(T),
                                       cudaMemcpyDeviceToDevice, peer_));
        });
        BENCH_CUDA(cudaDeviceSynchronize());
        if constexpr (sizeof(T) == 2) { // the bits, compared as 16-bit words
            r.verified = count_transpose_mismatches(reinterpret_cast<const std::uint16_t*>(in.data()),
                                                    reinterpret_cast<const std::uint16_t*>(out.data()),
                                                    rows, cols) == 0;
        } else {
            r.verified = count_transpose_mismatches(in.data(), out.data(), rows, cols) == 0;
        }
        r.check = "every element at its transposed place";
        return r;
    }

    // Host time per enqueue of vector_add on 32 floats: gpucore (core + plugin) against a raw
    // <<<>>> launch of the plugin's own kernel template with the plugin's launch shape; then the
    // parts of the difference (HostLaunch).
    HostLaunch host_launch() {
        using Policy = gpucore::gpu::TuningPolicy::VectorAdd;
        constexpr std::size_t n = 32;
        constexpr int kLaunches = 500, kRounds = 31;
        gpucore::Buffer<float> a(device_, n), b(device_, n), c(device_, n), empty(device_, 0);
        random_fill(a.data(), n, 6);
        random_fill(b.data(), n, 7);
        BENCH_CUDA(cudaDeviceSynchronize());
        const auto raw_launch = [&] {
            gpucore::gpu::vector_add_kernel<float, Policy::kThreads, Policy::kPacksPerThread, true>
                <<<1, Policy::kThreads, 0, peer_>>>(a.data(), b.data(), c.data(), n);
        };
        const auto checked_raw_launch = [&] {
            int current = -1;
            BENCH_CUDA(cudaGetDevice(&current));
            raw_launch();
            BENCH_CUDA(cudaGetLastError());
        };
        std::vector<double> through_gpucore, raw, checked_raw, core_checks, checks_then_raw;
        using clock = std::chrono::steady_clock;
        // Microseconds per call of `call`, kLaunches in a row, then `wait` (not timed).
        const auto per_call_us = [&](auto&& call, auto&& wait) {
            const auto t0 = clock::now();
            for (int i = 0; i < kLaunches; ++i) call();
            const auto t1 = clock::now();
            wait();
            return std::chrono::duration<double, std::micro>(t1 - t0).count() / kLaunches;
        };
        const auto wait_gpucore = [&] { stream_.synchronize(); };
        const auto wait_peer = [&] { BENCH_CUDA(cudaStreamSynchronize(peer_)); };
        for (int round = 0; round < kRounds + 2; ++round) { // two warm-up rounds
            const double g = per_call_us([&] { gpucore::vector_add(stream_, a, b, c); }, wait_gpucore);
            const double r = per_call_us(raw_launch, wait_peer);
            const double cr = per_call_us(checked_raw_launch, wait_peer);
            const double checks = per_call_us([&] { gpucore::vector_add(stream_, empty, empty, empty); }, wait_gpucore);
            const double both = per_call_us(
                [&] {
                    gpucore::vector_add(stream_, empty, empty, empty);
                    checked_raw_launch();
                },
                wait_peer);
            if (round < 2) continue;
            through_gpucore.push_back(g);
            raw.push_back(r);
            checked_raw.push_back(cr);
            core_checks.push_back(checks);
            checks_then_raw.push_back(both);
        }
        BENCH_CUDA(cudaGetLastError());
        return {median(through_gpucore), median(raw), median(checked_raw), median(core_checks), median(checks_then_raw)};
    }

    // Host time of blocking 4 KiB copies (median of single calls), gpucore beside cudaMemcpy with
    // pageable host memory as to_vector uses: with no other stream, with idle streams that once had
    // work, with idle streams whose native handles were taken, and behind a busy stream (gpucore's
    // read waits for it by itself; the peer synchronizes the stream explicitly first, as it must on
    // a non-blocking stream).
    std::vector<BlockingLatency> blocking_copy_latency() {
        constexpr std::size_t n = 1024; // 4 KiB of float
        constexpr int kCalls = 3000;
        constexpr int kIdleStreams = 4;
        using clock = std::chrono::steady_clock;
        gpucore::Buffer<float> small(device_, n);
        small.fill(1.0f);
        std::vector<float> host(n, 2.0f);
        float* raw = nullptr;
        BENCH_CUDA(cudaMalloc(&raw, n * sizeof(float)));
        BENCH_CUDA(cudaMemset(raw, 0, n * sizeof(float)));
        BENCH_CUDA(cudaDeviceSynchronize());
        const auto per_call_us = [&](auto&& call) {
            for (int i = 0; i < 100; ++i) call(); // warm-up
            std::vector<double> us;
            us.reserve(kCalls);
            for (int i = 0; i < kCalls; ++i) {
                const auto t0 = clock::now();
                call();
                us.push_back(std::chrono::duration<double, std::micro>(clock::now() - t0).count());
            }
            return median(us);
        };
        const auto to_vector_us = [&] { return per_call_us([&] { (void)small.to_vector(); }); };
        const auto upload_us = [&] { return per_call_us([&] { small.copy_from_host(host); }); };
        const auto memcpy_d2h_us = [&] {
            return per_call_us([&] {
                std::vector<float> out(n);
                BENCH_CUDA(cudaMemcpy(out.data(), raw, n * sizeof(float), cudaMemcpyDeviceToHost));
            });
        };
        const auto memcpy_h2d_us = [&] {
            return per_call_us(
                [&] { BENCH_CUDA(cudaMemcpy(raw, host.data(), n * sizeof(float), cudaMemcpyHostToDevice)); });
        };
        std::vector<BlockingLatency> rows;
        rows.push_back({"to_vector 4 KiB", to_vector_us(), "cudaMemcpy D2H (pageable)", memcpy_d2h_us()});
        rows.push_back({"copy_from_host 4 KiB", upload_us(), "cudaMemcpy H2D (pageable)", memcpy_h2d_us()});
        {
            std::vector<gpucore::Stream> idle;
            for (int k = 0; k < kIdleStreams; ++k) {
                idle.emplace_back(device_);
                small.fill_async(idle.back(), 1.0f); // each stream has had work once
                idle.back().synchronize();
            }
            rows.push_back({"to_vector 4 KiB, 4 idle streams", to_vector_us(), "cudaMemcpy D2H (pageable)",
                            memcpy_d2h_us()});
            rows.push_back({"copy_from_host 4 KiB, 4 idle streams", upload_us(), "cudaMemcpy H2D (pageable)",
                            memcpy_h2d_us()});
        }
        {
            // Streams whose handle was handed out are waited for by every blocking call (an event
            // recorded on each, and waited for on the device): the price of that rule.
            std::vector<gpucore::Stream> handed_out;
            for (int k = 0; k < kIdleStreams; ++k) {
                handed_out.emplace_back(device_);
                (void)handed_out.back().native_handle();
            }
            rows.push_back({"to_vector 4 KiB, 4 idle streams, handles taken", to_vector_us(),
                            "cudaMemcpy D2H (pageable)", memcpy_d2h_us()});
        }
        {
            // Busy: a vector_add over 2^24 floats (~0.1 ms) queued before every read.
            const std::size_t big = std::size_t{1} << 24;
            gpucore::Buffer<float> a(device_, big), c(device_, big);
            a.fill(1.0f);
            gpucore::Stream busy(device_);
            const double ours = per_call_us([&] {
                gpucore::vector_add(busy, a, a, c);
                (void)small.to_vector();
            });
            const double theirs = per_call_us([&] {
                gpucore::vector_add(busy, a, a, c);
                busy.synchronize();
                std::vector<float> out(n);
                BENCH_CUDA(cudaMemcpy(out.data(), raw, n * sizeof(float), cudaMemcpyDeviceToHost));
            });
            busy.synchronize();
            rows.push_back({"vector_add 2^24 on a stream, then to_vector 4 KiB", ours,
                            "same, stream.synchronize + cudaMemcpy", theirs});
        }
        {
            // The blocking reduce of 1024 floats, beside CUB's reduce into a device scalar the
            // caller keeps, a copy of it to the host (pageable, as a local variable; and pinned)
            // and a stream synchronize; and beside gpucore's own reduce into a one-element Buffer
            // allocated for the call, as a caller without the blocking form would write it.
            gpucore::Buffer<float> in(device_, n);
            in.fill(0.25f);
            float* pinned = nullptr;
            std::size_t temp_bytes = 0;
            BENCH_CUDA(cub::DeviceReduce::Sum(nullptr, temp_bytes, in.data(), raw, static_cast<std::int64_t>(n), peer_));
            void* temp = nullptr;
            BENCH_CUDA(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 1)));
            BENCH_CUDA(cudaMallocHost(&pinned, sizeof(float)));
            const auto cub_value_us = [&](float* host) {
                return per_call_us([&] {
                    BENCH_CUDA(cub::DeviceReduce::Sum(temp, temp_bytes, in.data(), raw, static_cast<std::int64_t>(n), peer_));
                    BENCH_CUDA(cudaMemcpyAsync(host, raw, sizeof(float), cudaMemcpyDeviceToHost, peer_));
                    BENCH_CUDA(cudaStreamSynchronize(peer_));
                });
            };
            float pageable = 0;
            const double ours = per_call_us([&] { (void)gpucore::reduce(stream_, in, gpucore::ReduceOp::sum); });
            const double fresh_buffer = per_call_us([&] {
                gpucore::Buffer<float> out(device_, 1);
                gpucore::reduce(stream_, in, out, gpucore::ReduceOp::sum);
                float value = 0;
                out.copy_to_host_async(stream_, &value, 1);
                stream_.synchronize();
            });
            const double cub_pageable = cub_value_us(&pageable);
            rows.push_back({"reduce 4 KiB (the value)", ours, "CUB Sum + cudaMemcpyAsync (pageable) + sync", cub_pageable});
            rows.push_back({"reduce 4 KiB (the value)", ours, "CUB Sum + cudaMemcpyAsync (pinned) + sync",
                            cub_value_us(pinned)});
            rows.push_back({"reduce 4 KiB into a Buffer allocated per call", fresh_buffer,
                            "CUB Sum + cudaMemcpyAsync (pageable) + sync", cub_pageable});
            cudaFreeHost(pinned);
            cudaFree(temp);
        }
        cudaFree(raw);
        return rows;
    }

private:
    template <class T>
    CaseResult named(const std::string& op, const std::string& shape, double bytes) {
        CaseResult r;
        r.op = op;
        r.dtype = dtype_name<T>();
        r.shape = shape;
        r.name = op + " " + r.dtype + " " + shape;
        r.bytes = bytes;
        return r;
    }

    gpucore::Device device_;
    gpucore::Stream stream_;
    Settings settings_;
    std::size_t flush_count_ = 0;
    gpucore::Buffer<std::uint32_t> flush_;
    gpucore::Buffer<std::uint32_t> flush_out_;
    cudaStream_t peer_ = nullptr;
    Report report_;
};

// Ratios of one dtype's run of the targets' table, keyed by row.
using Ratios = std::map<std::string, double>;

template <class T>
Ratios table_cases(Bench& bench, bool f32) {
    Report& rep = bench.report();
    Ratios ratios;
    auto add = [&](const CaseResult& c) {
        rep.cases.push_back(c);
        return c;
    };
    auto speedup = [](const CaseResult& c) { return c.peer_ms / c.gpucore_ms; };
    auto target = [&](const std::string& row, const std::string& measure, double ratio, double goal,
                      bool lower = false) {
        ratios[row] = ratio;
        if (f32) rep.targets.push_back({row, measure, ratio, goal, lower});
    };
    const std::string t = dtype_name<T>();
    const std::size_t k28 = std::size_t{1} << 28;
    target("vector_add 2^28", "thrust::transform time / gpucore time",
           speedup(add(bench.vector_add<T>(k28))), 1.00);
    target("reduce sum 2^28", "cub::DeviceReduce::Sum time / gpucore time",
           speedup(add(bench.reduce<T>(k28))), 1.00);
    for (int k : {10, 16, 20}) {
        target("reduce sum 2^" + std::to_string(k), "CUB time / gpucore time (>= 1: not slower)",
               speedup(add(bench.reduce<T>(std::size_t{1} << k))), 1.00);
    }
    target("reduce_rows 2048 x 262144", "cub::DeviceSegmentedReduce time / gpucore time",
           speedup(add(bench.reduce_rows<T>(2048, 262144))), 1.00);
    const CaseResult full = add(bench.reduce<T>(std::size_t{1} << 29));
    const CaseResult few = add(bench.reduce_rows<T>(8, std::size_t{1} << 26));
    target("reduce_rows 8 x 2^26", "GB/s / GB/s of gpucore reduce 2^29",
           few.gpucore_gbps() / full.gpucore_gbps(), 0.95);
    target("reduce_rows 2^20 x 16", "cub::DeviceSegmentedReduce time / gpucore time",
           speedup(add(bench.reduce_rows<T>(std::size_t{1} << 20, 16))), 5.00);
    for (std::size_t side : {std::size_t{16384}, std::size_t{4096}}) {
        const CaseResult c = add(bench.transpose<T>(side, side));
        target("transpose " + std::to_string(side) + "^2", "GB/s / cudaMemcpy D2D GB/s",
               c.gpucore_gbps() / c.peer_gbps(), 0.90);
    }
    const CaseResult odd = add(bench.transpose<T>(5003, 3001));
    target("transpose 5003 x 3001", "GB/s / cudaMemcpy D2D GB/s", odd.gpucore_gbps() / odd.peer_gbps(),
           0.80);
    (void)t;
    return ratios;
}

// The 16-bit float rows: vector_add and reduce 2^28 against their peers on the same type, and the
// square transposes' fraction of a D2D copy relative to f32's (`f32` from table_cases<float>).
template <class T>
void float16_cases(Bench& bench, const Ratios& f32) {
    Report& rep = bench.report();
    auto speedup = [](const CaseResult& c) { return c.peer_ms / c.gpucore_ms; };
    const std::string t = dtype_name<T>();
    const std::size_t k28 = std::size_t{1} << 28;
    const CaseResult add = bench.vector_add_16<T>(k28);
    rep.cases.push_back(add);
    rep.targets.push_back({t + ": vector_add 2^28", "thrust::transform time / gpucore time", speedup(add), 1.00});
    const CaseResult sum = bench.reduce_16<T>(k28);
    rep.cases.push_back(sum);
    rep.targets.push_back({t + ": reduce sum 2^28", "CUB TransformReduce time / gpucore time", speedup(sum), 1.00});
    for (std::size_t side : {std::size_t{16384}, std::size_t{4096}}) {
        const CaseResult c = bench.transpose<T>(side, side);
        rep.cases.push_back(c);
        const std::string row = "transpose " + std::to_string(side) + "^2";
        const double base = f32.at(row);
        rep.targets.push_back({t + ": " + row,
                               "fraction of D2D / f32's (" + std::to_string(base).substr(0, 5) + ")",
                               c.gpucore_gbps() / c.peer_gbps() / base, 0.98});
    }
}

void sweep(Bench& bench) {
    Report& rep = bench.report();
    const int saved = bench.settings().reps;
    bench.settings().reps = 10;
    auto point = [&](const std::string& op, const std::string& impl, double bytes, double ms) {
        rep.sweep.push_back({op, impl, bytes, ms});
    };
    for (int k = 16; k <= 28; k += 2) {
        const CaseResult c = bench.vector_add<float>(std::size_t{1} << k);
        point("vector_add f32", "gpucore", c.bytes, c.gpucore_ms);
        point("vector_add f32", "thrust::transform", c.bytes, c.peer_ms);
    }
    for (int k = 10; k <= 28; k += 2) {
        const CaseResult c = bench.reduce<float>(std::size_t{1} << k);
        point("reduce sum f32", "gpucore", c.bytes, c.gpucore_ms);
        point("reduce sum f32", "cub::DeviceReduce", c.bytes, c.peer_ms);
    }
    for (std::size_t side = 256; side <= 16384; side *= 2) {
        const CaseResult c = bench.transpose<float>(side, side);
        point("transpose f32 (square)", "gpucore", c.bytes, c.gpucore_ms);
    }
    for (int k = 6; k <= 18; k += 2) {
        const CaseResult c = bench.reduce_rows<float>(std::size_t{1} << k, 1024);
        point("reduce_rows f32 (rows x 1024)", "gpucore", c.bytes, c.gpucore_ms);
        point("reduce_rows f32 (rows x 1024)", "cub::DeviceSegmentedReduce", c.bytes, c.peer_ms);
    }
    for (int k = 10; k <= 22; k += 2) {
        const CaseResult c = bench.reduce_rows<float>(std::size_t{1} << k, 16);
        point("reduce_rows f32 (rows x 16)", "gpucore", c.bytes, c.gpucore_ms);
        point("reduce_rows f32 (rows x 16)", "cub::DeviceSegmentedReduce", c.bytes, c.peer_ms);
    }
    // The copy ceiling, by bytes moved (read + write).
    for (int k = 18; k <= 30; k += 2) {
        const std::size_t bytes = std::size_t{1} << k;
        void *src = nullptr, *dst = nullptr;
        BENCH_CUDA(cudaMalloc(&src, bytes));
        BENCH_CUDA(cudaMalloc(&dst, bytes));
        BENCH_CUDA(cudaMemset(src, 1, bytes));
        point("copy", "cudaMemcpy D2D", 2.0 * bytes, bench.copy_ms(dst, src, bytes));
        cudaFree(src);
        cudaFree(dst);
    }
    bench.settings().reps = saved;
}

} // namespace
} // namespace bench

int main(int argc, char** argv) {
    std::string json_path;
    bench::Settings settings;
    bool quick = false;
    bool tune = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--json" && i + 1 < argc) json_path = argv[++i];
        else if (arg == "--reps" && i + 1 < argc) settings.reps = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--quick") quick = true;
        else if (arg == "--tune") tune = true;
        else {
            std::fprintf(stderr, "usage: %s [--json FILE] [--reps N] [--quick] [--tune]\n", argv[0]);
            return arg == "--help" ? 0 : 1;
        }
    }
    try {
        bench::Bench b(settings);
        b.warm_up(1.0);
        bench::Report& rep = b.report();
        const bench::Ratios f32 = bench::table_cases<float>(b, true);
        bench::float16_cases<gpucore::half>(b, f32);
        bench::float16_cases<gpucore::bfloat16>(b, f32);
        const auto launch = b.host_launch();
        rep.launch = launch;
        rep.targets.push_back({"host time of vector_add on 32 elements",
                               "gpucore host us / raw <<<>>> host us", launch.gpucore_us / launch.raw_us,
                               1.15, true});
        rep.blocking = b.blocking_copy_latency();
        if (!quick) {
            auto within = [&](const char* dtype, const bench::Ratios& other) {
                for (const auto& [row, ratio] : other) {
                    const double base = f32.at(row);
                    rep.targets.push_back({std::string(dtype) + ": " + row,
                                           "ratio / f32 ratio (" + std::to_string(base).substr(0, 5) + ")",
                                           ratio / base, 0.90});
                }
            };
            within("f64", bench::table_cases<double>(b, false));
            within("i32", bench::table_cases<std::int32_t>(b, false));
            within("u32", bench::table_cases<std::uint32_t>(b, false));
            bench::sweep(b);
        }
        if (tune) b.tune();
        bench::print_report(rep);
        if (!json_path.empty() && !bench::write_json(rep, json_path)) {
            std::fprintf(stderr, "cannot write %s\n", json_path.c_str());
            return 1;
        }
        bool all_verified = true;
        for (const auto& c : rep.cases) all_verified = all_verified && c.verified;
        if (!all_verified) {
            std::fprintf(stderr, "some gpucore results did not verify\n");
            return 3;
        }
    } catch (const gpucore::Error& e) {
        std::fprintf(stderr, "gpucore_cuda_bench: %s\n", e.what());
        return 2;
    }
    return 0;
}

// SPDX-License-Identifier: Apache-2.0
// gpucore_multi_bench: copies between devices and work split over GPUs, beside the CUDA runtime
// doing the same, in one run (the speed targets of copies between devices):
//   - GPU -> GPU, 1 GiB: Buffer::copy_from (blocking, and async on a stream) vs cudaMemcpyPeerAsync
//   - GPU <-> cpu, 1 GiB: Buffer::copy_from vs cudaMemcpyAsync to/from cudaMallocHost memory
//   - reduce (uint32 sum) and vector_add (f32) of 2^30 elements split over 2 GPUs vs 1 GPU, data
//     resident, one stream per GPU
// Every copy and result is checked. With one GPU the GPU -> GPU and split parts are skipped, and
// the output says so.
//
//   gpucore_multi_bench [copy bytes (default 2^30)] [split elements (default 2^30)]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucore/gpucore.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kRepetitions = 10;

void check_cuda(cudaError_t err, const char* what) {
    if (err != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
        std::exit(2);
    }
}

// Best wall time in ms of `run` (which waits for its own work).
double best_ms(const std::function<void()>& run) {
    run(); // warm-up: peer access, staging pools, lazy module loading
    double best = 1e300;
    for (int i = 0; i < kRepetitions; ++i) {
        const auto start = Clock::now();
        run();
        best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    return best;
}

double gbps(double bytes, double ms) { return bytes / (ms * 1e6); }

int failures = 0;
void report(const char* what, std::size_t bytes, double ours, double theirs, const char* their_name, double target) {
    const double ratio = theirs / ours, moved = static_cast<double>(bytes);
    std::printf("%-34s gpucore %8.3f ms (%6.1f GB/s)  %-22s %8.3f ms (%6.1f GB/s)  ratio %.3f (target >= %.2f)%s\n",
                what, ours, gbps(moved, ours), their_name, theirs, gbps(moved, theirs), ratio, target,
                ratio >= target ? "" : "  BELOW TARGET");
}

void expect_equal(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& expected, const char* what) {
    if (got != expected) {
        std::printf("  WRONG: %s copied incorrectly\n", what);
        ++failures;
    }
}

std::vector<std::uint32_t> pattern(std::size_t n, std::uint32_t seed) {
    std::vector<std::uint32_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint32_t>(i * 2654435761u) ^ seed;
    return v;
}

void gpu_to_gpu(const gpucore::Device& a, const gpucore::Device& b, std::size_t n) {
    const std::size_t bytes = n * sizeof(std::uint32_t);
    const std::vector<std::uint32_t> expected = pattern(n, 1);
    gpucore::Buffer<std::uint32_t> src(a, n), dst(b, n);
    src.copy_from_host(expected);
    gpucore::Stream on_b(b);
    const double ours = best_ms([&] { dst.copy_from(src); });
    expect_equal(dst.to_vector(), expected, "GPU -> GPU");
    const double ours_async = best_ms([&] {
        dst.copy_from_async(on_b, src);
        on_b.synchronize();
    });
    cudaStream_t raw;
    check_cuda(cudaSetDevice(b.index()), "cudaSetDevice");
    check_cuda(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking), "cudaStreamCreate");
    int can = 0;
    check_cuda(cudaDeviceCanAccessPeer(&can, b.index(), a.index()), "cudaDeviceCanAccessPeer");
    if (can != 0 && cudaDeviceEnablePeerAccess(a.index(), 0) != cudaSuccess) (void)cudaGetLastError();
    const double theirs = best_ms([&] {
        check_cuda(cudaMemcpyPeerAsync(dst.data(), b.index(), src.data(), a.index(), bytes, raw), "cudaMemcpyPeerAsync");
        check_cuda(cudaStreamSynchronize(raw), "cudaStreamSynchronize");
    });
    check_cuda(cudaStreamDestroy(raw), "cudaStreamDestroy");
    std::printf("peer access %s -> %s: %s\n", a.to_string().c_str(), b.to_string().c_str(), can ? "yes" : "no");
    report("GPU->GPU copy_from", bytes, ours, theirs, "cudaMemcpyPeerAsync", 0.95);
    report("GPU->GPU copy_from_async", bytes, ours_async, theirs, "cudaMemcpyPeerAsync", 0.95);
}

void gpu_and_cpu(const gpucore::Device& gpu, const gpucore::Device& cpu, std::size_t n) {
    const std::size_t bytes = n * sizeof(std::uint32_t);
    const std::vector<std::uint32_t> expected = pattern(n, 2);
    gpucore::Buffer<std::uint32_t> on_gpu(gpu, n), on_cpu(cpu, n);
    on_gpu.copy_from_host(expected);
    const double down = best_ms([&] { on_cpu.copy_from(on_gpu); });
    expect_equal(on_cpu.to_vector(), expected, "GPU -> cpu");
    on_gpu.fill(0u);
    const double up = best_ms([&] { on_gpu.copy_from(on_cpu); });
    expect_equal(on_gpu.to_vector(), expected, "cpu -> GPU");

    void* pinned = nullptr;
    cudaStream_t raw;
    check_cuda(cudaSetDevice(gpu.index()), "cudaSetDevice");
    check_cuda(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
    check_cuda(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking), "cudaStreamCreate");
    const double raw_down = best_ms([&] {
        check_cuda(cudaMemcpyAsync(pinned, on_gpu.data(), bytes, cudaMemcpyDeviceToHost, raw), "cudaMemcpyAsync");
        check_cuda(cudaStreamSynchronize(raw), "cudaStreamSynchronize");
    });
    const double raw_up = best_ms([&] {
        check_cuda(cudaMemcpyAsync(on_gpu.data(), pinned, bytes, cudaMemcpyHostToDevice, raw), "cudaMemcpyAsync");
        check_cuda(cudaStreamSynchronize(raw), "cudaStreamSynchronize");
    });
    check_cuda(cudaStreamDestroy(raw), "cudaStreamDestroy");
    check_cuda(cudaFreeHost(pinned), "cudaFreeHost");
    report("GPU->cpu copy_from", bytes, down, raw_down, "pinned cudaMemcpyAsync", 0.9);
    report("cpu->GPU copy_from", bytes, up, raw_up, "pinned cudaMemcpyAsync", 0.9);
}

struct Shard {
    Shard(const gpucore::Device& d, std::size_t first, std::size_t count)
        : stream(d), x(d, count), a(d, count), b(d, count), c(d, count), partial(d, 1) {
        std::vector<std::uint32_t> xs(count);
        std::vector<float> as(count), bs(count);
        for (std::size_t k = 0; k < count; ++k) {
            xs[k] = static_cast<std::uint32_t>(first + k);
            as[k] = static_cast<float>((first + k) % 4096);
            bs[k] = static_cast<float>(2 * ((first + k) % 1024));
        }
        x.copy_from_host(xs);
        a.copy_from_host(as);
        b.copy_from_host(bs);
    }
    gpucore::Stream stream;
    gpucore::Buffer<std::uint32_t> x;
    gpucore::Buffer<float> a, b, c;
    gpucore::Buffer<std::uint32_t> partial;
};

struct SplitTimes {
    double reduce_ms, add_ms;
    std::uint32_t sum;
};

SplitTimes run_split(const std::vector<gpucore::Device>& gpus, std::size_t n) {
    std::vector<std::unique_ptr<Shard>> shards;
    for (std::size_t p = 0; p < gpus.size(); ++p) {
        const std::size_t first = n * p / gpus.size(), last = n * (p + 1) / gpus.size();
        shards.push_back(std::make_unique<Shard>(gpus[p], first, last - first));
    }
    auto on_all = [&](auto enqueue) {
        return best_ms([&] {
            for (auto& s : shards) enqueue(*s);
            for (auto& s : shards) s->stream.synchronize();
        });
    };
    SplitTimes t{};
    t.reduce_ms = on_all([](Shard& s) { gpucore::reduce(s.stream, s.x, s.partial, gpucore::ReduceOp::sum); });
    t.add_ms = on_all([](Shard& s) { gpucore::vector_add(s.stream, s.a, s.b, s.c); });
    for (auto& s : shards) t.sum += s->partial.to_vector()[0];
    return t;
}

void split_work(const std::vector<gpucore::Device>& gpus, std::size_t n) {
    const std::uint64_t even = n % 2 == 0 ? n / 2 : n, other = n % 2 == 0 ? n - 1 : (n - 1) / 2;
    const auto expected = static_cast<std::uint32_t>((even % (std::uint64_t{1} << 32)) * (other % (std::uint64_t{1} << 32)));
    const SplitTimes one = run_split({gpus[0]}, n);
    const SplitTimes two = run_split({gpus[0], gpus[1]}, n);
    if (one.sum != expected || two.sum != expected) {
        std::printf("  WRONG: reduce sum %u / %u, expected %u\n", one.sum, two.sum, expected);
        ++failures;
    }
    const double reduce_bytes = gpucore::op_info::reduce.bytes_moved(sizeof(std::uint32_t), 1, n);
    const double add_bytes = gpucore::op_info::vector_add.bytes_moved(sizeof(float), 1, n);
    std::printf("%-34s 2 GPUs %8.3f ms (%6.1f GB/s)  1 GPU %8.3f ms (%6.1f GB/s)  speedup %.3f (target >= 1.90)%s\n",
                "reduce u32 split", two.reduce_ms, gbps(reduce_bytes, two.reduce_ms), one.reduce_ms,
                gbps(reduce_bytes, one.reduce_ms), one.reduce_ms / two.reduce_ms,
                one.reduce_ms / two.reduce_ms >= 1.9 ? "" : "  BELOW TARGET");
    std::printf("%-34s 2 GPUs %8.3f ms (%6.1f GB/s)  1 GPU %8.3f ms (%6.1f GB/s)  speedup %.3f (target >= 1.90)%s\n",
                "vector_add f32 split", two.add_ms, gbps(add_bytes, two.add_ms), one.add_ms,
                gbps(add_bytes, one.add_ms), one.add_ms / two.add_ms,
                one.add_ms / two.add_ms >= 1.9 ? "" : "  BELOW TARGET");
}

// `text` as a count: digits only (strtoull would wrap "-1" to 2^64 - 1), 4 to 2^36.
std::size_t count(const std::string& text) {
    std::size_t value = 0;
    const bool digits = !text.empty() && text.size() <= 12 && text.find_first_not_of("0123456789") == std::string::npos;
    if (digits) value = std::stoull(text);
    if (!digits || value < 4 || value > (std::size_t{1} << 36)) {
        throw std::invalid_argument("'" + text + "' is not a count from 4 to 2^36 "
                                    "(usage: gpucore_multi_bench [copy bytes] [split elements])");
    }
    return value;
}

} // namespace

int main(int argc, char** argv) try {
    if (argc > 3) throw std::invalid_argument("usage: gpucore_multi_bench [copy bytes] [split elements]");
    const std::size_t copy_bytes = argc > 1 ? count(argv[1]) : std::size_t{1} << 30;
    const std::size_t split_elements = argc > 2 ? count(argv[2]) : std::size_t{1} << 30;
    const std::size_t words = copy_bytes / sizeof(std::uint32_t);
    std::vector<gpucore::Device> gpus;
    for (const gpucore::Device& d : gpucore::devices()) {
        if (d.backend_name() == "cuda") gpus.push_back(d);
    }
    if (gpus.empty()) {
        std::printf("gpucore_multi_bench: no cuda device: nothing to measure (skipped everything)\n");
        return 0;
    }
    std::printf("[gpucore_multi_bench] %zu cuda device(s): %s; copies of %zu bytes, split of %zu elements\n",
                gpus.size(), gpus[0].properties().name.c_str(), words * sizeof(std::uint32_t), split_elements);
    if (gpus.size() >= 2) {
        gpu_to_gpu(gpus[0], gpus[1], words);
        gpu_to_gpu(gpus[1], gpus[0], words);
    } else {
        std::printf("skipped GPU->GPU copies: only 1 cuda device\n");
    }
    gpu_and_cpu(gpus[0], gpucore::select_device("cpu"), words);
    if (gpus.size() >= 2) split_work(gpus, split_elements);
    else std::printf("skipped split over 2 GPUs: only 1 cuda device\n");
    std::printf(failures == 0 ? "every copy and result exact\n" : "WRONG RESULTS: %d\n", failures);
    return failures == 0 ? 0 : 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "gpucore_multi_bench: %s\n", e.what());
    return 1;
}

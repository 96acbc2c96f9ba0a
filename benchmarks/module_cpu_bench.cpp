// SPDX-License-Identifier: Apache-2.0
// Kernel modules on the cpu backend, beside an OpenMP loop doing the same work on the same
// machine in the same run: the saxpy module (no barriers: its threads run as plain calls) at 2^20,
// 2^24 and 2^26 floats, and the tiled matrix multiply (two barriers per tile: fibers) at several
// sizes and tiles. Times are wall-clock medians of launch + synchronize (OpenMP: the loop), with
// both sides given the device's thread count. Every module result is checked against the OpenMP
// one (saxpy exact, matmul within 1e-4 relative).
//
//   gpucore_module_cpu_bench [--reps N]
//
// It loads the examples' modules: run it with GPUCORE_MODULE_PATH naming bin/examples.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <gpucore/gpucore.hpp>

namespace {

using clock_type = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

template <class F>
double median_seconds(int reps, F&& f) {
    f(); // warm-up: pages touched, threads started
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = clock_type::now();
        f();
        t.push_back(std::chrono::duration<double>(clock_type::now() - t0).count());
    }
    return median(t);
}

struct Row {
    std::string name, unit;
    double module = 0, openmp = 0;
    double target = 0; // module / OpenMP at least this; 0 = none
    bool verified = false;
};

std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = value(random);
    return v;
}

Row saxpy_row(gpucore::Stream& stream, const gpucore::Kernel& kernel, int threads, std::size_t n, int reps) {
    const gpucore::Device& device = stream.device();
    const std::vector<float> x = random_floats(n, 1), y0 = random_floats(n, 2);
    gpucore::Buffer<float> dx(device, n), dy(device, n);
    dx.copy_from_host(x);
    dy.copy_from_host(y0);
    std::vector<float> y = y0;
    const float a = 1.25f;
    // One tile of the example's kernel (8 elements per thread) per block.
    const std::uint32_t block = 256;
    const auto blocks = static_cast<std::uint32_t>(std::min<std::size_t>((n + 8 * block - 1) / (8 * block), 65535));
    const double module_s = median_seconds(reps, [&] {
        kernel.launch(stream, {gpucore::Dim3(blocks), gpucore::Dim3(block)}, a, dx, dy, n);
        stream.synchronize();
    });
    const double openmp_s = median_seconds(reps, [&] {
        float* out = y.data();
        const float* in = x.data();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (std::size_t i = 0; i < n; ++i) out[i] = a * in[i] + out[i];
    });
    // Both sides ran 1 + reps updates of y from the same start: equal element by element.
    const std::vector<float> got = dy.to_vector();
    const bool exact = std::equal(got.begin(), got.end(), y.begin());
    const double gb = 12.0 * static_cast<double>(n) / 1e9;
    return Row{"saxpy f32 n=2^" + std::to_string(static_cast<int>(std::log2(static_cast<double>(n)))), "GB/s",
               gb / module_s, gb / openmp_s, n == std::size_t{1} << 24 ? 0.5 : 0.0, exact};
}

Row matmul_row(gpucore::Stream& stream, const gpucore::Kernel& kernel, int threads, std::uint32_t size,
               std::uint32_t tile, int reps) {
    const gpucore::Device& device = stream.device();
    const std::size_t count = std::size_t{size} * size;
    const std::vector<float> a = random_floats(count, 3), b = random_floats(count, 4);
    gpucore::Buffer<float> da(device, count), db(device, count), dc(device, count);
    da.copy_from_host(a);
    db.copy_from_host(b);
    dc.fill(-1.0f);
    const gpucore::Dim3 grid((size + tile - 1) / tile, (size + tile - 1) / tile), block(tile, tile);
    const std::size_t shared = 2u * tile * tile * sizeof(float);
    const double module_s = median_seconds(reps, [&] {
        kernel.launch(stream, {grid, block, shared}, da, db, dc, size, size, size);
        stream.synchronize();
    });
    // The OpenMP peer: the same tiling over rows, k-inner loop vectorised over columns.
    std::vector<float> c(count);
    const double openmp_s = median_seconds(reps, [&] {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (std::uint32_t i = 0; i < size; ++i) {
            float* row = &c[std::size_t{i} * size];
            std::fill(row, row + size, 0.0f);
            for (std::uint32_t k = 0; k < size; ++k) {
                const float aik = a[std::size_t{i} * size + k];
                const float* brow = &b[std::size_t{k} * size];
#pragma omp simd
                for (std::uint32_t j = 0; j < size; ++j) row[j] += aik * brow[j];
            }
        }
    });
    const std::vector<float> got = dc.to_vector();
    bool close = true;
    for (std::size_t i = 0; i < count && close; ++i) {
        close = std::fabs(got[i] - c[i]) <= 1e-4f * (std::fabs(c[i]) + 1.0f);
    }
    const double gflop = 2.0 * size * size * static_cast<double>(size) / 1e9;
    return Row{"matmul f32 " + std::to_string(size) + "^3 tile " + std::to_string(tile), "GFLOP/s",
               gflop / module_s, gflop / openmp_s, 0.0, close};
}

} // namespace

int main(int argc, char** argv) {
    int reps = 7;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--reps" && i + 1 < argc) {
            reps = std::max(1, std::atoi(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: %s [--reps N]\n", argv[0]);
            return arg == "--help" ? 0 : 1;
        }
    }
    try {
        gpucore::Device device = gpucore::select_device("cpu");
        gpucore::Stream stream(device);
        const int threads = static_cast<int>(std::max(1u, device.properties().compute_units));
        const gpucore::Kernel saxpy = gpucore::Module::load(device, "saxpy").kernel("saxpy");
        const gpucore::Kernel matmul = gpucore::Module::load(device, "matmul").kernel("matmul_tiled");
        std::vector<Row> rows;
        for (int k : {20, 24, 26}) rows.push_back(saxpy_row(stream, saxpy, threads, std::size_t{1} << k, reps));
        for (std::uint32_t tile : {8u, 16u, 32u}) rows.push_back(matmul_row(stream, matmul, threads, 256, tile, reps));
        rows.push_back(matmul_row(stream, matmul, threads, 512, 16, std::min(reps, 3)));
        std::printf("kernel modules on cpu (%d threads) beside an OpenMP loop\n", threads);
        std::printf("%-28s %-8s %10s %10s %7s %8s %s\n", "case", "unit", "module", "OpenMP", "ratio", "target",
                    "verified");
        bool all_verified = true;
        for (const Row& r : rows) {
            const double ratio = r.module / r.openmp;
            char target[16] = "-";
            if (r.target > 0) std::snprintf(target, sizeof target, ">=%.2f", r.target);
            std::printf("%-28s %-8s %10.2f %10.2f %7.3f %8s %s%s\n", r.name.c_str(), r.unit.c_str(), r.module,
                        r.openmp, ratio, target, r.verified ? "yes" : "NO",
                        r.target > 0 && ratio < r.target ? "  (target missed)" : "");
            all_verified = all_verified && r.verified;
        }
        return all_verified ? 0 : 3;
    } catch (const gpucore::Error& e) {
        std::fprintf(stderr, "gpucore_module_cpu_bench: %s\n", e.what());
        return 2;
    }
}

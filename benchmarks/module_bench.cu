// SPDX-License-Identifier: Apache-2.0
// Kernel modules on a CUDA device, beside the same kernels compiled directly into this program and
// beside thrust, in the same run: the host time of one module launch on 32 elements against a raw
// <<<>>> launch, saxpy at 2^28 floats against thrust::transform and the direct kernel (GB/s), and
// the tiled matrix multiply at several sizes and tiles against the direct kernel (GFLOP/s). Every
// result is verified against the direct kernel's (saxpy bit-exact, matmul within 1e-5). Device time:
// medians of event-timed repeats after an L2 flush (bench_support.cuh).
//
//   gpucore_module_bench [--json FILE] [--reps N]
//
// The modules are the examples' (saxpy, matmul); they are looked for as any program's are, so run
// it with GPUCORE_MODULE_PATH naming the examples' folder (tools/gpu_check.sh does).
#include <thrust/execution_policy.h>
#include <thrust/transform.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench_support.cuh"
#include "gpucore/gpucore.hpp"

// The examples' kernels, compiled here as plain CUDA kernels: the "direct" peer.
#include "../apps/examples/kernels/matmul.cu"
#include "../apps/examples/kernels/saxpy.cu"

namespace {

struct SaxpyFunctor {
    float a;
    __device__ float operator()(float x, float y) const { return a * x + y; }
};

struct Row {
    std::string name, unit;
    double module = 0, peer = 0;
    std::string peer_name;
    double target = 0; // module / peer at least this (host time: at most), 0 = none
    bool lower_is_better = false;
    bool verified = true;
};

class ModuleBench {
public:
    explicit ModuleBench(bench::Settings settings)
        : device_(gpucore::select_device("cuda")), stream_(device_), settings_(settings),
          saxpy_module_(gpucore::Module::load(device_, "saxpy")),
          matmul_module_(gpucore::Module::load(device_, "matmul")) {
        const auto& props = device_.properties();
        flush_count_ = std::max<std::size_t>(props.l2_cache_bytes * 2, std::size_t{64} << 20) / 4;
        flush_ = gpucore::Buffer<std::uint32_t>(device_, flush_count_);
        flush_out_ = gpucore::Buffer<std::uint32_t>(device_, 1);
        flush_.fill(1u);
        native_ = static_cast<cudaStream_t>(stream_.native_handle());
        name_ = props.name;
    }

    const std::string& device_name() const { return name_; }

    // Host time per enqueue on 32 elements: Kernel::launch (argument checks, the plugin's host
    // task-free launch path) against saxpy<<<1, 32>>> on the same CUDA stream.
    Row launch_host_time() {
        constexpr std::size_t n = 32;
        constexpr int kLaunches = 500, kRounds = 31;
        gpucore::Buffer<float> x(device_, n), y(device_, n);
        bench::random_fill(x.data(), n, 1);
        bench::random_fill(y.data(), n, 2);
        stream_.synchronize();
        BENCH_CUDA(cudaDeviceSynchronize());
        const gpucore::Kernel kernel = saxpy_module_.kernel("saxpy");
        std::vector<double> module_us, raw_us;
        using clock = std::chrono::steady_clock;
        for (int round = 0; round < kRounds + 2; ++round) { // two warm-up rounds
            auto t0 = clock::now();
            for (int i = 0; i < kLaunches; ++i) kernel.launch(stream_, {gpucore::Dim3(1), gpucore::Dim3(32)}, 1.0f, x, y, n);
            auto t1 = clock::now();
            stream_.synchronize();
            if (round >= 2) module_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kLaunches);
            t0 = clock::now();
            for (int i = 0; i < kLaunches; ++i) saxpy<<<1, 32, 0, native_>>>(1.0f, x.data(), y.data(), n);
            t1 = clock::now();
            BENCH_CUDA(cudaStreamSynchronize(native_));
            if (round >= 2) raw_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kLaunches);
        }
        BENCH_CUDA(cudaGetLastError());
        Row r{"launch host time, 32 elements", "us", bench::median(module_us), bench::median(raw_us), "raw <<<>>>",
              1.10, true};
        return r;
    }

    // saxpy at n floats: the module, the direct kernel (same grid) and thrust::transform.
    std::vector<Row> saxpy_rows(std::size_t n) {
        gpucore::Buffer<float> x(device_, n), y0(device_, n), y_module(device_, n), y_direct(device_, n),
            y_thrust(device_, n);
        bench::random_fill(x.data(), n, 3);
        bench::random_fill(y0.data(), n, 4);
        BENCH_CUDA(cudaDeviceSynchronize());
        // One tile of the example's kernel per block.
        const std::uint32_t threads = 256;
        const std::size_t tile = std::size_t{threads} * kSaxpyItems;
        const auto blocks = static_cast<std::uint32_t>((n + tile - 1) / tile);
        const float a = 1.5f;
        const gpucore::Kernel kernel = saxpy_module_.kernel("saxpy");
        auto copy_y = [&](gpucore::Buffer<float>& dst) {
            BENCH_CUDA(cudaMemcpyAsync(dst.data(), y0.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, native_));
        };
        // Each timed repeat updates y in place, as saxpy does; the check below runs one launch on
        // fresh copies of y.
        const double module_ms = bench::time_gpucore_ms(stream_, flush_, flush_out_, settings_, [&] {
            kernel.launch(stream_, {gpucore::Dim3(blocks), gpucore::Dim3(threads)}, a, x, y_module, n);
        });
        const double direct_ms = bench::time_gpucore_ms(stream_, flush_, flush_out_, settings_, [&] {
            saxpy<<<blocks, threads, 0, native_>>>(a, x.data(), y_direct.data(), n);
        });
        const double thrust_ms = bench::time_gpucore_ms(stream_, flush_, flush_out_, settings_, [&] {
            thrust::transform(thrust::cuda::par.on(native_), x.data(), x.data() + n, y_thrust.data(), y_thrust.data(),
                              SaxpyFunctor{a});
        });
        copy_y(y_module);
        copy_y(y_direct);
        copy_y(y_thrust);
        kernel.launch(stream_, {gpucore::Dim3(blocks), gpucore::Dim3(threads)}, a, x, y_module, n);
        saxpy<<<blocks, threads, 0, native_>>>(a, x.data(), y_direct.data(), n);
        thrust::transform(thrust::cuda::par.on(native_), x.data(), x.data() + n, y_thrust.data(), y_thrust.data(),
                          SaxpyFunctor{a});
        stream_.synchronize();
        // Bit-exact beside the same kernel; within one rounding beside thrust (whose functor may
        // or may not be contracted to an fma).
        const bool exact = bench::count_mismatches(y_module.data(), y_direct.data(), n, 0) == 0 &&
                           bench::count_mismatches(y_module.data(), y_thrust.data(), n, 1e-6) == 0;
        const double gb = 12.0 * static_cast<double>(n) / 1e9;
        const std::string shape = "saxpy f32 n=" + std::to_string(n);
        return {Row{shape, "GB/s", gb / (module_ms / 1e3), gb / (thrust_ms / 1e3), "thrust::transform", 0.98, false, exact},
                Row{shape, "GB/s", gb / (module_ms / 1e3), gb / (direct_ms / 1e3), "same kernel, direct", 0.98, false,
                    exact}};
    }

    // C = A * B, m x k times k x n, tile x tile blocks with 2 tiles of dynamic shared memory.
    Row matmul_row(std::uint32_t m, std::uint32_t n, std::uint32_t k, std::uint32_t tile) {
        gpucore::Buffer<float> a(device_, std::size_t{m} * k), b(device_, std::size_t{k} * n),
            c_module(device_, std::size_t{m} * n), c_direct(device_, std::size_t{m} * n);
        bench::random_fill(a.data(), a.size(), 5);
        bench::random_fill(b.data(), b.size(), 6);
        c_module.fill(-1.0f);
        BENCH_CUDA(cudaDeviceSynchronize());
        const gpucore::Dim3 grid((n + tile - 1) / tile, (m + tile - 1) / tile), block(tile, tile);
        const std::size_t shared = 2u * tile * tile * sizeof(float);
        const gpucore::Kernel kernel = matmul_module_.kernel("matmul_tiled");
        const double module_ms = bench::time_gpucore_ms(stream_, flush_, flush_out_, settings_, [&] {
            kernel.launch(stream_, {grid, block, shared}, a, b, c_module, m, n, k);
        });
        const double direct_ms = bench::time_gpucore_ms(stream_, flush_, flush_out_, settings_, [&] {
            matmul_tiled<<<dim3(grid.x, grid.y), dim3(tile, tile), shared, native_>>>(a.data(), b.data(),
                                                                                     c_direct.data(), m, n, k);
        });
        stream_.synchronize();
        const bool exact = bench::count_mismatches(c_module.data(), c_direct.data(), c_module.size(), 1e-5) == 0;
        const double gflop = 2.0 * m * n * static_cast<double>(k) / 1e9;
        return Row{"matmul f32 " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
                       " tile " + std::to_string(tile),
                   "GFLOP/s", gflop / (module_ms / 1e3), gflop / (direct_ms / 1e3), "same kernel, direct", 0.98,
                   false, exact};
    }

private:
    gpucore::Device device_;
    gpucore::Stream stream_;
    bench::Settings settings_;
    gpucore::Module saxpy_module_, matmul_module_;
    std::size_t flush_count_ = 0;
    gpucore::Buffer<std::uint32_t> flush_, flush_out_;
    cudaStream_t native_ = nullptr;
    std::string name_;
};

bool meets(const Row& r) {
    if (r.target == 0) return true;
    const double ratio = r.module / r.peer;
    return r.lower_is_better ? ratio <= r.target : ratio >= r.target;
}

void print(const std::vector<Row>& rows, const std::string& device) {
    std::printf("kernel modules on %s\n", device.c_str());
    std::printf("%-40s %-8s %12s %12s  %-20s %7s %8s %s\n", "case", "unit", "module", "peer", "peer", "ratio",
                "target", "verified");
    for (const Row& r : rows) {
        char target[32] = "-";
        if (r.target != 0) std::snprintf(target, sizeof target, "%s%.2f", r.lower_is_better ? "<=" : ">=", r.target);
        std::printf("%-40s %-8s %12.3f %12.3f  %-20s %7.3f %8s %s%s\n", r.name.c_str(), r.unit.c_str(), r.module,
                    r.peer, r.peer_name.c_str(), r.module / r.peer, target, r.verified ? "yes" : "NO",
                    meets(r) ? "" : "  (target missed)");
    }
}

bool write_json(const std::vector<Row>& rows, const std::string& device, const std::string& path) {
    std::ofstream out(path);
    out << "{\n  \"device\": \"" << device << "\",\n  \"rows\": [\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        out << "    {\"case\": \"" << r.name << "\", \"unit\": \"" << r.unit << "\", \"module\": " << r.module
            << ", \"peer\": " << r.peer << ", \"peer_name\": \"" << r.peer_name << "\", \"ratio\": " << r.module / r.peer
            << ", \"target\": " << r.target << ", \"lower_is_better\": " << (r.lower_is_better ? "true" : "false")
            << ", \"met\": " << (meets(r) ? "true" : "false") << ", \"verified\": " << (r.verified ? "true" : "false")
            << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
    return static_cast<bool>(out);
}

} // namespace

int main(int argc, char** argv) {
    std::string json_path;
    bench::Settings settings;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--json" && i + 1 < argc) json_path = argv[++i];
        else if (arg == "--reps" && i + 1 < argc) settings.reps = std::max(1, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: %s [--json FILE] [--reps N]\n", argv[0]);
            return arg == "--help" ? 0 : 1;
        }
    }
    try {
        ModuleBench bench(settings);
        std::vector<Row> rows;
        rows.push_back(bench.launch_host_time());
        for (std::size_t n : {std::size_t{1} << 20, std::size_t{1} << 24, std::size_t{1} << 28}) {
            for (Row& r : bench.saxpy_rows(n)) {
                if (n != std::size_t{1} << 28) r.target = 0; // the target is set at 2^28
                rows.push_back(r);
            }
        }
        for (std::uint32_t tile : {16u, 32u}) {
            rows.push_back(bench.matmul_row(1024, 1024, 1024, tile));
            rows.push_back(bench.matmul_row(4096, 4096, 4096, tile));
            rows.push_back(bench.matmul_row(3001, 2999, 1031, tile));
        }
        print(rows, bench.device_name());
        if (!json_path.empty() && !write_json(rows, bench.device_name(), json_path)) {
            std::fprintf(stderr, "cannot write %s\n", json_path.c_str());
            return 1;
        }
        for (const Row& r : rows) {
            if (!r.verified) {
                std::fprintf(stderr, "a module result did not verify: %s\n", r.name.c_str());
                return 3;
            }
        }
    } catch (const gpucore::Error& e) {
        std::fprintf(stderr, "gpucore_module_bench: %s\n", e.what());
        return 2;
    }
    return 0;
}

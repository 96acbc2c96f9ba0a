// SPDX-License-Identifier: Apache-2.0
// --tune: times the plugin's kernel templates with other tuning values than TuningPolicy's, by
// raw launches on the same inputs, so one GPU run can show whether a policy value should change.
// Results are printed; they are not gpucore's numbers (those come through the public API).
#pragma once

#include <cub/cub.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench_support.cuh"
#include "kernels/elementwise_kernels.cuh"
#include "kernels/reduce_kernel.cuh"
#include "kernels/reduce_ops.cuh"
#include "kernels/reduce_rows_kernels.cuh"
#include "kernels/transpose_kernel.cuh"
#include "tuning_policy.hpp"

namespace bench {

struct Variant {
    std::string what;
    double ms = 0;
    double gbps = 0;
};

class Tuner {
public:
    Tuner(cudaStream_t stream, void* flush, std::size_t flush_bytes, Settings s, int sms)
        : stream_(stream), flush_(flush), flush_bytes_(flush_bytes), s_(s), sms_(sms) {}

    template <class Launch>
    void time(const std::string& what, double bytes, Launch&& launch) {
        const double ms = time_cuda_ms(stream_, flush_, flush_bytes_, s_, launch);
        results_.push_back({what, ms, bytes / ms / 1e6});
    }

    template <int kTile, int kRows>
    void transpose(const std::uint32_t* in, std::uint32_t* out, std::size_t rows, std::size_t cols) {
        const std::size_t tiles = ((rows + kTile - 1) / kTile) * ((cols + kTile - 1) / kTile);
        time("transpose " + std::to_string(rows) + "x" + std::to_string(cols) + " tile " +
                 std::to_string(kTile) + "x" + std::to_string(kRows),
             8.0 * rows * cols, [&] {
                 using gpucore::gpu::transpose_kernel;
                 using Word = std::uint32_t;
                 const auto kernel = gpucore::gpu::TuningPolicy::Transpose::tiles_down(4 * rows * cols)
                                         ? transpose_kernel<Word, Word, kTile, kRows, 0, true>
                                         : transpose_kernel<Word, Word, kTile, kRows, 0, false>;
                 kernel<<<static_cast<unsigned>(tiles), dim3(kTile, kRows), 0, stream_>>>(
                     in, out, static_cast<std::uint32_t>(rows), static_cast<std::uint32_t>(cols));
             });
    }

    template <int kThreadsX, int kThreadsY>
    void transpose_vector(const std::uint32_t* in, std::uint32_t* out, std::size_t rows, std::size_t cols) {
        constexpr int kTile = kThreadsX * 4;
        const std::size_t tiles = ((rows + kTile - 1) / kTile) * ((cols + kTile - 1) / kTile);
        time("transpose " + std::to_string(rows) + "x" + std::to_string(cols) + " vector " +
                 std::to_string(kThreadsX) + "x" + std::to_string(kThreadsY),
             8.0 * rows * cols, [&] {
                 using gpucore::gpu::transpose_vector_kernel;
                 const auto kernel = gpucore::gpu::TuningPolicy::Transpose::tiles_down(4 * rows * cols)
                                         ? transpose_vector_kernel<std::uint32_t, kThreadsX, kThreadsY, true>
                                         : transpose_vector_kernel<std::uint32_t, kThreadsX, kThreadsY, false>;
                 kernel<<<static_cast<unsigned>(tiles), dim3(kThreadsX, kThreadsY), 0, stream_>>>(in, out, rows,
                                                                                                 cols);
             });
    }

    template <int kThreads, int kPacks, bool kStreaming = false>
    void vector_add(const float* a, const float* b, float* c, std::size_t n, int blocks_per_sm_cap) {
        std::size_t grid = (n + kThreads * kPacks * 4 - 1) / (kThreads * kPacks * 4);
        if (blocks_per_sm_cap > 0) grid = std::min<std::size_t>(grid, std::size_t(sms_) * blocks_per_sm_cap);
        time("vector_add 2^28 threads " + std::to_string(kThreads) + " packs " + std::to_string(kPacks) +
                 " cap " + std::to_string(blocks_per_sm_cap) + (kStreaming ? " streaming stores" : ""),
             12.0 * n, [&] {
                 gpucore::gpu::vector_add_kernel<float, kThreads, kPacks, true, kStreaming>
                     <<<static_cast<unsigned>(grid), kThreads, 0, stream_>>>(a, b, c, n);
             });
    }

    // The single-pass reduce over device type D (float, __half, __nv_bfloat16) with at most one
    // full wave of resident blocks, as the launcher sizes it.
    template <class D, int kThreads, int kPacks, int kMinBlocks = 1>
    void reduce_typed(const char* type, const D* in, std::size_t n, D* out, void* partials, unsigned* ticket) {
        using Acc = gpucore::gpu::accumulator_of_t<D>;
        constexpr auto kernel = gpucore::gpu::reduce_single_pass_kernel<D, gpucore::gpu::SumOp, kThreads, kPacks, kMinBlocks>;
        int per_sm = 0;
        BENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
        constexpr std::size_t lanes = 16 / sizeof(D);
        std::size_t grid = (n + kThreads * kPacks * lanes - 1) / (kThreads * kPacks * lanes);
        grid = std::min<std::size_t>(grid, std::size_t(sms_) * per_sm);
        grid = std::min<std::size_t>(grid, gpucore::gpu::TuningPolicy::Scratch::kPartialSlots);
        time(std::string("reduce ") + type + " 2^28 threads " + std::to_string(kThreads) + " packs " +
                 std::to_string(kPacks) + " min " + std::to_string(kMinBlocks) + " blocks " + std::to_string(grid) + " (" +
                 std::to_string(per_sm) + "/SM)",
             double(sizeof(D)) * n, [&] {
                 kernel<<<static_cast<unsigned>(grid), kThreads, 0, stream_>>>(in, n, out, static_cast<Acc*>(partials),
                                                                              ticket);
             });
    }

    // CUB's reduce of the same input, widening to float (the benchmark's peer).
    template <class D>
    void reduce_cub(const char* type, const D* in, std::size_t n, float* out) {
        const WidenToFloat widen;
        const FloatSum sum;
        std::size_t temp_bytes = 0;
        BENCH_CUDA(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, in, out, static_cast<std::int64_t>(n), sum,
                                                      widen, 0.0f, stream_));
        void* temp = nullptr;
        BENCH_CUDA(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 1)));
        time(std::string("reduce ") + type + " 2^28 cub::DeviceReduce::TransformReduce (float)", double(sizeof(D)) * n,
             [&] {
                 BENCH_CUDA(cub::DeviceReduce::TransformReduce(temp, temp_bytes, in, out,
                                                               static_cast<std::int64_t>(n), sum, widen, 0.0f,
                                                               stream_));
             });
        cudaFree(temp);
    }

    // Every reduce variant for one device type, with CUB's between them (two alternations).
    template <class D>
    void reduce_sweep(const char* type, const D* in, std::size_t n, D* out, float* cub_out, void* partials,
                      unsigned* ticket) {
        for (int round = 0; round < 2; ++round) {
            reduce_cub(type, in, n, cub_out);
            reduce_typed<D, 256, 4>(type, in, n, out, partials, ticket);
            reduce_typed<D, 256, 2>(type, in, n, out, partials, ticket);
            reduce_typed<D, 256, 2, 3>(type, in, n, out, partials, ticket);
            reduce_typed<D, 256, 2, 4>(type, in, n, out, partials, ticket);
            reduce_typed<D, 256, 4, 3>(type, in, n, out, partials, ticket);
            reduce_typed<D, 256, 4, 4>(type, in, n, out, partials, ticket);
            reduce_typed<D, 256, 1, 4>(type, in, n, out, partials, ticket);
            reduce_typed<D, 512, 2, 2>(type, in, n, out, partials, ticket);
            reduce_typed<D, 1024, 2>(type, in, n, out, partials, ticket);
            reduce_typed<D, 1024, 1>(type, in, n, out, partials, ticket);
            reduce_typed<D, 1024, 4>(type, in, n, out, partials, ticket);
            reduce_cub(type, in, n, cub_out);
        }
    }

    template <int kThreads, int kRowsInFlight>
    void rows16(const float* in, std::size_t rows, float* out, int blocks_per_sm) {
        const unsigned grid = static_cast<unsigned>(sms_ * blocks_per_sm);
        time("reduce_rows 2^20x16 threads " + std::to_string(kThreads) + " rows/flight " +
                 std::to_string(kRowsInFlight) + " blocks/SM " + std::to_string(blocks_per_sm),
             64.0 * rows, [&] {
                 gpucore::gpu::reduce_rows_subwarp_kernel<float, gpucore::gpu::SumOp, 16, 1, kThreads, kRowsInFlight>
                     <<<grid, kThreads, 0, stream_>>>(in, rows, 16, out);
             });
    }

    template <int kThreads, int kPacks>
    void rows_block(const float* in, std::size_t rows, std::size_t cols, std::size_t split, float* out,
                    float* partials, unsigned* tickets) {
        time("reduce_rows " + std::to_string(rows) + "x" + std::to_string(cols) + " threads " +
                 std::to_string(kThreads) + " packs " + std::to_string(kPacks) + " split " +
                 std::to_string(split),
             4.0 * rows * cols, [&] {
                 // One minimum block per SM, as the launcher gives the split kernel.
                 gpucore::gpu::reduce_rows_block_kernel<float, gpucore::gpu::SumOp, kThreads, kPacks, 1>
                     <<<static_cast<unsigned>(rows * split), kThreads, 0, stream_>>>(in, rows, cols, split, out,
                                                                                    partials, tickets);
             });
    }

    void print() const {
        std::printf("\ntuning variants (raw launches of the plugin's kernel templates)\n");
        for (const Variant& v : results_) std::printf("  %-64s %9.4f ms %8.1f GB/s\n", v.what.c_str(), v.ms, v.gbps);
    }

private:
    cudaStream_t stream_;
    void* flush_;
    std::size_t flush_bytes_;
    Settings s_;
    int sms_;
    std::vector<Variant> results_;
};

// Runs every variant on fresh device buffers.
inline void run_tuning(cudaStream_t stream, void* flush, std::size_t flush_bytes, Settings s) {
    int sms = 0;
    BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    Tuner t(stream, flush, flush_bytes, s, sms);
    const std::size_t n = std::size_t{1} << 28;
    float *a, *b, *c, *partials;
    unsigned* tickets;
    BENCH_CUDA(cudaMalloc(&a, n * 4));
    BENCH_CUDA(cudaMalloc(&b, n * 4));
    BENCH_CUDA(cudaMalloc(&c, n * 4));
    BENCH_CUDA(cudaMalloc(&partials, 65536 * 8));
    BENCH_CUDA(cudaMalloc(&tickets, 65536 * 4));
    BENCH_CUDA(cudaMemset(tickets, 0, 65536 * 4));
    random_fill(a, n, 11);
    random_fill(b, n, 12);
    BENCH_CUDA(cudaDeviceSynchronize());
    // transpose
    auto* ta = reinterpret_cast<const std::uint32_t*>(a);
    auto* tc = reinterpret_cast<std::uint32_t*>(c);
    for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{16384, 16384}, {4096, 4096}, {5003, 3001}}) {
        t.transpose<64, 8>(ta, tc, rows, cols);
        t.transpose<32, 8>(ta, tc, rows, cols);
        t.transpose<32, 2>(ta, tc, rows, cols);
        t.transpose<64, 2>(ta, tc, rows, cols);
        if (rows % 4 == 0 && cols % 4 == 0) {
            t.transpose_vector<8, 8>(ta, tc, rows, cols);
            t.transpose_vector<8, 4>(ta, tc, rows, cols);
            t.transpose_vector<8, 2>(ta, tc, rows, cols);
            t.transpose_vector<16, 4>(ta, tc, rows, cols);
            t.transpose_vector<4, 4>(ta, tc, rows, cols);
        }
    }
    // vector_add
    t.vector_add<256, 4>(a, b, c, n, 0);
    t.vector_add<256, 4, true>(a, b, c, n, 0);
    t.vector_add<256, 1>(a, b, c, n, 0);
    t.vector_add<256, 1, true>(a, b, c, n, 0);
    t.vector_add<256, 2, true>(a, b, c, n, 0);
    // reduce of every float width against CUB (n elements: 2^28)
    t.reduce_sweep<float>("f32", a, n, c, reinterpret_cast<float*>(b), partials, tickets);
    t.reduce_sweep<__half>("f16", reinterpret_cast<const __half*>(a), n, reinterpret_cast<__half*>(c),
                           reinterpret_cast<float*>(b), partials, tickets);
    t.reduce_sweep<__nv_bfloat16>("bf16", reinterpret_cast<const __nv_bfloat16*>(a), n,
                                  reinterpret_cast<__nv_bfloat16*>(c), reinterpret_cast<float*>(b), partials,
                                  tickets);
    // reduce_rows long rows
    for (std::size_t split : {1, 2}) {
        t.rows_block<256, 2>(a, 2048, 131072, split, c, partials, tickets);
        t.rows_block<256, 1>(a, 2048, 131072, split, c, partials, tickets);
        t.rows_block<512, 2>(a, 2048, 131072, split, c, partials, tickets);
        t.rows_block<128, 2>(a, 2048, 131072, split, c, partials, tickets);
        t.rows_block<512, 1>(a, 2048, 131072, split, c, partials, tickets);
    }
    t.rows_block<256, 2>(a, 8, std::size_t{1} << 25, 132, c, partials, tickets);
    t.rows_block<256, 2>(a, 8, std::size_t{1} << 25, 264, c, partials, tickets);
    t.print();
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(partials);
    cudaFree(tickets);
}

} // namespace bench

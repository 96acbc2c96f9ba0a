// SPDX-License-Identifier: Apache-2.0
// Support for the CUDA benchmark: medians, event timing of gpucore work (gpucore::Event on a
// gpucore::Stream) and of peer work (cudaEvent on a cudaStream_t), each sample preceded by an L2
// flush on the same stream so inputs are never cache-resident, device-side random inputs and
// device-side comparisons (no multi-GiB copies to the host).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpucore/gpucore.hpp"

namespace bench {

#define BENCH_CUDA(call)                                                                          \
    do {                                                                                          \
        const cudaError_t bench_err = (call);                                                     \
        if (bench_err != cudaSuccess) {                                                           \
            std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #call, cudaGetErrorString(bench_err), \
                         __FILE__, __LINE__);                                                     \
            std::exit(2);                                                                         \
        }                                                                                         \
    } while (0)

inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

struct Settings {
    int warmup = 3;
    int reps = 15; // per round; cases time two alternating rounds
};

// Times enqueue() on a gpucore stream: per sample, the flush buffer (twice the L2) is READ by a
// reduce, evicting the L2 and leaving only clean lines (a write-based flush would leave the L2
// full of dirty lines, whose write-back then lands inside the timed work: seen as 15-35 us on an
// H200, and memset and kernel writes leave different states, which made gpucore and peers
// unequal), then start event, the work, end event. Everything is queued before one synchronize,
// so the flush hides the host's enqueue time and the events measure device time.
template <class Enqueue>
double time_gpucore_ms(gpucore::Stream& stream, gpucore::Buffer<std::uint32_t>& flush,
                       gpucore::Buffer<std::uint32_t>& flush_out, const Settings& s,
                       Enqueue&& enqueue) {
    const int total = s.warmup + s.reps;
    std::vector<gpucore::Event> starts, ends;
    for (int i = 0; i < total; ++i) {
        starts.emplace_back(stream.device());
        ends.emplace_back(stream.device());
    }
    for (int i = 0; i < total; ++i) {
        gpucore::reduce(stream, flush, flush_out, gpucore::ReduceOp::max);
        starts[static_cast<std::size_t>(i)].record(stream);
        enqueue();
        ends[static_cast<std::size_t>(i)].record(stream);
    }
    stream.synchronize();
    std::vector<double> times;
    for (int i = s.warmup; i < total; ++i) {
        times.push_back(gpucore::elapsed_ms(starts[static_cast<std::size_t>(i)],
                                            ends[static_cast<std::size_t>(i)]));
    }
    return median(times);
}

// Reads `n` words (the peer side's L2 flush, as time_gpucore_ms's).
__global__ void read_flush_kernel(const uint4* words, std::size_t n, unsigned int* out) {
    unsigned int acc = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const uint4 v = __ldg(words + i);
        acc = max(acc, max(max(v.x, v.y), max(v.z, v.w)));
    }
    if (acc == 0xFFFFFFFFu) *out = acc; // never true for the flush contents: keeps the loads alive
}

// The same for peer work on a raw CUDA stream.
template <class Enqueue>
double time_cuda_ms(cudaStream_t stream, void* flush, std::size_t flush_bytes, const Settings& s,
                    Enqueue&& enqueue) {
    const int total = s.warmup + s.reps;
    std::vector<cudaEvent_t> starts(static_cast<std::size_t>(total)),
        ends(static_cast<std::size_t>(total));
    for (int i = 0; i < total; ++i) {
        BENCH_CUDA(cudaEventCreate(&starts[static_cast<std::size_t>(i)]));
        BENCH_CUDA(cudaEventCreate(&ends[static_cast<std::size_t>(i)]));
    }
    for (int i = 0; i < total; ++i) {
        read_flush_kernel<<<1056, 256, 0, stream>>>(static_cast<const uint4*>(flush), flush_bytes / 16,
                                                     static_cast<unsigned int*>(flush));
        BENCH_CUDA(cudaEventRecord(starts[static_cast<std::size_t>(i)], stream));
        enqueue();
        BENCH_CUDA(cudaGetLastError());
        BENCH_CUDA(cudaEventRecord(ends[static_cast<std::size_t>(i)], stream));
    }
    BENCH_CUDA(cudaStreamSynchronize(stream));
    std::vector<double> times;
    for (int i = s.warmup; i < total; ++i) {
        float ms = 0;
        BENCH_CUDA(cudaEventElapsedTime(&ms, starts[static_cast<std::size_t>(i)],
                                        ends[static_cast<std::size_t>(i)]));
        times.push_back(ms);
    }
    for (int i = 0; i < total; ++i) {
        cudaEventDestroy(starts[static_cast<std::size_t>(i)]);
        cudaEventDestroy(ends[static_cast<std::size_t>(i)]);
    }
    return median(times);
}

// ---- device-side inputs and checks ----------------------------------------------------------------

__host__ __device__ inline std::uint32_t hash32(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return static_cast<std::uint32_t>(x);
}

// Floats uniform in [0, 1) (24-bit grid: exact in f32), integers uniform over all 32-bit values.
// The CUDA type of an element type: __half and __nv_bfloat16 for gpucore's 16-bit float host
// types (same bits), the type itself otherwise. Peers (thrust, CUB) and the helper kernels use it.
template <class T>
struct CudaElement {
    using type = T;
};
template <>
struct CudaElement<gpucore::half> {
    using type = __half;
};
template <>
struct CudaElement<gpucore::bfloat16> {
    using type = __nv_bfloat16;
};
template <class T>
using cuda_t = typename CudaElement<T>::type;
template <class T>
cuda_t<T>* as_cuda(T* p) {
    return reinterpret_cast<cuda_t<T>*>(p);
}

// CUB's operators for the reductions that widen to float (the 16-bit peers): widen each element,
// add in float.
struct WidenToFloat {
    template <class D>
    __device__ float operator()(D x) const { return static_cast<float>(x); }
};
struct FloatSum {
    __device__ float operator()(float a, float b) const { return a + b; }
};

// The 16-bit float peers' arithmetic, as gpucore's: widen to float, round once.
__device__ __forceinline__ float widen(__half x) { return __half2float(x); }
__device__ __forceinline__ float widen(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class D>
__device__ __forceinline__ D round_to(float x) {
    if constexpr (std::is_same_v<D, __half>) return __float2half_rn(x);
    else return __float2bfloat16_rn(x);
}
template <class D>
struct AddInFloat {
    __device__ D operator()(D a, D b) const { return round_to<D>(widen(a) + widen(b)); }
};

struct RowStart { // offset of row r: r * cols (int: every shape here has < 2^31 elements)
    int cols;
    __host__ __device__ int operator()(int r) const { return r * cols; }
};

// Floats in [0, 1); 16-bit floats in [-1, 1) (a sum of 2^28 of them stays within f16's range);
// integers over their whole range.
template <class T>
__global__ void random_fill_kernel(T* out, std::size_t n, std::uint64_t seed) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const std::uint32_t h = hash32(seed * 0x9E3779B97F4A7C15ull + i);
        if constexpr (std::is_floating_point_v<T>) out[i] = static_cast<T>(h >> 8) / T(16777216);
        else if constexpr (sizeof(T) == 2) out[i] = T(static_cast<float>(h >> 8) / 8388608.0f - 1.0f);
        else out[i] = static_cast<T>(h);
    }
}

template <class T>
void random_fill(T* out, std::size_t n, std::uint64_t seed) {
    random_fill_kernel<<<1024, 256>>>(as_cuda(out), n, seed);
    BENCH_CUDA(cudaGetLastError());
}

// Runs launch(counter), a kernel that adds to a zeroed device counter, and returns the count.
template <class Launch>
unsigned long long device_count(Launch&& launch) {
    unsigned long long* counter = nullptr;
    BENCH_CUDA(cudaMalloc(&counter, sizeof *counter));
    BENCH_CUDA(cudaMemset(counter, 0, sizeof *counter));
    launch(counter);
    BENCH_CUDA(cudaGetLastError());
    unsigned long long count = 0;
    BENCH_CUDA(cudaMemcpy(&count, counter, sizeof count, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaFree(counter));
    return count;
}

// Keeps the GPU busy for `seconds` with device-to-device copies between the two halves of
// `scratch` (`bytes` long, every word alike: the copies change nothing), so that the first timed
// case does not meet an idle GPU's clocks (an H200 idles near 500 MHz).
inline void keep_busy(void* scratch, std::size_t bytes, cudaStream_t stream, double seconds) {
    const std::size_t half = bytes / 2;
    auto* data = static_cast<unsigned char*>(scratch);
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
        for (int i = 0; i < 20; ++i) {
            BENCH_CUDA(cudaMemcpyAsync(data + half, data, half, cudaMemcpyDeviceToDevice, stream));
        }
        BENCH_CUDA(cudaStreamSynchronize(stream));
    }
}

// Counts elements where got and want differ by more than rel * |want| (exact for rel == 0).
template <class T>
__global__ void count_mismatches_kernel(const T* got, const T* want, std::size_t n, double rel,
                                        unsigned long long* mismatches) {
    unsigned long long local = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const double g = static_cast<double>(got[i]);
        const double w = static_cast<double>(want[i]);
        const bool bad = rel == 0 ? got[i] != want[i] : !(fabs(g - w) <= rel * fabs(w) + 1e-30);
        local += bad ? 1 : 0;
    }
    if (local) atomicAdd(mismatches, local);
}

template <class T>
unsigned long long count_mismatches(const T* got, const T* want, std::size_t n, double rel) {
    return device_count([&](unsigned long long* counter) {
        count_mismatches_kernel<<<1024, 256>>>(got, want, n, rel, counter);
    });
}

// Counts positions where out (cols x rows) is not the transpose of in (rows x cols).
template <class T>
__global__ void count_transpose_mismatches_kernel(const T* in, const T* out, std::size_t rows,
                                                  std::size_t cols,
                                                  unsigned long long* mismatches) {
    unsigned long long local = 0;
    const std::size_t n = rows * cols;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const std::size_t r = i / cols, c = i % cols;
        local += in[i] != out[c * rows + r] ? 1 : 0;
    }
    if (local) atomicAdd(mismatches, local);
}

template <class T>
unsigned long long count_transpose_mismatches(const T* in, const T* out, std::size_t rows,
                                              std::size_t cols) {
    return device_count([&](unsigned long long* counter) {
        count_transpose_mismatches_kernel<<<1024, 256>>>(in, out, rows, cols, counter);
    });
}

} // namespace bench

// SPDX-License-Identifier: Apache-2.0
// Plumbing of the lessons' ladder benchmark, written once for CUDA and HIP against the neutral
// names of backends/gpu/gpu_vendor.hpp: the error check, the device-side input fill, the L2 flush
// and the event timing of raw launches (on a gpuStream_t) and of gpucore work (on a gpucore::Stream).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_vendor.hpp"
#include "gpucore/gpucore.hpp"

namespace ladder {

// A failed runtime call ends the benchmark with the call's text, file and line.
inline void check_gpu(gpuError_t err, const char* call, const char* file, int line) {
    if (err != gpuSuccess) {
        throw std::runtime_error(std::string(call) + " failed: " + gpuGetErrorString(err) + " (" +
                                 file + ":" + std::to_string(line) + ")");
    }
}
#define LADDER_CHECK(call) ::ladder::check_gpu((call), #call, __FILE__, __LINE__)

inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

__host__ __device__ inline std::uint32_t hash32(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return static_cast<std::uint32_t>(x);
}

// Small non-negative integers as floats (value = hash & mask): any sum below 2^24 of them is exact
// in f32 whatever the order of the additions, so such results verify exactly.
__global__ void fill_integers_kernel(float* out, std::size_t n, std::uint64_t seed, std::uint32_t mask) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        out[i] = static_cast<float>(hash32(seed * 0x9E3779B97F4A7C15ull + i) & mask);
    }
}

inline void fill_integers(float* out, std::size_t n, std::uint64_t seed, std::uint32_t mask,
                          gpuStream_t stream) {
    fill_integers_kernel<<<1024, 256, 0, stream>>>(out, n, seed, mask);
    LADDER_CHECK(gpuGetLastError());
    LADDER_CHECK(gpuStreamSynchronize(stream));
}

// Reads `n` 16-byte words and keeps the loads alive (the flush words are ones: never all ones).
__global__ void read_flush_kernel(const uint4* words, std::size_t n, unsigned int* sink) {
    unsigned int acc = 0;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const uint4 v = words[i];
        acc |= v.x | v.y | v.z | v.w;
    }
    if (acc == 0xFFFFFFFFu) *sink = acc;
}

struct Repeats {
    int warmup = 3;
    int reps = 15;
};

// Evicts the L2 before each timed sample by reading a buffer twice its size (a read leaves only
// clean lines, so no write-back lands in the timed work), on whichever stream times the sample.
class L2Flush {
public:
    explicit L2Flush(const gpucore::Device& device)
        : words_(device, std::max<std::size_t>(device.properties().l2_cache_bytes * 2,
                                               std::size_t{64} << 20) / 4),
          out_(device, 1) {
        words_.fill(1u);
    }
    void on(gpuStream_t stream) {
        read_flush_kernel<<<1024, 256, 0, stream>>>(reinterpret_cast<const uint4*>(words_.data()),
                                                    words_.size() / 4, out_.data());
    }
    void on(gpucore::Stream& stream) { gpucore::reduce(stream, words_, out_, gpucore::ReduceOp::max); }

private:
    gpucore::Buffer<std::uint32_t> words_;
    gpucore::Buffer<std::uint32_t> out_;
};

// Median device time of `enqueue` on a raw stream: per sample prepare() (untimed: e.g. restoring
// an input the kernel overwrites), the flush, start event, the work, end event; all queued before
// one synchronize, so the host's enqueue time stays out of the measurement.
template <class Prepare, class Enqueue>
double time_raw_ms(gpuStream_t stream, L2Flush& flush, const Repeats& r, Prepare&& prepare,
                   Enqueue&& enqueue) {
    const int total = r.warmup + r.reps;
    std::vector<gpuEvent_t> starts(static_cast<std::size_t>(total)), ends(starts.size());
    for (std::size_t i = 0; i < starts.size(); ++i) {
        LADDER_CHECK(gpuEventCreate(&starts[i]));
        LADDER_CHECK(gpuEventCreate(&ends[i]));
    }
    for (std::size_t i = 0; i < starts.size(); ++i) {
        prepare();
        flush.on(stream);
        LADDER_CHECK(gpuEventRecord(starts[i], stream));
        enqueue();
        LADDER_CHECK(gpuGetLastError());
        LADDER_CHECK(gpuEventRecord(ends[i], stream));
    }
    LADDER_CHECK(gpuStreamSynchronize(stream));
    std::vector<double> times;
    for (std::size_t i = static_cast<std::size_t>(r.warmup); i < starts.size(); ++i) {
        float ms = 0;
        LADDER_CHECK(gpuEventElapsedTime(&ms, starts[i], ends[i]));
        times.push_back(ms);
    }
    for (std::size_t i = 0; i < starts.size(); ++i) {
        LADDER_CHECK(gpuEventDestroy(starts[i]));
        LADDER_CHECK(gpuEventDestroy(ends[i]));
    }
    return median(times);
}

// The same for gpucore work, timed with gpucore::Event on a gpucore::Stream.
template <class Enqueue>
double time_gpucore_ms(gpucore::Stream& stream, L2Flush& flush, const Repeats& r, Enqueue&& enqueue) {
    const int total = r.warmup + r.reps;
    std::vector<gpucore::Event> starts, ends;
    for (int i = 0; i < total; ++i) {
        starts.emplace_back(stream.device());
        ends.emplace_back(stream.device());
    }
    for (std::size_t i = 0; i < starts.size(); ++i) {
        flush.on(stream);
        starts[i].record(stream);
        enqueue();
        ends[i].record(stream);
    }
    stream.synchronize();
    std::vector<double> times;
    for (std::size_t i = static_cast<std::size_t>(r.warmup); i < starts.size(); ++i) {
        times.push_back(gpucore::elapsed_ms(starts[i], ends[i]));
    }
    return median(times);
}

} // namespace ladder

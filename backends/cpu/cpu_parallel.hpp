// Small helpers shared by the kernels for splitting a range over an OpenMP team.
#pragma once

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>

namespace gpucore::cpu {

// Below this many bytes of traffic a kernel runs on the calling thread: waking a team costs a few
// microseconds, which is more than the work itself.
inline constexpr std::size_t kParallelThresholdBytes = std::size_t{256} << 10;

// The half-open part [begin, end) of [0, n) that member `thread` of `threads` owns: contiguous
// blocks whose boundaries are multiples of `granule` elements (so threads never share a cache
// line of output, and aligned vector code keeps its alignment).
struct Range {
    std::size_t begin;
    std::size_t end;
};
inline Range thread_range(std::size_t n, std::size_t granule, int thread, int threads) {
    const std::size_t granules = (n + granule - 1) / granule;
    const std::size_t t = static_cast<std::size_t>(thread);
    const std::size_t count = static_cast<std::size_t>(threads);
    const std::size_t first = granules * t / count;
    const std::size_t last = granules * (t + 1) / count;
    return {std::min(n, first * granule), std::min(n, last * granule)};
}

// Threads to use for `bytes` of traffic: 1 below the threshold, else the OpenMP default.
inline int threads_for(std::size_t bytes) {
    return bytes < kParallelThresholdBytes ? 1 : omp_get_max_threads();
}

// Outputs larger than the last-level cache are written with non-temporal stores: the data would be
// evicted before anyone reads them, and streaming skips the read-for-ownership of every output
// line (a quarter of vector_add's traffic, half of transpose's). Returns the LLC size in bytes.
inline std::size_t streaming_threshold_bytes() {
    static const std::size_t threshold = [] {
        long llc = -1;
#if defined(_SC_LEVEL3_CACHE_SIZE)
        llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
        return llc > 0 ? static_cast<std::size_t>(llc) : std::size_t{32} << 20;
    }();
    return threshold;
}

} // namespace gpucore::cpu

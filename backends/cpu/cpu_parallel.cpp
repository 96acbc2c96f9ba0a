// SPDX-License-Identifier: Apache-2.0
#include "cpu_parallel.hpp"

#include <unistd.h>

#include <atomic>

namespace gpucore::cpu {
namespace {

std::size_t last_level_cache_bytes() {
    long llc = -1;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    return llc > 0 ? static_cast<std::size_t>(llc) : std::size_t{32} << 20;
}

std::atomic<std::size_t>& threshold() {
    static std::atomic<std::size_t> value{last_level_cache_bytes()};
    return value;
}

} // namespace

std::size_t streaming_threshold_bytes() { return threshold().load(std::memory_order_relaxed); }

void set_streaming_threshold_bytes(std::size_t bytes) {
    threshold().store(bytes, std::memory_order_relaxed);
}

} // namespace gpucore::cpu

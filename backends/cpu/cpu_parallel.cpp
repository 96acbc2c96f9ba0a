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

bool processor_has_f16c() noexcept {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
#else
    return false;
#endif
}

bool processor_has_avx512() noexcept {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    return processor_has_f16c() && __builtin_cpu_supports("avx512f");
#else
    return false;
#endif
}

std::atomic<bool>& f16c_allowed() {
    static std::atomic<bool> value{true};
    return value;
}

std::atomic<bool>& avx512_allowed() {
    static std::atomic<bool> value{true};
    return value;
}

} // namespace

bool f16c_enabled() noexcept {
    static const bool has_f16c = processor_has_f16c();
    return has_f16c && f16c_allowed().load(std::memory_order_relaxed);
}

void set_f16c_enabled(bool enabled) noexcept { f16c_allowed().store(enabled, std::memory_order_relaxed); }

bool avx512_enabled() noexcept {
    static const bool has_avx512 = processor_has_avx512();
    return has_avx512 && avx512_allowed().load(std::memory_order_relaxed);
}

void set_avx512_enabled(bool enabled) noexcept { avx512_allowed().store(enabled, std::memory_order_relaxed); }

std::size_t streaming_threshold_bytes() { return threshold().load(std::memory_order_relaxed); }

void set_streaming_threshold_bytes(std::size_t bytes) {
    threshold().store(bytes, std::memory_order_relaxed);
}

} // namespace gpucore::cpu

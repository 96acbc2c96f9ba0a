// SPDX-License-Identifier: Apache-2.0
// What this process holds, read from /proc: resident memory, threads, open file descriptors.
// The soak tests compare them before and after a long run to find leaks that a sanitizer cannot
// see (memory still referenced by a registry, threads never joined, handles never closed).
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace gpucore::stress {

// Resident set size in bytes (second field of /proc/self/statm, in pages); 0 when unreadable.
inline std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t total_pages = 0, resident_pages = 0;
    if (!(statm >> total_pages >> resident_pages)) return 0;
    return resident_pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// Entries of a /proc folder such as /proc/self/task (threads) or /proc/self/fd (descriptors).
inline std::size_t entries_in(const char* folder) {
    std::size_t count = 0;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) ++count;
    return count;
}

inline std::size_t thread_count() { return entries_in("/proc/self/task"); }
inline std::size_t open_descriptors() { return entries_in("/proc/self/fd"); }

// True in sanitizer builds: their allocators keep freed memory in quarantine and their shadow
// memory grows with use, so resident-size bounds mean nothing there (leaks are LeakSanitizer's job).
constexpr bool resident_size_is_meaningful() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
    return false;
#else
    return true;
#endif
#else
    return true;
#endif
}

// A count from the environment (for shorter runs under slow tools), else `fallback`.
inline long count_from_environment(const char* name, long fallback) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') return fallback;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    return (end != nullptr && *end == '\0' && value > 0) ? value : fallback;
}

} // namespace gpucore::stress

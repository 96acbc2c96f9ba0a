// SPDX-License-Identifier: Apache-2.0
#include "cpu_memory.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace gpucore::cpu {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
// Below this, huge-page alignment would waste more than it saves.
constexpr std::size_t kHugePageThreshold = std::size_t{8} << 20;

std::size_t round_up(std::size_t value, std::size_t multiple) noexcept {
    return (value + multiple - 1) / multiple * multiple;
}

} // namespace

void* allocate_host(std::size_t bytes) noexcept {
    const std::size_t alignment = bytes >= kHugePageThreshold ? kHugePage : kAllocationAlignment;
    if (bytes > SIZE_MAX - alignment) return nullptr;
    // aligned_alloc wants a size that is a multiple of the alignment.
    const std::size_t padded = round_up(bytes, alignment);
    void* ptr = std::aligned_alloc(alignment, padded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (ptr != nullptr && alignment == kHugePage) {
        // A hint only: where transparent huge pages are off or unsupported this fails harmlessly.
        (void)madvise(ptr, padded, MADV_HUGEPAGE);
    }
#endif
    return ptr;
}

void free_host(void* ptr) noexcept { std::free(ptr); }

bool is_read_write_host_address(const void* ptr) noexcept {
#if defined(__linux__)
    std::FILE* maps = std::fopen("/proc/self/maps", "re");
    if (maps == nullptr) return true;
    const auto address = reinterpret_cast<std::uintptr_t>(ptr);
    bool found = false, read_write = false;
    unsigned long long start = 0, end = 0;
    char perms[5] = {};
    // Each line: "start-end perms offset dev inode path"; the rest of the line is skipped.
    while (std::fscanf(maps, "%llx-%llx %4s%*[^\n]", &start, &end, perms) == 3) {
        if (address >= start && address < end) {
            found = true;
            read_write = perms[0] == 'r' && perms[1] == 'w';
            break;
        }
    }
    std::fclose(maps);
    return found && read_write;
#else
    (void)ptr;
    return true;
#endif
}

} // namespace gpucore::cpu

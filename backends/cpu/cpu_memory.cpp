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

} // namespace gpucore::cpu

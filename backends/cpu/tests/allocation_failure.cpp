// SPDX-License-Identifier: Apache-2.0
#include "allocation_failure.hpp"

#include <cstdlib>
#include <new>

// Sanitizer runtimes define the global operator new themselves: there the replacement is left out
// and the tests that need it skip.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GPUCORE_TEST_REPLACES_NEW 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define GPUCORE_TEST_REPLACES_NEW 0
#endif
#endif
#ifndef GPUCORE_TEST_REPLACES_NEW
#define GPUCORE_TEST_REPLACES_NEW 1
#endif

namespace gpucore::cpu::test {
namespace {
thread_local bool t_fail = false;
} // namespace

bool allocation_failure_available() noexcept { return GPUCORE_TEST_REPLACES_NEW != 0; }
void fail_allocations_on_this_thread(bool fail) noexcept { t_fail = fail; }
bool allocations_fail_on_this_thread() noexcept { return t_fail; }

} // namespace gpucore::cpu::test

#if GPUCORE_TEST_REPLACES_NEW
void* operator new(std::size_t bytes) {
    if (gpucore::cpu::test::allocations_fail_on_this_thread()) throw std::bad_alloc();
    if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t bytes) { return ::operator new(bytes); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#endif

#include "allocation_failure.hpp"

#include <cstdlib>
#include <new>

namespace gpucore::cpu::test {
namespace {
thread_local bool t_fail = false;
} // namespace

void fail_allocations_on_this_thread(bool fail) noexcept { t_fail = fail; }
bool allocations_fail_on_this_thread() noexcept { return t_fail; }

} // namespace gpucore::cpu::test

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

// SPDX-License-Identifier: Apache-2.0
// Out-of-memory on demand for the CPU backend tests: this test program replaces the global
// operator new so that every allocation made by one chosen thread fails with std::bad_alloc, as
// allocations do when memory is exhausted. All other threads allocate normally (from malloc).
#pragma once

namespace gpucore::cpu::test {

// False in sanitizer builds, whose runtimes own operator new: tests that need the failure skip.
bool allocation_failure_available() noexcept;
// From now on, every operator new on the calling thread throws std::bad_alloc (true) or works (false).
void fail_allocations_on_this_thread(bool fail) noexcept;
bool allocations_fail_on_this_thread() noexcept;

} // namespace gpucore::cpu::test

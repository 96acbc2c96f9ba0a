// SPDX-License-Identifier: Apache-2.0
// Host allocations of the CPU backend. Every memory kind (device, pinned host, managed) is plain
// host memory here, so all three are supported and interchangeable.
#pragma once

#include <cstddef>

namespace gpucore::cpu {

// The alignment of every allocation: the contract asks for at least 256 bytes (a multiple of any
// SIMD width and of the cache line, so kernels can use aligned vector stores on whole lines).
inline constexpr std::size_t kAllocationAlignment = 256;

// Allocates `bytes` (> 0) aligned to kAllocationAlignment; large allocations are aligned to 2 MiB
// and advised to use transparent huge pages (fewer TLB misses in strided kernels such as
// transpose). Returns nullptr when the memory is not available. Thread-safe.
void* allocate_host(std::size_t bytes) noexcept;
// Frees what allocate_host returned (nullptr is ignored). Thread-safe.
void free_host(void* ptr) noexcept;

} // namespace gpucore::cpu

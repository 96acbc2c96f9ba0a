// SPDX-License-Identifier: Apache-2.0
// The CPU backend's peer in `gpucore bench`: vector_add as the plain OpenMP loop a user would
// write first. gpucore's CPU backend should be at least as fast. The thread count is passed
// explicitly (the cpu device's compute units, which gpucore reads with secure_getenv), so the
// OpenMP runtime's own reading of OMP_NUM_THREADS never decides it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpucore::cli {

template <class T>
void openmp_vector_add(const T* a, const T* b, T* c, std::size_t n, int threads) {
    if constexpr (!std::is_integral_v<T>) {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::size_t i = 0; i < n; ++i) c[i] = static_cast<T>(a[i] + b[i]);
    } else { // integers wrap, as gpucore's do (signed overflow would be undefined)
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::size_t i = 0; i < n; ++i)
            c[i] = static_cast<T>(static_cast<std::uint32_t>(a[i]) + static_cast<std::uint32_t>(b[i]));
    }
}

} // namespace gpucore::cli

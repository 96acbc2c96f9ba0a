// SPDX-License-Identifier: Apache-2.0
// One check per operation: a device's output (copied to the host) against the host reference
// (host_reference.hpp) under the rules of comparison.hpp, summarised as a Verification. Large
// outputs are checked in blocks by OpenMP threads when the including target builds with OpenMP,
// serially otherwise. Every dtype of the list; all pointers are host memory.
// Thread safety: pure functions.
#pragma once

#include <algorithm>
#include <cstddef>

#include "gpucore/types.hpp"
#include "gpucore_reference/comparison.hpp"
#include "gpucore_reference/host_reference.hpp"

namespace gpucore::reference {
namespace detail {

#ifdef _OPENMP
#define GPUCORE_REFERENCE_OMP_(directive) _Pragma(#directive)
#else
#define GPUCORE_REFERENCE_OMP_(directive)
#endif

// Runs body(block, part) for every block in [0, blocks), in parallel where OpenMP is on, and
// merges the parts.
template <class Body>
Verification check_blocks(std::size_t blocks, Body body) {
    Verification total;
    GPUCORE_REFERENCE_OMP_(omp parallel)
    {
        Verification mine;
        GPUCORE_REFERENCE_OMP_(omp for schedule(dynamic, 1) nowait)
        for (std::size_t block = 0; block < blocks; ++block) body(block, mine);
        GPUCORE_REFERENCE_OMP_(omp critical(gpucore_reference_verify))
        total.merge_part(mine);
    }
    return total;
}

#undef GPUCORE_REFERENCE_OMP_

constexpr std::size_t elements_per_block = std::size_t{1} << 16;

inline std::size_t block_count(std::size_t n, std::size_t per_block) {
    return (n + per_block - 1) / per_block;
}

} // namespace detail

// out (cols x rows) must be the transpose of in (rows x cols), bit for bit. Walked in square
// tiles so both sides stay in cache.
template <class T>
Verification verify_transpose(const T* in, const T* out, std::size_t rows, std::size_t cols) {
    constexpr std::size_t tile = 64;
    const std::size_t tile_rows = detail::block_count(rows, tile), tile_cols = detail::block_count(cols, tile);
    return detail::check_blocks(tile_rows * tile_cols, [&](std::size_t block, Verification& part) {
        const std::size_t i0 = (block / tile_cols) * tile, j0 = (block % tile_cols) * tile;
        const std::size_t i1 = std::min(rows, i0 + tile), j1 = std::min(cols, j0 + tile);
        for (std::size_t j = j0; j < j1; ++j)
            for (std::size_t i = i0; i < i1; ++i)
                part.add_moved(j * rows + i, same_bits(out[j * rows + i], in[i * cols + j]),
                               static_cast<double>(out[j * rows + i]), static_cast<double>(in[i * cols + j]));
    });
}

// result must be reduce(in, n, op) within its tolerance.
template <class T>
Verification verify_reduce(const T* in, std::size_t n, T result, ReduceOp op) {
    const Expected expected = reduce(in, n, op);
    Verification v;
    v.add(0, static_cast<double>(result), expected.value, expected.tolerance);
    return v;
}

// out[r] must be reduce(row r of in) within its tolerance.
template <class T>
Verification verify_reduce_rows(const T* in, std::size_t rows, std::size_t cols, const T* out, ReduceOp op) {
    // Blocks of whole rows holding about elements_per_block elements (at least one row).
    const std::size_t rows_per_block = std::max<std::size_t>(1, detail::elements_per_block / std::max<std::size_t>(cols, 1));
    return detail::check_blocks(detail::block_count(rows, rows_per_block), [&](std::size_t block, Verification& part) {
        const std::size_t end = std::min(rows, (block + 1) * rows_per_block);
        for (std::size_t r = block * rows_per_block; r < end; ++r) {
            const Expected expected = reduce(in + r * cols, cols, op);
            part.add(r, static_cast<double>(out[r]), expected.value, expected.tolerance);
        }
    });
}

// out[i] must be expected(i) (an Expected: value and tolerance) for every i < n: the check of an
// element-wise operation whose description gives its reference element by element. `expected` is
// called from several threads at once where OpenMP is on.
template <class T, class ExpectedOf>
Verification verify_elements(const T* out, std::size_t n, const ExpectedOf& expected) {
    using detail::elements_per_block;
    return detail::check_blocks(detail::block_count(n, elements_per_block), [&](std::size_t block, Verification& part) {
        const std::size_t end = std::min(n, (block + 1) * elements_per_block);
        for (std::size_t i = block * elements_per_block; i < end; ++i) {
            const Expected e = expected(i);
            part.add(i, static_cast<double>(out[i]), e.value, e.tolerance);
        }
    });
}

// c[i] must be add(a[i], b[i]) exactly.
template <class T>
Verification verify_vector_add(const T* a, const T* b, const T* c, std::size_t n) {
    return verify_elements(c, n, [&](std::size_t i) {
        return Expected{static_cast<double>(add(a[i], b[i])), 0.0};
    });
}

} // namespace gpucore::reference

// SPDX-License-Identifier: Apache-2.0
#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "reference.hpp"

namespace gpucore::cli {
namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

struct Compared {
    double device;
    double expected;
    double tolerance;
};

// |device - expected|, with equal values (also equal infinities) 0 and any NaN infinity.
double element_error(double device, double expected) {
    if (device == expected) return 0.0;
    if (std::isnan(device) || std::isnan(expected)) return infinity;
    return std::fabs(device - expected);
}

double error_ratio(double error, double tolerance) {
    if (error == 0.0) return 0.0;
    return tolerance > 0.0 ? error / tolerance : infinity;
}

// One thread's share of a comparison; merged into a Verification at the end.
struct Tally {
    Verification v;

    void add(std::size_t index, const Compared& c) {
        const double error = element_error(c.device, c.expected);
        v.max_error = std::max(v.max_error, error);
        v.max_error_ratio = std::max(v.max_error_ratio, error_ratio(error, c.tolerance));
        if (error <= c.tolerance) return;
        v.passed = false;
        ++v.mismatches;
        if (v.first_mismatch == Verification::none || index < v.first_mismatch) {
            v.first_mismatch = index;
            v.first_device = c.device;
            v.first_expected = c.expected;
        }
    }
    void merge(const Tally& other) {
        if (other.v.first_mismatch < v.first_mismatch) {
            v.first_mismatch = other.v.first_mismatch;
            v.first_device = other.v.first_device;
            v.first_expected = other.v.first_expected;
        }
        v.passed = v.passed && other.v.passed;
        v.max_error = std::max(v.max_error, other.v.max_error);
        v.max_error_ratio = std::max(v.max_error_ratio, other.v.max_error_ratio);
        v.mismatches += other.v.mismatches;
    }
};

// Runs body(block, tally) for every block in [0, blocks) in parallel and merges the tallies.
template <class Body>
Verification tally_blocks(std::size_t blocks, Body body) {
    Tally total;
#pragma omp parallel
    {
        Tally mine;
#pragma omp for schedule(dynamic, 1) nowait
        for (std::size_t block = 0; block < blocks; ++block) body(block, mine);
#pragma omp critical(gpucore_cli_verify)
        total.merge(mine);
    }
    return total.v;
}

constexpr std::size_t elements_per_block = std::size_t{1} << 16;

std::size_t block_count(std::size_t n, std::size_t per_block) {
    return (n + per_block - 1) / per_block;
}

} // namespace

void Verification::merge(const Verification& other) {
    if (!other.passed && passed) {
        first_mismatch = other.first_mismatch;
        first_device = other.first_device;
        first_expected = other.first_expected;
    }
    passed = passed && other.passed;
    max_error = std::max(max_error, other.max_error);
    max_error_ratio = std::max(max_error_ratio, other.max_error_ratio);
    mismatches += other.mismatches;
}

std::string Verification::summary() const {
    if (passed) return "ok";
    char text[160];
    std::snprintf(text, sizeof text, "%zu mismatches, first at [%zu]: got %.17g, expected %.17g",
                  mismatches, first_mismatch, first_device, first_expected);
    return text;
}

template <class T>
Verification verify_vector_add(const T* a, const T* b, const T* c, std::size_t n) {
    return tally_blocks(block_count(n, elements_per_block), [&](std::size_t block, Tally& tally) {
        const std::size_t end = std::min(n, (block + 1) * elements_per_block);
        for (std::size_t i = block * elements_per_block; i < end; ++i) {
            const double expected = reference_add(a[i], b[i]);
            tally.add(i, {static_cast<double>(c[i]), expected, add_tolerance<T>(expected)});
        }
    });
}

template <class T>
Verification verify_transpose(const T* in, const T* out, std::size_t rows, std::size_t cols) {
    // out[j * rows + i] must be in[i * cols + j]: a permutation, compared exactly. Walked in
    // square tiles so both sides stay in cache.
    constexpr std::size_t tile = 64;
    const std::size_t tile_rows = block_count(rows, tile), tile_cols = block_count(cols, tile);
    return tally_blocks(tile_rows * tile_cols, [&](std::size_t block, Tally& tally) {
        const std::size_t i0 = (block / tile_cols) * tile, j0 = (block % tile_cols) * tile;
        const std::size_t i1 = std::min(rows, i0 + tile), j1 = std::min(cols, j0 + tile);
        for (std::size_t j = j0; j < j1; ++j)
            for (std::size_t i = i0; i < i1; ++i)
                tally.add(j * rows + i, {static_cast<double>(out[j * rows + i]),
                                         static_cast<double>(in[i * cols + j]), 0.0});
    });
}

template <class T>
Verification verify_reduce(const T* in, std::size_t n, T result, ReduceOp op) {
    const Expected expected = reference_reduce(in, n, op);
    Tally tally;
    tally.add(0, {static_cast<double>(result), expected.value, expected.tolerance});
    return tally.v;
}

template <class T>
Verification verify_reduce_rows(const T* in, std::size_t rows, std::size_t cols, const T* out,
                                ReduceOp op) {
    // Blocks of whole rows holding about elements_per_block elements (at least one row).
    const std::size_t rows_per_block = std::max<std::size_t>(1, elements_per_block / std::max<std::size_t>(cols, 1));
    return tally_blocks(block_count(rows, rows_per_block), [&](std::size_t block, Tally& tally) {
        const std::size_t end = std::min(rows, (block + 1) * rows_per_block);
        for (std::size_t r = block * rows_per_block; r < end; ++r) {
            const Expected expected = reference_reduce(in + r * cols, cols, op);
            tally.add(r, {static_cast<double>(out[r]), expected.value, expected.tolerance});
        }
    });
}

#define GPUCORE_CLI_INSTANTIATE(T)                                                               \
    template Verification verify_vector_add<T>(const T*, const T*, const T*, std::size_t);      \
    template Verification verify_transpose<T>(const T*, const T*, std::size_t, std::size_t);    \
    template Verification verify_reduce<T>(const T*, std::size_t, T, ReduceOp);                 \
    template Verification verify_reduce_rows<T>(const T*, std::size_t, std::size_t, const T*,   \
                                                ReduceOp);
#define GPUCORE_CLI_INSTANTIATE_DTYPE_(ID, value, name, ctype, bytes, minor) \
    GPUCORE_CLI_INSTANTIATE(element_type_t<DType::name>)
GPUCORE_DTYPE_LIST(GPUCORE_CLI_INSTANTIATE_DTYPE_)
#undef GPUCORE_CLI_INSTANTIATE_DTYPE_
#undef GPUCORE_CLI_INSTANTIATE

template <class T>
Verification verify_elements(const T* out, std::size_t n,
                             const std::function<Expected(std::size_t)>& expected) {
    return tally_blocks(block_count(n, elements_per_block), [&](std::size_t block, Tally& tally) {
        const std::size_t end = std::min(n, (block + 1) * elements_per_block);
        for (std::size_t i = block * elements_per_block; i < end; ++i) {
            const Expected e = expected(i);
            tally.add(i, {static_cast<double>(out[i]), e.value, e.tolerance});
        }
    });
}

#define GPUCORE_CLI_INSTANTIATE_ELEMENTS_(ID, value, name, ctype, bytes, minor)                   \
    template Verification verify_elements<element_type_t<DType::name>>(                           \
        const element_type_t<DType::name>*, std::size_t, const std::function<Expected(std::size_t)>&);
GPUCORE_DTYPE_LIST(GPUCORE_CLI_INSTANTIATE_ELEMENTS_)
#undef GPUCORE_CLI_INSTANTIATE_ELEMENTS_

} // namespace gpucore::cli

// SPDX-License-Identifier: Apache-2.0
// What the ladder benchmark's rungs must produce: the sums of the pieces each rung's blocks
// cover, and the rule a float sum of its integer inputs must meet; comparisons and the transpose
// check are the reference library's (gpucore_reference).
#pragma once

#include <cstddef>
#include <vector>

#include "gpucore_reference/comparison.hpp"
#include "gpucore_reference/verify.hpp"

namespace ladder {

// The inputs are small non-negative integers: a sum whose exact value is below 2^24 is exact in
// f32 in any order of additions, so it must match exactly; a larger one within relative 1e-5 (a
// tree of f32 additions over exact integer partials stays well inside it).
inline bool sum_matches(double got, double want) {
    return gpucore::reference::matches(got, want, want < 16777216.0 ? 0.0 : 1e-5 * want);
}
inline const char* sum_rule() { return "exact below 2^24, else within relative 1e-5"; }

// Sums of consecutive segments of `segment` elements (the last one may be shorter).
inline std::vector<double> segment_sums(const std::vector<float>& in, std::size_t segment) {
    std::vector<double> sums((in.size() + segment - 1) / segment, 0.0);
    for (std::size_t i = 0; i < in.size(); ++i) sums[i / segment] += in[i];
    return sums;
}

// What block b of a grid-stride walk (grid blocks of `threads`) adds: every element i with
// (i / threads) % grid == b.
inline std::vector<double> grid_stride_block_sums(const std::vector<float>& in, std::size_t threads,
                                                  std::size_t grid) {
    std::vector<double> sums(grid, 0.0);
    for (std::size_t i = 0; i < in.size(); ++i) sums[(i / threads) % grid] += in[i];
    return sums;
}

inline double sum_of(const std::vector<double>& parts) {
    double t = 0;
    for (const double p : parts) t += p;
    return t;
}

// Every got[k] matches want[k] (sum_matches); sizes must agree.
inline bool sums_match(const std::vector<float>& got, const std::vector<double>& want) {
    if (got.size() != want.size()) return false;
    for (std::size_t k = 0; k < got.size(); ++k) {
        if (!sum_matches(got[k], want[k])) return false;
    }
    return true;
}

// out (cols x rows) is exactly the transpose of in (rows x cols).
inline bool is_transpose(const std::vector<float>& in, const std::vector<float>& out, std::size_t rows,
                         std::size_t cols) {
    if (in.size() != rows * cols || out.size() != rows * cols) return false;
    return gpucore::reference::verify_transpose(in.data(), out.data(), rows, cols).passed;
}

} // namespace ladder

// SPDX-License-Identifier: Apache-2.0
// How a result is compared with its reference, and what a comparison reports: the NaN and infinity
// rules, the bit-exact rule for data that is only moved, and a tally of mismatches (how many, the
// largest error, the first one). Header-only and std-only, so that the nvcc-compiled benchmarks
// use it as the command and the tests do. Thread safety: pure functions; a Verification is a value.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace gpucore::reference {

// `got` matches `want` when both are NaN, when they are equal (equal infinities included), or when
// both are finite and |got - want| <= tolerance. A NaN matches only a NaN, an infinity only
// itself, whatever the tolerance.
inline bool matches(double got, double want, double tolerance) noexcept {
    if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
    if (got == want) return true;
    if (std::isinf(got) || std::isinf(want)) return false;
    return std::fabs(got - want) <= tolerance;
}

// |got - want|: 0 for values that match exactly (two NaNs included), infinity when only one is
// NaN or the two are different infinities.
inline double error_of(double got, double want) noexcept {
    if (matches(got, want, 0.0)) return 0.0;
    if (std::isnan(got) || std::isnan(want)) return std::numeric_limits<double>::infinity();
    return std::fabs(got - want);
}

// Moved data (transpose, copies) must keep every bit: -0 stays -0 and a NaN keeps its payload.
template <class T>
bool same_bits(const T& a, const T& b) noexcept {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The outcome of comparing an output with its reference, element by element.
struct Verification {
    static constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

    bool passed = true;
    double max_error = 0;        // largest |device - reference| (infinity for NaN / wrong infinity)
    double max_error_ratio = 0;  // largest error / tolerance (<= 1 passes; error > 0 with tolerance 0: infinity)
    std::size_t mismatches = 0;  // elements outside their tolerance
    std::size_t first_mismatch = none; // index of the first one (output element index)
    double first_device = 0;     // device value and reference at first_mismatch
    double first_expected = 0;

    // Element `index` is `device`; the reference says `expected` within `tolerance` (matches()).
    void add(std::size_t index, double device, double expected, double tolerance) {
        record(index, matches(device, expected, tolerance), error_of(device, expected), tolerance,
               device, expected);
    }
    // Element `index` must be a bit-exact copy of `expected`; `same` says whether it is (a copy
    // that differs only in bits, such as -0 for +0, counts an infinite error).
    void add_moved(std::size_t index, bool same, double device, double expected) {
        const double error = error_of(device, expected);
        record(index, same, same ? 0.0 : error > 0.0 ? error : std::numeric_limits<double>::infinity(),
               0.0, device, expected);
    }
    // Folds `part` (another share of the same output, checked separately) into this one: the
    // lower first mismatch wins.
    void merge_part(const Verification& part) {
        if (part.first_mismatch < first_mismatch) {
            first_mismatch = part.first_mismatch;
            first_device = part.first_device;
            first_expected = part.first_expected;
        }
        fold_counts(part);
    }
    // Folds `other` (a later check of the same case) into this one: the first failing check's
    // first mismatch is kept.
    void merge(const Verification& other) {
        if (!other.passed && passed) {
            first_mismatch = other.first_mismatch;
            first_device = other.first_device;
            first_expected = other.first_expected;
        }
        fold_counts(other);
    }
    // "ok" or "12 mismatches, first at [3]: got 1.5, expected 2.5".
    std::string summary() const {
        if (passed) return "ok";
        char text[160];
        std::snprintf(text, sizeof text, "%zu mismatches, first at [%zu]: got %.17g, expected %.17g",
                      mismatches, first_mismatch, first_device, first_expected);
        return text;
    }

private:
    void record(std::size_t index, bool ok, double error, double tolerance, double device,
                double expected) {
        max_error = std::max(max_error, error);
        const double ratio = error == 0.0 ? 0.0 : tolerance > 0.0 ? error / tolerance
                                                                   : std::numeric_limits<double>::infinity();
        max_error_ratio = std::max(max_error_ratio, ratio);
        if (ok) return;
        passed = false;
        ++mismatches;
        if (index < first_mismatch) {
            first_mismatch = index;
            first_device = device;
            first_expected = expected;
        }
    }
    void fold_counts(const Verification& other) {
        passed = passed && other.passed;
        max_error = std::max(max_error, other.max_error);
        max_error_ratio = std::max(max_error_ratio, other.max_error_ratio);
        mismatches += other.mismatches;
    }
};

// got[i] == want[i] for every i (NaN equal to NaN): results that are exact by construction.
template <class T>
Verification compare_exact(const std::vector<T>& got, const std::vector<T>& want) {
    Verification v;
    const std::size_t n = std::min(got.size(), want.size());
    for (std::size_t i = 0; i < n; ++i)
        v.add(i, static_cast<double>(got[i]), static_cast<double>(want[i]), 0.0);
    for (std::size_t i = n; i < std::max(got.size(), want.size()); ++i)
        v.add(i, std::numeric_limits<double>::quiet_NaN(), 0.0, 0.0); // a missing or extra element
    return v;
}

} // namespace gpucore::reference

// SPDX-License-Identifier: Apache-2.0
// Seeded random inputs. Element i depends only on (seed, i): the values are the same whatever the
// thread count, so filling runs in parallel and a run is reproducible from its seed.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "case_spec.hpp"

namespace gpucore::cli {

// The shape of the random values one input holds.
struct InputDistribution {
    enum class Kind {
        uniform_real, // floats uniform in [lo, hi)
        all_bits,     // integers: every bit pattern equally likely (sums and products wrap)
        odd_bits,     // integers: random odd values (products of odd numbers never collapse to 0)
        signed_powers_of_two, // floats: +-1, and with probability `scaled` +-2 or +-0.5
    };
    Kind kind = Kind::uniform_real;
    double lo = -1.0;   // uniform_real only
    double hi = 1.0;
    double scaled = 0;  // signed_powers_of_two only
};

// Values that keep each op's result meaningful and its check sharp:
//  - float sums mostly positive ([-0.5, 1)), so an error relative to sum |x| is also relative to
//    the result and a dropped or doubled block shows;
//  - float products from +-1, +-2 and +-0.5 with about 64 non-unit values per reduction: every
//    partial product, in any order, is exact and within 2^+-126, so the result must be exact and
//    a dropped or repeated element flips the sign or the exponent with good odds. (Random values
//    near 1 were tried: a tree product of them is biased by ties where products straddle 1.0, so
//    no fair tolerance exists.) Integer products from odd values wrap without collapsing to 0;
//  - everything else uniform in [-1, 1) or, for integers, over the whole range.
InputDistribution input_distribution(const CaseSpec& spec);

// SplitMix64's finaliser: a cheap, well-mixed hash of a 64-bit counter.
inline std::uint64_t mix64(std::uint64_t x) noexcept {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Fills out[0, n) with values of distribution `dist` from stream `seed`.
template <class T>
void random_fill(T* out, std::size_t n, std::uint64_t seed, const InputDistribution& dist) {
    const std::uint64_t key = mix64(seed);
    const double width = dist.hi - dist.lo;
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t bits = mix64(key ^ (static_cast<std::uint64_t>(i) * 0xD1B54A32D192ED03ull));
        if constexpr (gpucore::is_float_element_v<T>) {
            const double unit = static_cast<double>(bits >> 11) * 0x1.0p-53; // [0, 1)
            if (dist.kind == InputDistribution::Kind::signed_powers_of_two) {
                const double magnitude = unit >= dist.scaled ? 1.0 : ((bits & 2) ? 2.0 : 0.5);
                out[i] = static_cast<T>((bits & 1) ? -magnitude : magnitude);
            } else {
                out[i] = static_cast<T>(dist.lo + width * unit);
            }
        } else {
            std::uint32_t word = static_cast<std::uint32_t>(bits >> 32);
            if (dist.kind == InputDistribution::Kind::odd_bits) word |= 1u;
            out[i] = static_cast<T>(word); // two's complement reinterpretation for int32_t
        }
    }
}

} // namespace gpucore::cli

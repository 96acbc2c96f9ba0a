// SPDX-License-Identifier: Apache-2.0
// The SDK's half and bfloat16 conversions (gpucore/float16.hpp) give the same, correctly rounded
// result (nearest, ties to even) under each of the four rounding modes a caller can set with
// fesetround, in both directions. The reference picks the nearest 16-bit value by comparing the
// input with exact midpoints (every value and midpoint built with ldexp of integers, every
// operation exact), so it does not depend on the rounding mode either.
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpucore/float16.hpp"

namespace {

using gpucore::bfloat16;
using gpucore::half;

const int rounding_modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};

std::string mode_name(int mode) {
    switch (mode) {
    case FE_TONEAREST: return "FE_TONEAREST";
    case FE_UPWARD: return "FE_UPWARD";
    case FE_DOWNWARD: return "FE_DOWNWARD";
    default: return "FE_TOWARDZERO";
    }
}

// A 16-bit format: 5 + 10 bits (binary16) or 8 + 7 bits (bfloat16).
struct Format {
    int exponent_bits, mantissa_bits;
    int bias() const { return (1 << (exponent_bits - 1)) - 1; }
    std::uint16_t infinity() const { return static_cast<std::uint16_t>(((1 << exponent_bits) - 1) << mantissa_bits); }
    std::uint16_t largest() const { return static_cast<std::uint16_t>(infinity() - 1); }
    // The exact value of a positive finite pattern.
    double value(std::uint16_t bits) const {
        const int e = bits >> mantissa_bits;
        const int m = bits & ((1 << mantissa_bits) - 1);
        if (e == 0) return std::ldexp(static_cast<double>(m), 1 - bias() - mantissa_bits);
        return std::ldexp(static_cast<double>(m + (1 << mantissa_bits)), e - bias() - mantissa_bits);
    }
    bool is_nan(std::uint16_t bits) const {
        return (bits & infinity()) == infinity() && (bits & ((1 << mantissa_bits) - 1)) != 0;
    }
    // The nearest pattern to `x`, ties to the even pattern, overflow to infinity. Not for NaN.
    std::uint16_t nearest(double x) const {
        const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
        const double a = std::fabs(x);
        std::uint16_t low = 0, high = largest(); // the largest pattern whose value <= a
        if (a >= value(largest())) {
            low = largest();
        } else {
            while (low < high) {
                const auto mid = static_cast<std::uint16_t>((low + high + 1) / 2);
                if (value(mid) <= a) low = mid;
                else high = static_cast<std::uint16_t>(mid - 1);
            }
        }
        const double below = value(low);
        const double halfway = low == largest()
                                   ? below + std::ldexp(1.0, (1 << exponent_bits) - 2 - bias() - mantissa_bits - 1)
                                   : (below + value(static_cast<std::uint16_t>(low + 1))) / 2;
        std::uint16_t result = low;
        if (a > halfway || (a == halfway && (low & 1) != 0)) result = static_cast<std::uint16_t>(low + 1);
        return static_cast<std::uint16_t>(result | sign);
    }
};

const Format binary16{5, 10};
const Format brain16{8, 7};

// Inputs that stress rounding: every midpoint between neighbouring patterns and its neighbours
// one float and one double step away, zeros, infinities, the overflow threshold, values far
// below the smallest subnormal, and random values (random float bits; random doubles).
std::vector<double> awkward_doubles(const Format& format, std::mt19937_64& random) {
    std::vector<double> inputs = {0.0, -0.0, std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::max(),
                                  std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
                                  std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
                                  std::numeric_limits<float>::max(), 0x1p-26, 0x1p-25, 0x1p-24, 0x1.8p-25,
                                  65504.0, 65519.0, 65520.0, 65536.0, 1e300, 1.0, 3.0};
    for (std::uint32_t bits = 0; bits < format.largest(); ++bits) {
        const double low = format.value(static_cast<std::uint16_t>(bits));
        const double mid = (low + format.value(static_cast<std::uint16_t>(bits + 1))) / 2;
        for (const double x : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e300),
                               static_cast<double>(std::nextafter(static_cast<float>(mid), 0.0f)),
                               static_cast<double>(std::nextafter(static_cast<float>(mid), 1e30f)), low}) {
            inputs.push_back(x);
            inputs.push_back(-x);
        }
    }
    const double top = format.value(format.largest());
    const double overflow = top + std::ldexp(1.0, (1 << format.exponent_bits) - 2 - format.bias() - format.mantissa_bits - 1);
    for (const double x : {overflow, std::nextafter(overflow, 0.0), std::nextafter(overflow, 1e300)}) inputs.push_back(x);
    for (int i = 0; i < 200000; ++i) {
        const auto float_bits = static_cast<std::uint32_t>(random());
        float f;
        std::memcpy(&f, &float_bits, sizeof f);
        if (!std::isnan(f)) inputs.push_back(f);
        const double d = std::ldexp(static_cast<double>(random() >> 11) / 0x1p53,
                                    static_cast<int>(random() % 80) - 50 - (format.exponent_bits == 8 ? 100 : 0));
        inputs.push_back(random() % 2 ? d : -d);
    }
    return inputs;
}

template <class Convert>
void expect_every_mode(const char* what, const Format& format, const std::vector<double>& inputs, Convert convert) {
    std::fesetround(FE_TONEAREST);
    std::vector<std::uint16_t> expected;
    expected.reserve(inputs.size());
    for (const double x : inputs) expected.push_back(format.nearest(x));
    for (const int mode : rounding_modes) {
        ASSERT_EQ(std::fesetround(mode), 0);
        std::vector<std::uint16_t> got;
        got.reserve(inputs.size());
        for (const double x : inputs) got.push_back(convert(x));
        std::fesetround(FE_TONEAREST);
        int reported = 0;
        for (std::size_t i = 0; i < inputs.size() && reported < 10; ++i) {
            if (got[i] != expected[i]) {
                ++reported;
                ADD_FAILURE() << what << " under " << mode_name(mode) << ": " << std::hexfloat << inputs[i] << " gave 0x"
                              << std::hex << got[i] << ", expected 0x" << expected[i];
            }
        }
    }
}

TEST(Float16Rounding, HalfFromFloatIgnoresTheRoundingMode) {
    std::mt19937_64 random(1601);
    std::vector<double> inputs;
    for (const double x : awkward_doubles(binary16, random)) {
        // Only values a float holds exactly, so the reference sees the same input.
        if (static_cast<double>(static_cast<float>(x)) == x) inputs.push_back(x);
    }
    expect_every_mode("half(float)", binary16, inputs, [](double x) {
        return half(static_cast<float>(x)).bits();
    });
}

TEST(Float16Rounding, HalfFromDoubleAndIntIgnoresTheRoundingMode) {
    std::mt19937_64 random(1602);
    expect_every_mode("half(double)", binary16, awkward_doubles(binary16, random),
                      [](double x) { return half(x).bits(); });
    std::vector<double> ints = {0, 1, -1, 65504, 65519, 65520, 65521, 2049, 2051, 4097, 4099, -65520, 2147483647.0,
                                -2147483648.0};
    for (int i = 0; i < 100000; ++i) ints.push_back(static_cast<std::int32_t>(random() >> (32 + random() % 32)));
    expect_every_mode("half(int)", binary16, ints, [](double x) { return half(static_cast<int>(x)).bits(); });
}

TEST(Float16Rounding, Bfloat16FromFloatDoubleAndIntIgnoresTheRoundingMode) {
    std::mt19937_64 random(1603);
    const std::vector<double> inputs = awkward_doubles(brain16, random);
    std::vector<double> floats;
    for (const double x : inputs) {
        if (static_cast<double>(static_cast<float>(x)) == x) floats.push_back(x);
    }
    expect_every_mode("bfloat16(float)", brain16, floats, [](double x) {
        return bfloat16(static_cast<float>(x)).bits();
    });
    expect_every_mode("bfloat16(double)", brain16, inputs, [](double x) { return bfloat16(x).bits(); });
    std::vector<double> ints = {16777217, 16842753, 16908289, -16842753, 2147483647.0, -2147483648.0};
    for (int i = 0; i < 100000; ++i) ints.push_back(static_cast<std::int32_t>(random() >> 32));
    expect_every_mode("bfloat16(int)", brain16, ints, [](double x) { return bfloat16(static_cast<int>(x)).bits(); });
}

TEST(Float16Rounding, NaNStaysAQuietNaNUnderEveryMode) {
    const float nans[] = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::signaling_NaN()};
    for (const int mode : rounding_modes) {
        ASSERT_EQ(std::fesetround(mode), 0);
        for (const float nan : nans) {
            const std::uint16_t h = half(nan).bits(), hd = half(static_cast<double>(nan)).bits();
            const std::uint16_t b = bfloat16(nan).bits(), bd = bfloat16(static_cast<double>(nan)).bits();
            EXPECT_TRUE(binary16.is_nan(h) && (h & 0x0200) != 0) << mode_name(mode) << std::hex << h;
            EXPECT_TRUE(binary16.is_nan(hd) && (hd & 0x0200) != 0) << mode_name(mode) << std::hex << hd;
            EXPECT_TRUE(brain16.is_nan(b) && (b & 0x0040) != 0) << mode_name(mode) << std::hex << b;
            EXPECT_TRUE(brain16.is_nan(bd) && (bd & 0x0040) != 0) << mode_name(mode) << std::hex << bd;
        }
    }
    std::fesetround(FE_TONEAREST);
}

// Every 16-bit pattern converts to float exactly, whatever the mode (signed zeros included).
TEST(Float16Rounding, ToFloatIsExactUnderEveryMode) {
    for (const int mode : rounding_modes) {
        for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
            for (const Format* format : {&binary16, &brain16}) {
                const auto pattern = static_cast<std::uint16_t>(bits);
                const auto magnitude = static_cast<std::uint16_t>(pattern & 0x7FFF);
                ASSERT_EQ(std::fesetround(mode), 0);
                const float got = format == &binary16 ? static_cast<float>(half::from_bits(pattern))
                                                      : static_cast<float>(bfloat16::from_bits(pattern));
                std::fesetround(FE_TONEAREST);
                if (format->is_nan(magnitude)) {
                    EXPECT_TRUE(std::isnan(got)) << std::hex << bits;
                    continue;
                }
                const double expected = magnitude >= format->infinity()
                                            ? std::numeric_limits<double>::infinity()
                                            : format->value(magnitude);
                ASSERT_EQ(static_cast<double>(std::fabs(got)), expected)
                    << mode_name(mode) << " pattern 0x" << std::hex << bits << (format == &binary16 ? " half" : " bf16");
                ASSERT_EQ(std::signbit(got), (pattern & 0x8000) != 0)
                    << mode_name(mode) << " pattern 0x" << std::hex << bits << (format == &binary16 ? " half" : " bf16");
            }
        }
    }
}

} // namespace

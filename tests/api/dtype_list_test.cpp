// SPDX-License-Identifier: Apache-2.0
// The one dtype list (GPUCORE_DTYPE_LIST in gpucore/dtype.h) and what is derived from it: DType,
// all_dtypes, names, sizes, element types, visit; and an id outside the list is a clear error.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "api_test_support.hpp"

namespace gpucore::test {
namespace {

TEST(DtypeList, EveryDtypeHasANameASizeAndARoundTripElementType) {
    std::set<std::string> names;
    std::size_t count = 0;
    for (DType dtype : all_dtypes) {
        ++count;
        const std::string name = to_string(dtype);
        EXPECT_NE(name, "unknown_dtype");
        EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
        EXPECT_TRUE(is_known(dtype));
        const std::size_t bytes = visit(dtype, [](auto tag) { return sizeof(typename decltype(tag)::type); });
        EXPECT_EQ(size_of(dtype), bytes) << name;
        const DType back = visit(dtype, [](auto tag) { return dtype_of<typename decltype(tag)::type>(); });
        EXPECT_EQ(back, dtype) << name;
        // The contract's id is the DType's value.
        EXPECT_EQ(element_size(static_cast<gpucore_dtype>(static_cast<int>(dtype))), bytes) << name;
    }
#define COUNT_DTYPE_(ID, value, name, ctype, bytes, minor) +1
    EXPECT_EQ(count, std::size_t{0 GPUCORE_DTYPE_LIST(COUNT_DTYPE_)});
#undef COUNT_DTYPE_
    EXPECT_TRUE(names.count("f32") && names.count("f64") && names.count("i32") && names.count("u32"));
}

TEST(DtypeList, AnIdOutsideTheListIsNamedUnknownAndHasNoSize) {
    const auto bogus = static_cast<DType>(99);
    EXPECT_FALSE(is_known(bogus));
    EXPECT_STREQ(to_string(bogus), "unknown_dtype");
    EXPECT_EQ(size_of(bogus), 0u);
    EXPECT_EQ(element_size(static_cast<gpucore_dtype>(99)), 0u);
    EXPECT_FALSE(visit_dtype(static_cast<gpucore_dtype>(99), [](auto) { FAIL() << "called for an unknown id"; }));
    expect_error([&] { visit(bogus, [](auto) { return 0; }); }, ErrorCode::invalid_argument, "visit",
                 "unknown dtype 99");
}

TEST(DtypeList, AnOperationWithACastDtypeIsAnInvalidArgumentNotACrash) {
    const Device d = cpu_device();
    Stream s(d);
    Buffer<float> a(d, 16), b(d, 16), c(d, 16);
    const auto bogus = static_cast<DType>(-3);
    expect_error([&] { detail::vector_add(s, bogus, a.allocation(), b.allocation(), c.allocation(), 16, 16, 16); },
                 ErrorCode::invalid_argument, "vector_add", "unknown dtype -3");
    expect_error([&] { detail::transpose(s, bogus, a.allocation(), c.allocation(), 16, 16, 4, 4); },
                 ErrorCode::invalid_argument, "transpose", "unknown dtype -3");
    expect_error([&] { detail::reduce(s, bogus, ReduceOp::sum, a.allocation(), c.allocation(), 16, 16); },
                 ErrorCode::invalid_argument, "reduce", "unknown dtype -3");
    expect_error([&] { detail::reduce_rows(s, bogus, ReduceOp::sum, a.allocation(), c.allocation(), 16, 4, 4, 4); },
                 ErrorCode::invalid_argument, "reduce_rows", "unknown dtype -3");
    // Also with nothing to do: the dtype is checked first.
    Buffer<float> empty(d, 0);
    expect_error([&] { detail::vector_add(s, bogus, empty.allocation(), empty.allocation(), empty.allocation(), 0, 0, 0); },
                 ErrorCode::invalid_argument, "vector_add", "unknown dtype -3");
}

} // namespace
} // namespace gpucore::test

namespace gpucore::test {
namespace {

// Every finite positive value of a 16-bit format, the midpoint to its successor (exact in float)
// rounds to the one with an even last bit, and a float just off the midpoint to the nearer one.
template <class T>
void check_round_to_nearest_even(std::uint16_t largest_finite) {
    for (std::uint32_t bits = 0; bits < largest_finite; ++bits) {
        const float a = T::from_bits(static_cast<std::uint16_t>(bits));
        const float b = T::from_bits(static_cast<std::uint16_t>(bits + 1));
        const float middle = a + (b - a) / 2;
        ASSERT_EQ(T(middle).bits(), (bits % 2 == 0) ? bits : bits + 1) << "tie after bits " << bits;
        ASSERT_EQ(T(std::nextafter(middle, 0.0f)).bits(), bits) << "below the midpoint after bits " << bits;
        ASSERT_EQ(T(std::nextafter(middle, std::numeric_limits<float>::infinity())).bits(), bits + 1) << "above the midpoint after bits " << bits;
        ASSERT_EQ(T(-a).bits(), bits | 0x8000u) << "sign of bits " << bits;
    }
}

template <class T>
void check_specials_and_round_trip() {
    for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
        const T h = T::from_bits(static_cast<std::uint16_t>(bits));
        const float f = h;
        if (std::isnan(f)) {
            EXPECT_TRUE(std::isnan(static_cast<float>(T(f)))) << "NaN bits " << bits;
        } else {
            ASSERT_EQ(T(f).bits(), bits) << "round trip of bits " << bits;
        }
    }
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(T(inf).bits(), std::numeric_limits<T>::infinity().bits());
    EXPECT_EQ(T(-inf).bits(), std::numeric_limits<T>::infinity().bits() | 0x8000u);
    EXPECT_TRUE(std::isnan(static_cast<float>(T(std::numeric_limits<float>::quiet_NaN()))));
    EXPECT_TRUE(std::isnan(static_cast<float>(T(-std::numeric_limits<float>::signaling_NaN()))));
    EXPECT_EQ(T(std::numeric_limits<float>::max()).bits(), std::numeric_limits<T>::infinity().bits());
}

TEST(Float16Types, HalfIsIeeeBinary16) {
    EXPECT_EQ(sizeof(half), 2u);
    EXPECT_EQ(half(1.0f).bits(), 0x3C00u);
    EXPECT_EQ(half(-2.0f).bits(), 0xC000u);
    EXPECT_EQ(half(65504.0f).bits(), 0x7BFFu);
    EXPECT_EQ(half(65519.996f).bits(), 0x7BFFu);
    EXPECT_EQ(half(65520.0f).bits(), 0x7C00u); // the tie above the largest finite rounds to inf
    EXPECT_EQ(half(std::ldexp(1.0f, -24)).bits(), 0x0001u);
    EXPECT_EQ(half(std::ldexp(1.0f, -25)).bits(), 0x0000u); // tie to even: zero
    EXPECT_EQ(half(std::ldexp(1.5f, -25)).bits(), 0x0001u);
    EXPECT_EQ(half(std::ldexp(1.5f, -24)).bits(), 0x0002u); // tie to even: 2 units
    EXPECT_EQ(static_cast<float>(std::numeric_limits<half>::epsilon()), std::ldexp(1.0f, -10));
    check_specials_and_round_trip<half>();
    check_round_to_nearest_even<half>(0x7BFF);
}

TEST(Float16Types, Bfloat16IsTheUpperHalfOfABinary32) {
    EXPECT_EQ(sizeof(bfloat16), 2u);
    EXPECT_EQ(bfloat16(1.0f).bits(), 0x3F80u);
    EXPECT_EQ(bfloat16(3.0e38f).bits(), 0x7F62u);
    EXPECT_EQ(static_cast<float>(std::numeric_limits<bfloat16>::epsilon()), std::ldexp(1.0f, -7));
    check_specials_and_round_trip<bfloat16>();
    check_round_to_nearest_even<bfloat16>(0x7F7F);
}

TEST(Float16Types, BuffersOfHalfAndBfloat16RoundTrip) {
    const Device d = cpu_device();
    const std::vector<half> h = {half(1.5f), half(-0.0f), std::numeric_limits<half>::infinity()};
    Buffer<half> dh(d, h.size());
    dh.copy_from_host(h);
    const auto back = dh.to_vector();
    for (std::size_t i = 0; i < h.size(); ++i) EXPECT_EQ(back[i].bits(), h[i].bits());
    Buffer<bfloat16> db(d, 5);
    db.fill(bfloat16(2.5f));
    for (bfloat16 v : db.to_vector()) EXPECT_EQ(static_cast<float>(v), 2.5f);
    EXPECT_EQ(dtype_of<half>(), DType::f16);
    EXPECT_EQ(dtype_of<bfloat16>(), DType::bf16);
}

} // namespace
} // namespace gpucore::test

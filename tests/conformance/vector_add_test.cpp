// SPDX-License-Identifier: Apache-2.0
// vector_add on every device, dtype and awkward length, against the reference; in-place forms.
#include <gtest/gtest.h>

#include "cases.hpp"
#include "compare.hpp"
#include "device_runs.hpp"
#include "random_inputs.hpp"

namespace conformance {
namespace {

class VectorAdd : public testing::TestWithParam<SizeCase> {};

template <class T>
void check_vector_add(const gpucore::Device& device, std::size_t n) {
    CONFORMANCE_SEEDED_RNG(rng);
    const auto a = random_values<T>(rng, Pattern::general, n, n);
    const auto b = random_values<T>(rng, Pattern::general, n, n);
    const auto want = reference::vector_add(a, b);
    const T sentinel = sentinel_avoiding<T>(want);
    EXPECT_TRUE(elements_match(run_vector_add(device, a, b, sentinel), want, sentinel));
}

// c aliasing a, b, or both (x = x + x): the API allows it.
template <class T>
void check_vector_add_in_place(const gpucore::Device& device, std::size_t n) {
    CONFORMANCE_SEEDED_RNG(rng);
    const auto a = random_values<T>(rng, Pattern::general, n, n);
    const auto b = random_values<T>(rng, Pattern::general, n, n);
    const T poison = sentinel_candidates<T>().front();
    gpucore::Stream stream(device);
    {
        SCOPED_TRACE("c = a + b with c the same buffer as a");
        auto da = upload(device, a);
        const auto db = upload(device, b);
        gpucore::vector_add(stream, da, db, da);
        EXPECT_TRUE(elements_match(read_back(stream, da, poison), reference::vector_add(a, b), poison));
    }
    {
        SCOPED_TRACE("c = a + b with c the same buffer as b");
        const auto da = upload(device, a);
        auto db = upload(device, b);
        gpucore::vector_add(stream, da, db, db);
        EXPECT_TRUE(elements_match(read_back(stream, db, poison), reference::vector_add(a, b), poison));
    }
    {
        SCOPED_TRACE("x = x + x");
        auto dx = upload(device, a);
        gpucore::vector_add(stream, dx, dx, dx);
        EXPECT_TRUE(elements_match(read_back(stream, dx, poison), reference::vector_add(a, a), poison));
    }
}

TEST_P(VectorAdd, MatchesReference) {
    const SizeCase& c = GetParam();
    with_dtype(c.dtype, [&](auto tag) { check_vector_add<typename decltype(tag)::type>(c.device, c.n); });
}

TEST_P(VectorAdd, InPlaceMatchesReference) {
    const SizeCase& c = GetParam();
    with_dtype(c.dtype, [&](auto tag) {
        check_vector_add_in_place<typename decltype(tag)::type>(c.device, c.n);
    });
}

INSTANTIATE_TEST_SUITE_P(Devices, VectorAdd, testing::ValuesIn(size_cases(awkward_sizes())),
                         CaseName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(VectorAdd);

} // namespace
} // namespace conformance

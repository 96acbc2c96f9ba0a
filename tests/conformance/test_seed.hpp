// SPDX-License-Identifier: Apache-2.0
// Per-test random seeds: reproducible by default, different for every test, printed on failure.
//
// seed = mix(base, FNV-1a of the full test name). base is 0 unless GPUCORE_TEST_SEED is set
// (decimal or 0x-hex), so a failure reproduces by re-running the same test with the same base,
// and a new base explores new inputs in every test at once.
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace conformance {

std::uint64_t base_seed();

// Seed of the test now running (GoogleTest's current test info).
std::uint64_t current_test_seed();

// "seed 0x1234... (GPUCORE_TEST_SEED=0, test Suite.Name/param)": for SCOPED_TRACE.
std::string seed_description(std::uint64_t seed);

using Rng = std::mt19937_64;

} // namespace conformance

// Seeds `rng_name` for the running test and attaches the seed to every failure in scope.
#define CONFORMANCE_SEEDED_RNG(rng_name)                                              \
    const std::uint64_t rng_name##_seed = ::conformance::current_test_seed();         \
    SCOPED_TRACE(::conformance::seed_description(rng_name##_seed));                   \
    ::conformance::Rng rng_name(rng_name##_seed)

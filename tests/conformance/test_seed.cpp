// SPDX-License-Identifier: Apache-2.0
#include "test_seed.hpp"

#include <cstdlib>
#include <sstream>

#include <gtest/gtest.h>

namespace conformance {
namespace {

std::uint64_t fnv1a(const std::string& text) {
    std::uint64_t hash = 1469598103934665603ull;
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    return hash;
}

// splitmix64 finaliser: spreads nearby bases and names over the whole seed space.
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

std::string current_test_name() {
    const testing::TestInfo* info = testing::UnitTest::GetInstance()->current_test_info();
    if (info == nullptr) return "<no test>";
    return std::string(info->test_suite_name()) + "." + info->name();
}

} // namespace

std::uint64_t base_seed() {
    static const std::uint64_t base = [] {
        const char* text = std::getenv("GPUCORE_TEST_SEED");
        if (text == nullptr || *text == '\0') return std::uint64_t{0};
        return static_cast<std::uint64_t>(std::strtoull(text, nullptr, 0));
    }();
    return base;
}

std::uint64_t current_test_seed() { return mix(base_seed() ^ fnv1a(current_test_name())); }

std::string seed_description(std::uint64_t seed) {
    std::ostringstream out;
    out << "random seed 0x" << std::hex << seed << std::dec << " (GPUCORE_TEST_SEED=" << base_seed()
        << ", test " << current_test_name() << ")";
    return out.str();
}

} // namespace conformance

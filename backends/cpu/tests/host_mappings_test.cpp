// SPDX-License-Identifier: Apache-2.0
// The check that a range is read-write memory of the process, against a byte-by-byte reference
// over random memory maps, and its refusals when the map cannot be read or parsed.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "host_mappings.hpp"

namespace gpucore::cpu::test {
namespace {

struct Mapping {
    std::uintptr_t start, end;
    bool read_write;
};

std::string maps_text(const std::vector<Mapping>& mappings) {
    std::string text;
    char line[128];
    for (const auto& m : mappings) {
        std::snprintf(line, sizeof line, "%jx-%jx %s 00000000 00:00 0   [anon]\n", static_cast<std::uintmax_t>(m.start),
                      static_cast<std::uintmax_t>(m.end), m.read_write ? "rw-p" : (m.start % 2 ? "r--p" : "---p"));
        text += line;
    }
    return text;
}

// Byte by byte: is every byte of [begin, begin + bytes) in a read-write mapping?
bool reference(const std::vector<Mapping>& mappings, std::uintptr_t begin, std::size_t bytes) {
    for (std::uintptr_t a = begin; a < begin + bytes; ++a) {
        bool ok = false;
        for (const auto& m : mappings) ok = ok || (a >= m.start && a < m.end && m.read_write);
        if (!ok) return false;
    }
    return true;
}

TEST(HostMappings, AgreesWithAByteByByteReferenceOnRandomMaps) {
    std::mt19937_64 random(20240611);
    for (int round = 0; round < 3000; ++round) {
        // Mappings in ascending order, adjacent or with gaps, some without read-write access.
        std::vector<Mapping> mappings;
        std::uintptr_t at = 0x10000 + (random() % 4) * 0x1000;
        const int count = 1 + static_cast<int>(random() % 6);
        for (int i = 0; i < count; ++i) {
            if (random() % 2) at += (1 + random() % 3) * 0x10;
            const std::uintptr_t size = (1 + random() % 4) * 0x10;
            mappings.push_back({at, at + size, random() % 4 != 0});
            at += size;
        }
        const std::uintptr_t lo = mappings.front().start - 0x20, hi = at + 0x20;
        const std::uintptr_t begin = lo + random() % (hi - lo);
        const std::size_t bytes = 1 + random() % (hi - begin);
        const std::string problem = range_problem_in_maps(maps_text(mappings), begin, bytes);
        ASSERT_EQ(problem.empty(), reference(mappings, begin, bytes))
            << maps_text(mappings) << "range " << std::hex << begin << " + " << bytes << ": " << problem;
    }
}

TEST(HostMappings, ARangePastTheAddressSpaceOrWithoutMapsIsRefused) {
    EXPECT_NE(range_problem_in_maps("1000-2000 rw-p 0 00:00 0\n", UINTPTR_MAX - 4, 16), "");
    EXPECT_NE(range_problem_in_maps("", 0x1000, 1), "");
    EXPECT_EQ(range_problem_in_maps("1000-2000 rw-p 0 00:00 0\n", 0x1000, 0x1000), "");
    EXPECT_EQ(range_problem_in_maps("1000-2000 rw-p 0 00:00 0\n2000-3000 rw-s 0 00:00 0", 0x1800, 0x1000), "");
}

TEST(HostMappings, AMapThatDoesNotParseRefuses) {
    const std::string good = "1000-2000 rw-p 00000000 00:00 0\n";
    for (const std::string bad : {"garbage\n", "1000 rw-p\n", "1000-zz rw-p 0\n", "2000-1000 rw-p 0\n",
                                  "1000-2000\n", "-2000 rw-p 0\n", "1000-2000 r\n", "\n", "1000-2000 r100 0\n",
                                  "10000000000000000000-2 rw-p 0\n"}) {
        SCOPED_TRACE(bad);
        const std::string problem = range_problem_in_maps(bad + good, 0x1000, 16);
        EXPECT_NE(problem.find("does not parse"), std::string::npos) << problem;
    }
}

TEST(HostMappings, AMapThatCannotBeReadRefuses) {
    std::vector<char> memory(64);
    EXPECT_EQ(host_range_problem(memory.data(), memory.size()), "");
    const std::string missing = host_range_problem(memory.data(), memory.size(), "/nonexistent/maps");
    EXPECT_NE(missing.find("cannot check the range: cannot open /nonexistent/maps"), std::string::npos) << missing;
    const std::string folder = host_range_problem(memory.data(), memory.size(), "/");
    EXPECT_NE(folder.find("cannot check the range: cannot read /"), std::string::npos) << folder;
}

} // namespace
} // namespace gpucore::cpu::test

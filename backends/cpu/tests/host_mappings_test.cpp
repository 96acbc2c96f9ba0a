// SPDX-License-Identifier: Apache-2.0
// The check that a range is read-write memory of the process, against a byte-by-byte reference
// over random memory maps, read from a file in pieces as from the text at once, reading no further
// than the range needs, and its refusals when the map cannot be read or parsed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
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

std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

// Maps of thousands of lines (many pages of text, lines split across the reads), ranges anywhere.
TEST(HostMappings, AMapFileGivesTheAnswerOfItsWholeText) {
    std::mt19937_64 random(20261201);
    for (int round = 0; round < 40; ++round) {
        std::vector<Mapping> mappings;
        std::uintptr_t at = 0x400000;
        for (int i = 0; i < 3000; ++i) {
            if (random() % 8 == 0) at += 0x1000;
            const std::uintptr_t size = (1 + random() % 16) * 0x1000;
            mappings.push_back({at, at + size, random() % 16 != 0});
            at += size;
        }
        const std::string text = maps_text(mappings);
        const std::string path = write_file("gpucore_maps_" + std::to_string(round), text);
        for (int range = 0; range < 50; ++range) {
            const std::uintptr_t begin = 0x3ff000 + random() % (at - 0x3ff000 + 0x2000);
            const std::size_t bytes = 1 + random() % 0x40000;
            ASSERT_EQ(host_range_problem(reinterpret_cast<const void*>(begin), bytes, path.c_str()),
                      range_problem_in_maps(text, begin, bytes))
                << "range " << std::hex << begin << " + " << bytes;
        }
        std::remove(path.c_str());
    }
}

// The map is ascending: once its lines decide the range, the rest is not read. A pipe stands for
// a long map: its writer sends the first lines and holds the pipe open until the reader is done
// (or 20 s have passed), so a reader that waits for the end of the text takes those 20 s.
TEST(HostMappings, TheMapIsReadOnlyAsFarAsTheRangeNeeds) {
    using namespace std::chrono_literals;
    const std::string path = ::testing::TempDir() + "gpucore_maps_pipe";
    std::remove(path.c_str());
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << std::strerror(errno);
    std::mutex mutex;
    std::condition_variable done_changed;
    bool done = false;
    std::thread writer([&] {
        const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC); // waits for the reader to open
        const std::string head = "1000-3000 rw-p 00000000 00:00 0\n3000-4000 r--p 00000000 00:00 0\n";
        if (fd >= 0 && ::write(fd, head.data(), head.size()) == static_cast<ssize_t>(head.size())) {
            std::unique_lock<std::mutex> lock(mutex);
            done_changed.wait_for(lock, 20s, [&] { return done; });
        }
        if (fd >= 0) ::close(fd);
    });
    const auto start = std::chrono::steady_clock::now();
    const std::string problem = host_range_problem(reinterpret_cast<const void*>(0x1800), 0x800, path.c_str());
    const auto took = std::chrono::steady_clock::now() - start;
    {
        std::lock_guard<std::mutex> lock(mutex);
        done = true;
    }
    done_changed.notify_all();
    writer.join();
    std::remove(path.c_str());
    EXPECT_EQ(problem, "");
    EXPECT_LT(took, 10s) << "the check waited for the end of the map after its first lines decided the range";
}

// Lines past the ones that decide the range are not looked at; a range they do not decide reaches
// the first line that does not parse.
TEST(HostMappings, OnlyTheLinesUpToTheRangeMustParse) {
    const std::string head = "1000-3000 rw-p 00000000 00:00 0\n3000-4000 r--p 00000000 00:00 0\n";
    const std::string path = write_file("gpucore_maps_head", head + std::string(100000, 'x') + "\n");
    EXPECT_EQ(host_range_problem(reinterpret_cast<const void*>(0x1800), 0x800, path.c_str()), "");
    const std::string read_only = host_range_problem(reinterpret_cast<const void*>(0x2800), 0x1000, path.c_str());
    EXPECT_NE(read_only.find("without read-write access"), std::string::npos) << read_only;
    const std::string beyond = host_range_problem(reinterpret_cast<const void*>(0x5000), 16, path.c_str());
    EXPECT_NE(beyond.find("does not parse"), std::string::npos) << beyond;
    std::remove(path.c_str());
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

// SPDX-License-Identifier: Apache-2.0
// The host memory `gpucore run` checks against respects memory cgroups (v2 memory.max, v1
// memory.limit_in_bytes) of the process's group and every group above: over fake cgroup trees
// (random limits at random depths, container layouts, escaped mount points) and, where the test
// may create one, a real cgroup that the test process joins for a moment.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "cgroup_memory.hpp"
#include "exit_codes.hpp"
#include "gpucore/gpucore.hpp"
#include "memory_check.hpp"

namespace gpucore::cli {
namespace {

namespace fs = std::filesystem;

struct FakeRoot {
    FakeRoot() {
        std::string pattern = (fs::temp_directory_path() / "gpucore-cgroup-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
        root = pattern;
        sources.proc_self_cgroup = root + "/proc-self-cgroup";
        sources.mountinfo = root + "/proc-self-mountinfo";
        sources.root_prefix = root;
    }
    ~FakeRoot() {
        std::error_code ignored;
        fs::remove_all(root, ignored);
    }
    void write(const std::string& path, const std::string& text) const {
        fs::create_directories(fs::path(root + path).parent_path());
        std::ofstream(root + path) << text;
    }
    std::string root;
    CgroupSources sources;
};

constexpr std::uint64_t GiB = std::uint64_t{1} << 30, MiB = std::uint64_t{1} << 20;

TEST(CgroupMemory, V2LimitOfTheGroupOrAParentWhicheverIsTighter) {
    FakeRoot fake;
    fake.write("/proc-self-mountinfo", "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n");
    fake.write("/proc-self-cgroup", "0::/user.slice/job\n");
    fake.write("/sys/fs/cgroup/user.slice/job/memory.max", std::to_string(2 * GiB) + "\n");
    fake.write("/sys/fs/cgroup/user.slice/job/memory.current", std::to_string(GiB) + "\n");
    fake.write("/sys/fs/cgroup/user.slice/job/memory.stat", "anon 1\ninactive_file " + std::to_string(512 * MiB) + "\n");
    fake.write("/sys/fs/cgroup/user.slice/memory.max", "max\n");
    auto headroom = cgroup_memory_headroom(fake.sources);
    ASSERT_TRUE(headroom);
    EXPECT_EQ(headroom->bytes, 2 * GiB - (GiB - 512 * MiB));
    EXPECT_EQ(headroom->limit, 2 * GiB);
    EXPECT_EQ(headroom->limit_file, fake.root + "/sys/fs/cgroup/user.slice/job/memory.max");
    // A parent with less room binds the group.
    fake.write("/sys/fs/cgroup/user.slice/memory.max", std::to_string(GiB) + "\n");
    fake.write("/sys/fs/cgroup/user.slice/memory.current", std::to_string(900 * MiB) + "\n");
    headroom = cgroup_memory_headroom(fake.sources);
    ASSERT_TRUE(headroom);
    EXPECT_EQ(headroom->bytes, GiB - 900 * MiB);
    EXPECT_EQ(headroom->limit_file, fake.root + "/sys/fs/cgroup/user.slice/memory.max");
}

TEST(CgroupMemory, V1LimitInAContainerNamedFromTheHostsRoot) {
    FakeRoot fake;
    // The mount shows the container's own group, but /proc/self/cgroup names it from the host's
    // root; the mount point's name holds an escaped space.
    fake.write("/proc-self-mountinfo",
               "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
               "35 31 0:32 / /sys/fs/cgroup/mem\\040ory rw,relatime - cgroup cgroup rw,memory\n"
               "36 31 0:33 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n");
    fake.write("/proc-self-cgroup", "5:cpu:/docker/abc\n4:memory:/docker/abc\n0::/\n");
    fake.write("/sys/fs/cgroup/mem ory/memory.limit_in_bytes", std::to_string(3 * GiB) + "\n");
    fake.write("/sys/fs/cgroup/mem ory/memory.usage_in_bytes", std::to_string(GiB) + "\n");
    fake.write("/sys/fs/cgroup/mem ory/memory.stat", "total_inactive_file " + std::to_string(GiB / 4) + "\n");
    fake.write("/sys/fs/cgroup/cpu/memory.limit_in_bytes", "1\n"); // not a memory hierarchy
    const auto headroom = cgroup_memory_headroom(fake.sources);
    ASSERT_TRUE(headroom);
    EXPECT_EQ(headroom->bytes, 3 * GiB - (GiB - GiB / 4));
    // v1's "unlimited" is no limit.
    fake.write("/sys/fs/cgroup/mem ory/memory.limit_in_bytes", "9223372036854771712\n");
    EXPECT_FALSE(cgroup_memory_headroom(fake.sources));
}

TEST(CgroupMemory, MountOfASubgroupAndMissingOrGarbledFiles) {
    FakeRoot fake;
    EXPECT_FALSE(cgroup_memory_headroom(fake.sources)); // nothing to read
    fake.write("/proc-self-mountinfo", "35 31 0:32 /kubepods/pod1 /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n");
    fake.write("/proc-self-cgroup", "4:memory:/kubepods/pod1/c2\n");
    fake.write("/sys/fs/cgroup/memory/c2/memory.limit_in_bytes", "not a number\n");
    EXPECT_FALSE(cgroup_memory_headroom(fake.sources));
    fake.write("/sys/fs/cgroup/memory/c2/memory.limit_in_bytes", std::to_string(GiB) + "\n");
    fake.write("/sys/fs/cgroup/memory/c2/memory.usage_in_bytes", std::to_string(2 * GiB) + "\n"); // over
    const auto headroom = cgroup_memory_headroom(fake.sources);
    ASSERT_TRUE(headroom);
    EXPECT_EQ(headroom->bytes, 0u);
    EXPECT_EQ(headroom->limit_file, fake.root + "/sys/fs/cgroup/memory/c2/memory.limit_in_bytes");
}

TEST(CgroupMemory, RandomTreesAgreeWithTheTightestLevel) {
    std::mt19937_64 random(808);
    for (int round = 0; round < 100; ++round) {
        FakeRoot fake;
        const bool v2 = random() % 2 != 0;
        const std::string mount = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
        fake.write("/proc-self-mountinfo", v2 ? "30 23 0:26 / " + mount + " rw - cgroup2 cgroup2 rw\n"
                                              : "35 31 0:32 / " + mount + " rw - cgroup cgroup rw,memory\n");
        const int depth = static_cast<int>(random() % 5);
        std::string group;
        for (int i = 0; i < depth; ++i) group += "/g" + std::to_string(random() % 100);
        fake.write("/proc-self-cgroup", v2 ? "0::" + (group.empty() ? "/" : group) + "\n"
                                           : "7:memory:" + (group.empty() ? "/" : group) + "\n");
        std::optional<std::uint64_t> expected;
        std::string level = group;
        for (;;) {
            const std::string folder = mount + level;
            if (random() % 3 != 0) {
                const std::uint64_t limit = (1 + random() % 64) * 64 * MiB;
                const std::uint64_t usage = random() % (limit + limit / 2);
                fake.write(folder + (v2 ? "/memory.max" : "/memory.limit_in_bytes"), std::to_string(limit));
                fake.write(folder + (v2 ? "/memory.current" : "/memory.usage_in_bytes"), std::to_string(usage));
                const std::uint64_t room = limit > usage ? limit - usage : 0;
                if (!expected || room < *expected) expected = room;
            } else {
                fake.write(folder + (v2 ? "/memory.max" : "/memory.limit_in_bytes"),
                           v2 ? "max" : "9223372036854771712");
            }
            if (level.empty()) break;
            level = level.substr(0, level.rfind('/'));
        }
        const auto headroom = cgroup_memory_headroom(fake.sources);
        ASSERT_EQ(headroom.has_value(), expected.has_value()) << "round " << round;
        if (expected) {
            EXPECT_EQ(headroom->bytes, *expected) << "round " << round;
        }
    }
}

TEST(CgroupMemory, RunSizeCheckNamesTheCgroupLimit) {
    FakeRoot fake;
    fake.write("/meminfo", "MemTotal: 67108864 kB\nMemAvailable: 33554432 kB\n"); // 32 GiB free
    fake.write("/proc-self-mountinfo", "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
    fake.write("/proc-self-cgroup", "0::/job\n");
    fake.write("/sys/fs/cgroup/job/memory.max", std::to_string(2 * GiB));
    fake.write("/sys/fs/cgroup/job/memory.current", "0");
    const HostMemory host = available_host_memory(fake.root + "/meminfo", fake.sources);
    EXPECT_EQ(host.bytes, 2 * GiB);
    EXPECT_NE(host.source.find("memory.max"), std::string::npos) << host.source;
    try {
        // On the cpu device, whose buffers are host memory (a GPU's count against its own memory).
        require_memory(select_device("cpu"), "vector_add", 3.0 * GiB, 0, host);
        ADD_FAILURE() << "3 GiB passed a 2 GiB cgroup limit";
    } catch (const ResourceError& e) {
        EXPECT_NE(std::string(e.what()).find("memory cgroup"), std::string::npos) << e.what();
    }
    // Without the cgroup, MemAvailable decides.
    const HostMemory plain = available_host_memory(fake.root + "/meminfo", CgroupSources{"/nonexistent", "/nonexistent", ""});
    EXPECT_EQ(plain.bytes, 32 * GiB);
    EXPECT_EQ(plain.source, "MemAvailable");
}

} // namespace
} // namespace gpucore::cli

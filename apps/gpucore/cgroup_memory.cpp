// SPDX-License-Identifier: Apache-2.0
#include "cgroup_memory.hpp"

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <vector>

namespace gpucore::cli {
namespace {

// Limits at or above this are "no limit" (cgroup v1 writes 2^63 rounded down to a page).
constexpr std::uint64_t kUnlimited = std::uint64_t{1} << 62;

struct Hierarchy {
    std::string mount_point; // with the root prefix
    std::string mount_root;  // the group shown at the mount point
    bool v2 = false;
};

bool is_folder(const std::string& path) {
    struct stat status {};
    return ::stat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode);
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 3 < text.size()) {
            const std::string digits = text.substr(i + 1, 3);
            if (digits.size() == 3 && digits.find_first_not_of("01234567") == std::string::npos) {
                out += static_cast<char>(std::stoi(digits, nullptr, 8));
                i += 3;
                continue;
            }
        }
        out += text[i];
    }
    return out;
}

std::vector<std::string> words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> result;
    for (std::string w; in >> w;) result.push_back(w);
    return result;
}

// The cgroup hierarchies that can limit memory: every cgroup2 mount, and cgroup (v1) mounts with
// the memory controller.
std::vector<Hierarchy> memory_hierarchies(const CgroupSources& sources) {
    std::vector<Hierarchy> result;
    std::ifstream in(sources.mountinfo);
    for (std::string line; std::getline(in, line);) {
        const auto w = words(line);
        std::size_t dash = 0;
        while (dash < w.size() && w[dash] != "-") ++dash;
        if (dash < 5 || dash + 3 > w.size()) continue;
        const std::string& type = w[dash + 1];
        const std::string options = "," + w[dash + 3] + ",";
        const bool v2 = type == "cgroup2";
        if (!v2 && !(type == "cgroup" && options.find(",memory,") != std::string::npos)) continue;
        result.push_back({sources.root_prefix + unescape(w[4]), unescape(w[3]), v2});
    }
    return result;
}

// This process's group in each hierarchy: "0::/path" (v2) and "N:memory,...:/path" (v1).
std::optional<std::string> group_path(const CgroupSources& sources, bool v2) {
    std::ifstream in(sources.proc_self_cgroup);
    for (std::string line; std::getline(in, line);) {
        const auto first = line.find(':');
        const auto second = first == std::string::npos ? first : line.find(':', first + 1);
        if (second == std::string::npos) continue;
        const std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
        const bool matches = v2 ? line.compare(0, first, "0") == 0 && controllers == ",,"
                                : controllers.find(",memory,") != std::string::npos;
        if (matches) return line.substr(second + 1);
    }
    return std::nullopt;
}

// The number a cgroup file holds; nullopt for "max", a missing file or anything else.
std::optional<std::uint64_t> read_number(const std::string& path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text)) return std::nullopt;
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 19) {
        return std::nullopt;
    }
    return std::stoull(text);
}

// "inactive_file N" (v2) or "total_inactive_file N" (v1) of memory.stat; 0 when absent.
std::uint64_t inactive_file(const std::string& folder, bool v2) {
    std::ifstream in(folder + "/memory.stat");
    const std::string key = v2 ? "inactive_file" : "total_inactive_file";
    for (std::string name, value; in >> name >> value;) {
        if (name == key && !value.empty() && value.size() <= 19 &&
            value.find_first_not_of("0123456789") == std::string::npos) {
            return std::stoull(value);
        }
    }
    return 0;
}

// The folder of `group` under the hierarchy's mount. Inside a container the group may be named
// from the host's root (and the mount show the container's own group): the leading components
// that do not exist under the mount are dropped.
std::string group_folder(const Hierarchy& hierarchy, std::string group) {
    if (hierarchy.mount_root != "/" && group.compare(0, hierarchy.mount_root.size(), hierarchy.mount_root) == 0) {
        group = group.substr(hierarchy.mount_root.size());
    }
    while (!group.empty() && group != "/" && !is_folder(hierarchy.mount_point + group)) {
        const auto next = group.find('/', 1);
        group = next == std::string::npos ? std::string() : group.substr(next);
    }
    return group.empty() || group == "/" ? hierarchy.mount_point : hierarchy.mount_point + group;
}

} // namespace

std::optional<CgroupHeadroom> cgroup_memory_headroom(const CgroupSources& sources) {
    std::optional<CgroupHeadroom> tightest;
    for (const Hierarchy& hierarchy : memory_hierarchies(sources)) {
        const auto group = group_path(sources, hierarchy.v2);
        if (!group) continue;
        // From the process's group up to the mount: a parent's limit binds its children too.
        std::string folder = group_folder(hierarchy, *group);
        for (;;) {
            const std::string limit_file = folder + (hierarchy.v2 ? "/memory.max" : "/memory.limit_in_bytes");
            const auto limit = read_number(limit_file);
            if (limit && *limit < kUnlimited) {
                const auto usage = read_number(folder + (hierarchy.v2 ? "/memory.current" : "/memory.usage_in_bytes"));
                const std::uint64_t reclaimable = inactive_file(folder, hierarchy.v2);
                const std::uint64_t used = usage ? (*usage > reclaimable ? *usage - reclaimable : 0) : 0;
                const std::uint64_t headroom = *limit > used ? *limit - used : 0;
                if (!tightest || headroom < tightest->bytes) tightest = CgroupHeadroom{headroom, *limit, limit_file};
            }
            if (folder.size() <= hierarchy.mount_point.size()) break;
            folder = folder.substr(0, folder.rfind('/'));
        }
    }
    return tightest;
}

} // namespace gpucore::cli

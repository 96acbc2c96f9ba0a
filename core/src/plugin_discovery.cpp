// SPDX-License-Identifier: Apache-2.0
#include "plugin_discovery.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <system_error>
#include <utility>

#include <boost/dll/runtime_symbol_info.hpp>

#include "environment.hpp"
#include "logging.hpp"
#include "plugin_loader.hpp"

#ifndef GPUCORE_PLUGIN_DIR_NAME
#error "GPUCORE_PLUGIN_DIR_NAME must be defined by the build (core/CMakeLists.txt)"
#endif

namespace gpucore::detail {
namespace fs = std::filesystem;

namespace {

constexpr const char* origin_folder = "plugin folder";
constexpr const char* origin_path = "GPUCORE_PLUGIN_PATH";

bool looks_like_shared_object(const std::string& name) {
    const auto so = name.find(".so");
    return so != std::string::npos && (so + 3 == name.size() || name[so + 3] == '.');
}

// True when the regular file `path` starts with the ELF magic. Reads 4 bytes, never blocks.
bool starts_with_elf_magic(const fs::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return false;
    unsigned char magic[SELFMAG] = {};
    const bool elf = ::read(fd, magic, sizeof magic) == static_cast<ssize_t>(sizeof magic) &&
                     std::memcmp(magic, ELFMAG, SELFMAG) == 0;
    ::close(fd);
    return elf;
}

class CandidateCollector {
public:
    // The entries of `folder` that look like shared objects, sorted by name: files that start with
    // the ELF magic, and anything named *.so or *.so.N (listed even when broken, so that its reason
    // is visible). Other files (CMakeCache.txt, notes) are not candidates.
    void add_folder(const fs::path& folder, const char* origin, const std::string& note) {
        std::vector<fs::directory_entry> entries;
        std::error_code ec;
        fs::directory_iterator it(folder, ec);
        if (ec) {
            add_skipped(folder, origin, "cannot list folder: " + ec.message(), note);
            return;
        }
        for (; it != fs::directory_iterator(); it.increment(ec)) {
            if (ec) break;
            entries.push_back(*it);
        }
        if (ec) {
            add_skipped(folder, origin, "error while listing folder: " + ec.message(), note);
        }
        std::sort(entries.begin(), entries.end(),
                  [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
        for (const auto& entry : entries) {
            const std::string name = entry.path().filename().string();
            if (!name.empty() && name.front() == '.') continue; // hidden files are not candidates
            std::error_code type_ec;
            const bool is_file = entry.is_regular_file(type_ec); // follows symlinks
            if (!looks_like_shared_object(name) && !(is_file && starts_with_elf_magic(entry.path()))) continue;
            add_file(entry.path(), origin, note);
        }
    }

    // One file; only its identity is checked here (the trust rule and its content are checked
    // when it is opened for loading).
    void add_file(const fs::path& file, const char* origin, const std::string& note) {
        struct stat file_stat {};
        if (::stat(file.c_str(), &file_stat) == 0 && S_ISREG(file_stat.st_mode) &&
            !seen_.insert({file_stat.st_dev, file_stat.st_ino}).second) {
            add_skipped(file, origin, "same file as an earlier candidate (already considered)", note);
            return;
        }
        // Dangling links, loops and non-files are listed: opening them names the precise reason.
        add_candidate(file, origin, {}, note);
    }

    void add_skipped(const fs::path& path, const char* origin, std::string reason, const std::string& note) {
        add_candidate(path, origin, std::move(reason), note);
    }

    std::vector<CandidateFile> take() { return std::move(candidates_); }

private:
    void add_candidate(const fs::path& path, const char* origin, std::string reason, const std::string& note) {
        CandidateFile candidate;
        candidate.path = path;
        candidate.origin = origin;
        candidate.skip_reason = std::move(reason);
        candidate.note = note;
        candidates_.push_back(std::move(candidate));
    }

    std::set<std::pair<dev_t, ino_t>> seen_;
    std::vector<CandidateFile> candidates_;
};

std::vector<std::string> split_path_list(const std::string& list) {
    std::vector<std::string> parts;
    std::string::size_type begin = 0;
    while (begin <= list.size()) {
        auto end = list.find(':', begin);
        if (end == std::string::npos) end = list.size();
        if (end > begin) parts.push_back(list.substr(begin, end - begin));
        begin = end + 1;
    }
    return parts;
}

} // namespace

fs::path default_plugin_folder() {
    // The file holding this very function is libgpucore (or the program it is linked into).
    const fs::path library = boost::dll::this_line_location();
    return library.parent_path() / GPUCORE_PLUGIN_DIR_NAME;
}

DiscoverySettings discovery_settings_from_environment() {
    DiscoverySettings settings;
    try {
        settings.plugin_folder = default_plugin_folder();
    } catch (const std::exception& e) {
        logger().warn("cannot locate libgpucore's folder, so no plugin folder is searched: {}", e.what());
    }
    settings.plugin_path = environment_variable(env_plugin_path);
    settings.allow_insecure = environment_flag(env_allow_insecure_plugins);
    return settings;
}

std::vector<CandidateFile> discover_plugin_candidates(const DiscoverySettings& settings) {
    CandidateCollector collector;
    if (settings.plugin_folder) {
        std::error_code ec;
        if (fs::is_directory(*settings.plugin_folder, ec)) {
            collector.add_folder(*settings.plugin_folder, origin_folder, {});
        } else {
            logger().debug("plugin folder {} does not exist", settings.plugin_folder->string());
        }
    }
    if (settings.plugin_path) {
        for (const auto& entry : split_path_list(*settings.plugin_path)) {
            fs::path path(entry);
            std::string note;
            if (path.is_relative()) {
                std::error_code ec;
                const fs::path absolute = fs::absolute(path, ec);
                if (ec) {
                    collector.add_skipped(path, origin_path, "cannot resolve relative entry: " + ec.message(), {});
                    continue;
                }
                note = "relative GPUCORE_PLUGIN_PATH entry '" + entry + "' resolved to " + absolute.string();
                logger().warn("{}", note);
                path = absolute;
            }
            std::error_code ec;
            const auto status = fs::status(path, ec);
            if (status.type() == fs::file_type::not_found) {
                collector.add_skipped(path, origin_path, "does not exist", note);
            } else if (fs::is_directory(status)) {
                collector.add_folder(path, origin_path, note);
            } else {
                collector.add_file(path, origin_path, note);
            }
        }
    }
    return collector.take();
}

std::string backend_name_from_file_name(const fs::path& path) {
    const std::string name = path.filename().string();
    const std::string prefix = "libgpucore-";
    const auto so = name.find(".so");
    if (name.rfind(prefix, 0) != 0 || so == std::string::npos || so <= prefix.size()) return {};
    std::string backend = name.substr(prefix.size(), so - prefix.size());
    return is_valid_backend_name(backend) ? backend : std::string();
}

} // namespace gpucore::detail

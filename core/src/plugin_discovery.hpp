// SPDX-License-Identifier: Apache-2.0
// Which files are plugin candidates, and in which order. Whether a candidate may be trusted is
// decided when it is opened (plugin_trust.hpp); what it contains, by inspection.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpucore::detail {

struct CandidateFile {
    std::filesystem::path path; // absolute
    std::string origin;         // "plugin folder" or "GPUCORE_PLUGIN_PATH"
    std::string skip_reason;    // non-empty: do not inspect or load
    std::string note;           // informational, e.g. "relative entry 'x' resolved to /a/x"
};

struct DiscoverySettings {
    std::optional<std::filesystem::path> plugin_folder; // the folder beside libgpucore
    std::optional<std::string> plugin_path;             // GPUCORE_PLUGIN_PATH as read
    bool allow_insecure = false;                        // GPUCORE_ALLOW_INSECURE_PLUGINS=1 (applied when opening)
};

// The plugin folder beside libgpucore: <folder of libgpucore>/GPUCORE_PLUGIN_DIR_NAME.
std::filesystem::path default_plugin_folder();

// The settings as this process's environment gives them (read with secure_getenv).
DiscoverySettings discovery_settings_from_environment();

// Candidates in the order they are to be considered: the entries of the plugin folder (sorted by
// name), then each GPUCORE_PLUGIN_PATH entry (colon-separated; a file of any name, or the entries
// of a folder, sorted). A folder contributes the entries that look like shared objects: files
// starting with the ELF magic, and anything named *.so or *.so.N (a fifo or folder so named is
// listed, to be refused with its reason). Never the current directory implicitly: empty entries are
// ignored, and a relative entry is resolved against the current directory with a note saying so.
// A file already listed is skipped. Reads at most 4 bytes of a file, never blocking. Never throws
// except std::bad_alloc. Thread-safe.
std::vector<CandidateFile> discover_plugin_candidates(const DiscoverySettings& settings);

// "libgpucore-cuda.so" -> "cuda"; empty when the name does not follow that pattern. Lets an
// explicitly selected backend whose file was refused before its name could be read find its reason.
std::string backend_name_from_file_name(const std::filesystem::path& path);

} // namespace gpucore::detail

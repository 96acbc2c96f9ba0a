// Checks on a candidate plugin file that read it WITHOUT running any of its code: file type,
// ELF structure, and the exported entry symbol (through boost::dll::library_info). A file that
// fails here never reaches dlopen, so its static constructors never run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace gpucore::detail {

struct PluginInspection {
    bool acceptable = false; // true: the file may be loaded
    std::string reason;      // why it may not (empty when acceptable)
    std::string symlink_note; // "symlink to <target>" when the path is a symlink, else empty
    std::optional<unsigned> abi_major; // the ABI major its entry symbol names, when found
};

// Inspects `path`: it must be (or resolve to) a readable regular file, a well-formed ELF shared
// object for this machine's architecture, exporting "gpucore_plugin_entry_v<major>" with the major
// this gpucore speaks. Every failure (including exceptions from library_info on junk or truncated
// files) becomes `reason`; only std::bad_alloc can escape. Thread-safe.
PluginInspection inspect_plugin_file(const std::filesystem::path& path);

} // namespace gpucore::detail

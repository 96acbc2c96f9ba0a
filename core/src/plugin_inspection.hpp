// SPDX-License-Identifier: Apache-2.0
// Checks on a candidate plugin file that read it WITHOUT running any of its code: ELF structure
// and the exported entry symbol, read from the file's dynamic symbol table. A file that fails
// here never reaches dlopen, so its static constructors never run.
//
// Everything read from the file is bounded before it is used: offsets and sizes against the real
// file size, and the tables read into memory against fixed caps, so a crafted or sparse file costs
// at most a few tens of MiB and milliseconds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace gpucore::detail {

struct PluginInspection {
    bool acceptable = false; // true: the file may be loaded
    std::string reason;      // why it may not (empty when acceptable)
    std::string symlink_note; // "symlink to <target>" when the path is a symlink, else empty
    std::optional<unsigned> abi_major; // the ABI major its entry symbol names, when found
    std::string manifest;    // the manifest section's text, when one was asked for and found
};

// The entry point a kind of loadable file exports: "<prefix><major>", a function. Kernel modules
// also carry a manifest: a NUL-terminated text in the section `manifest_section`, at most
// `manifest_capacity` bytes.
struct EntryPoint {
    const char* prefix;
    unsigned major;
    const char* manifest_section = nullptr;
    std::size_t manifest_capacity = 0;
};
extern const EntryPoint plugin_entry_point;

// inspect_plugin_descriptor for any kind of entry point.
PluginInspection inspect_shared_object(int fd, std::uint64_t file_size, const EntryPoint& entry);

// The largest dynamic symbol table and dynamic string table the inspection reads (each).
inline constexpr std::uint64_t max_inspected_table_bytes = std::uint64_t{16} << 20;

// Inspects the open regular file `fd` of `file_size` bytes (read with pread; the offset of `fd`
// is not used): it must be a well-formed ELF shared object for this machine's architecture whose
// dynamic symbol table defines GPUCORE_PLUGIN_ENTRY_NAME exactly, as a function (STT_FUNC) with
// default or protected visibility. A look-alike (`gpucore_plugin_entry_v01`, `..._v1x`) is not the
// entry; another canonical major (`..._v2`) is reported as an ABI mismatch; an entry that is a data
// object is refused. Every failure becomes `reason`; only std::bad_alloc can escape. Thread-safe.
PluginInspection inspect_plugin_descriptor(int fd, std::uint64_t file_size);

// Opens `path` (following symlinks, without blocking on a fifo), names its file type when it is
// not a regular file, then inspects it as above. Used where no trust check is wanted (the fuzzer).
PluginInspection inspect_plugin_file(const std::filesystem::path& path);

} // namespace gpucore::detail

// SPDX-License-Identifier: Apache-2.0
// Loading one inspected plugin file: dlopen through boost::dll, the entry call, the table checks.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include <boost/dll/shared_library.hpp>

#include "gpucore/plugin.h"

namespace gpucore::detail {

struct PluginLoadResult {
    // Loaded whenever dlopen succeeded, even if the plugin was then refused: its code has run, so
    // unloading it could leave dangling atexit handlers or threads. The runtime keeps it forever.
    boost::dll::shared_library library;
    const gpucore_plugin_api* table = nullptr; // set on success
    std::string reason;                        // why not, when table is null
    std::string backend_name;                  // the table's name when it was read, else empty
};

// Loads `path` (a resolved path, opened and checked before as `checked`) with RTLD_NOW |
// RTLD_LOCAL (a missing dependency or undefined symbol fails here, with the dynamic loader's text
// naming the library), refuses it when the path now names another file than `checked`, imports
// GPUCORE_PLUGIN_ENTRY_NAME, calls it (a C++ exception it throws is caught and becomes the reason)
// and validates the table (validate_plugin_table). Does not call init. Never throws except
// std::bad_alloc. Not thread-safe with itself (dlerror is per thread; the runtime loads plugins
// from one thread, once).
PluginLoadResult load_plugin(const std::filesystem::path& path, const struct stat& checked);

// Bytes of the ABI 1.0 table (up to and including reduce_rows): the least struct_size accepted.
inline constexpr std::size_t kAbi10TableSize =
    offsetof(gpucore_plugin_api, reduce_rows) + sizeof(gpucore_plugin_api::reduce_rows);

// Checks a table returned by an entry point: ABI major, struct_size covering the 1.0 table, every
// required slot (lifecycle, devices, memory, streams, events, copy, fill) non-null, name valid
// ([a-z0-9_-], 1..63 characters, not "auto"). Operation slots and slots added after 1.0 are
// optional. Reads nothing beyond the table's struct_size. Returns the problem, or empty when the
// table is usable.
std::string validate_plugin_table(const gpucore_plugin_api* table);

// True for a valid backend name: 1..63 characters of [a-z0-9_-], and not the reserved "auto".
bool is_valid_backend_name(const std::string& name);

} // namespace gpucore::detail

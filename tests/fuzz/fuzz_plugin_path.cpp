// SPDX-License-Identifier: Apache-2.0
// Fuzz target: GPUCORE_PLUGIN_PATH as the discovery reads it (core/src/plugin_discovery.cpp):
// the input is the variable's value. Discovery splits it, resolves relative entries, stats and
// lists what the entries name (reading at most the first 4 bytes of a file; it never loads one).
// Findings: crashes, sanitizer reports, any exception, a relative candidate path, and a file of
// the current directory that became a candidate although no entry named it (the current directory
// is never searched implicitly: empty entries are ignored, a relative entry is reported in the
// candidate's note).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_check.hpp"
#include "plugin_discovery.hpp"

namespace fs = std::filesystem;

namespace {

fs::path g_cwd; // a private folder holding a plugin-named file, made the current directory

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/gpucore-fuzz-cwd-XXXXXX";
    FUZZ_CHECK(::mkdtemp(pattern.data()) != nullptr, "mkdtemp(%s) failed", pattern.c_str());
    g_cwd = fs::canonical(pattern);
    std::ofstream(g_cwd / "libgpucore-cwd.so") << "a file in the current directory";
    fs::current_path(g_cwd);
    std::atexit([] {
        std::error_code ec;
        fs::current_path(g_cwd.parent_path(), ec);
        fs::remove_all(g_cwd, ec);
    });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    if (text.find('\0') != std::string::npos) return 0; // an environment variable cannot hold NUL
    gpucore::detail::DiscoverySettings settings;
    settings.plugin_path = text;
    settings.allow_insecure = size % 2 == 1; // both policies
    const auto candidates = gpucore::detail::discover_plugin_candidates(settings);
    for (const auto& c : candidates) {
        FUZZ_CHECK(c.path.is_absolute(), "relative candidate path '%s'", c.path.c_str());
        FUZZ_CHECK(c.origin == "GPUCORE_PLUGIN_PATH", "origin '%s'", c.origin.c_str());
        const bool in_cwd = c.path.parent_path() == g_cwd || c.path == g_cwd;
        if (in_cwd) {
            // Naming the folder takes its (random) name, or a relative entry, which leaves a note.
            FUZZ_CHECK(!c.note.empty() || text.find(g_cwd.filename().string()) != std::string::npos,
                       "'%s' became a candidate from the current directory without being named (value '%s')",
                       c.path.c_str(), text.c_str());
        }
    }
    return 0;
}

// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the inspection of a candidate plugin file (core/src/plugin_inspection.cpp), which
// reads ELF headers, section tables and symbol tables of files it did not write, before anything
// is loaded. The input bytes are written as a plugin file and inspected. Crashes, sanitizer
// reports, exceptions other than std::bad_alloc and broken invariants are findings.
#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>

#include "fuzz_check.hpp"
#include "gpucore/plugin.h"
#include "plugin_inspection.hpp"

namespace {

std::filesystem::path g_file; // <private temp folder>/libgpucore-fuzz.so, rewritten for each input

long peak_rss_kb() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

// The peak resident size before the first input. The inspection reads at most two tables of
// gpucore::detail::max_inspected_table_bytes: an input that grows the peak far beyond that made it
// allocate from sizes it did not bound. Checked when replaying (GPUCORE_FUZZ_REPLAY); in fuzzing
// runs libFuzzer's -rss_limit_mb does it, as libFuzzer's own memory grows with its corpus.
long g_baseline_rss_kb = 0;
constexpr long max_growth_kb = 256 * 1024;

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/gpucore-fuzz-XXXXXX";
    FUZZ_CHECK(::mkdtemp(pattern.data()) != nullptr, "mkdtemp(%s) failed", pattern.c_str());
    g_file = std::filesystem::path(pattern) / "libgpucore-fuzz.so";
    g_baseline_rss_kb = peak_rss_kb();
    std::atexit([] {
        std::error_code ec;
        std::filesystem::remove_all(g_file.parent_path(), ec);
    });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    {
        std::ofstream out(g_file, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
        FUZZ_CHECK(out.good(), "cannot write %s", g_file.c_str());
    }
    gpucore::detail::PluginInspection result;
    try {
        result = gpucore::detail::inspect_plugin_file(g_file);
    } catch (const std::bad_alloc&) {
        return 0; // documented: the only exception that may escape
    }
    if (result.acceptable) {
        FUZZ_CHECK(result.reason.empty(), "acceptable with a reason: %s", result.reason.c_str());
        FUZZ_CHECK(result.abi_major && *result.abi_major == GPUCORE_PLUGIN_ABI_MAJOR, "acceptable without ABI major");
        FUZZ_CHECK(size >= 64 && data[0] == 0x7f && data[1] == 'E' && data[2] == 'L' && data[3] == 'F',
                   "a file that is not an ELF shared object was accepted");
    } else {
        FUZZ_CHECK(!result.reason.empty(), "refused without a reason");
        // Every buffer the inspection sizes must fit in the file: a refusal because an allocation
        // failed means a size was taken from the file unchecked (and a smaller bogus size would
        // have been granted: gigabytes for a file of a few hundred bytes).
        // The reason may quote a symbol name read from the file ("it exports <name>, ..."): only
        // the core's own text before it is checked.
        const std::string own_text = result.reason.substr(0, result.reason.find("it exports "));
        FUZZ_CHECK(own_text.find("bad_alloc") == std::string::npos &&
                       own_text.find("vector::") == std::string::npos &&
                       own_text.find("length_error") == std::string::npos,
                   "an allocation sized from the file failed: %s", result.reason.c_str());
    }
    FUZZ_CHECK(result.symlink_note.empty(), "a regular file was reported as a symlink");
#if defined(GPUCORE_FUZZ_REPLAY)
    FUZZ_CHECK(peak_rss_kb() - g_baseline_rss_kb < max_growth_kb,
               "inspecting %zu bytes raised the peak resident size by %ld KiB", size, peak_rss_kb() - g_baseline_rss_kb);
#endif
    return 0;
}

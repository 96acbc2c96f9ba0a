// SPDX-License-Identifier: Apache-2.0
#include "plugin_under_test.hpp"

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <system_error>

#include "gpucore/device.hpp"

namespace conformance {
namespace {

namespace fs = std::filesystem;

bool same_file(const std::string& a, const std::string& b) {
    std::error_code error;
    return fs::equivalent(a, b, error) && !error;
}

} // namespace

PluginUnderTest load_plugin_under_test(const std::string& file) {
    PluginUnderTest plugin;
    std::error_code error;
    plugin.path = fs::absolute(file, error).lexically_normal().string();
    if (error || !fs::is_regular_file(plugin.path, error)) {
        plugin.path = file;
        plugin.problem = "no such plugin file: " + file;
        return plugin;
    }

    // Discovery reads GPUCORE_PLUGIN_PATH once, at first use of gpucore.
    const char* existing = std::getenv("GPUCORE_PLUGIN_PATH");
    std::string search = plugin.path;
    if (existing != nullptr && *existing != '\0') search += std::string(":") + existing;
    ::setenv("GPUCORE_PLUGIN_PATH", search.c_str(), 1);

    try {
        for (const auto& candidate : gpucore::plugin_candidates()) {
            if (!same_file(candidate.path, plugin.path)) continue;
            if (candidate.outcome != gpucore::PluginCandidate::Outcome::loaded) {
                plugin.problem = "not loaded: " + candidate.reason;
                return plugin;
            }
            plugin.backend = candidate.backend;
        }
        if (plugin.backend.empty()) {
            if (plugin.problem.empty()) plugin.problem = "gpucore did not consider the file";
            return plugin;
        }
        for (const auto& backend : gpucore::backends()) {
            if (backend.name != plugin.backend || !same_file(backend.source, plugin.path)) continue;
            plugin.version = backend.version;
            plugin.device_count = backend.device_count;
            if (backend.device_count == 0)
                plugin.problem = "the plugin reports no device" +
                                 (backend.reason.empty() ? std::string() : ": " + backend.reason);
            return plugin;
        }
        plugin.problem = "loaded, but backend '" + plugin.backend + "' is not the one registered";
    } catch (const std::exception& e) {
        plugin.problem = e.what();
    }
    return plugin;
}

} // namespace conformance

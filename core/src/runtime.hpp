// SPDX-License-Identifier: Apache-2.0
// The process-lifetime registry of backends and plugin candidates.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include "backend.hpp"
#include "gpucore/device.hpp"
#include "plugin_discovery.hpp"

namespace gpucore::detail {

class Runtime {
public:
    // The registry, built on first use (std::call_once: discovery and loading run exactly once
    // per process, whichever thread gets here first, and are never repeated, even when they
    // failed). Deliberately never destroyed, so Devices, Buffers and Streams that outlive main()
    // stay valid and plugins are never unloaded. Throws Error(plugin_error) when called from the
    // thread that is starting the runtime (a plugin calling back into gpucore from its entry point,
    // init, device_count or device_properties), and Error(backend_unavailable) after a start that
    // failed (out of memory).
    static Runtime& instance();

    // Every registered backend in selection order: cuda, hip, other plugins by name, cpu.
    const std::vector<Backend*>& backends() const noexcept { return ordered_; }
    Backend* find(std::string_view name) const noexcept;
    // Every file discovery considered, in order, with its outcome.
    const std::vector<PluginCandidate>& candidates() const noexcept { return candidates_; }
    // Where discovery looked, for error messages.
    const DiscoverySettings& settings() const noexcept { return settings_; }

private:
    Runtime();
    static std::string& start_failure();
    void register_builtin_cpu();
    void load_plugins();
    void order_backends();
    const Backend* find_owned(const std::string& name) const noexcept;

    DiscoverySettings settings_;
    std::vector<std::unique_ptr<Backend>> owned_;
    std::vector<Backend*> ordered_;
    std::vector<PluginCandidate> candidates_;
    std::vector<boost::dll::shared_library> libraries_; // never unloaded
};

} // namespace gpucore::detail

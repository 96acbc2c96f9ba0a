// SPDX-License-Identifier: Apache-2.0
#include "info_command.hpp"

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "exit_codes.hpp"
#include "output.hpp"
#include "gpucore/gpucore.hpp"
#include "text_table.hpp"

namespace gpucore::cli {

const char* const info_usage = "gpucore info [--json]";

namespace {

// Read as the library reads it (secure_getenv): a privileged run shows what gpucore used.
std::string gpu_backend_variable() {
    const char* value = ::secure_getenv("GPU_BACKEND");
    return value ? value : "";
}

std::string bytes_text(std::uint64_t bytes) {
    if (bytes == 0) return "unknown";
    const double gib = static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
    if (gib >= 1.0) return fixed(gib, 1) + " GiB";
    return fixed(static_cast<double>(bytes) / (1024.0 * 1024.0), 1) + " MiB";
}

nlohmann::json device_json(const Device& device) {
    const DeviceProperties& p = device.properties();
    return {{"id", device.to_string()},
            {"backend", p.backend},
            {"index", p.index},
            {"name", p.name},
            {"vendor", p.vendor},
            {"architecture", p.architecture},
            {"total_memory_bytes", p.total_memory_bytes},
            {"compute_units", p.compute_units},
            {"warp_size", p.warp_size},
            {"l2_cache_bytes", p.l2_cache_bytes},
            {"peak_memory_bandwidth_gbps", p.peak_memory_bandwidth_gbps},
            {"supports_pinned_host", p.supports_pinned_host},
            {"supports_managed", p.supports_managed}};
}

void print_text(const std::vector<BackendInfo>& backends,
                const std::vector<PluginCandidate>& candidates, const std::vector<Device>& devices,
                const std::string& selection, const std::optional<Device>& chosen,
                const std::string& selection_error) {
    std::cout << "Backends\n";
    TextTable backend_table({"  name", "usable", "devices", "version", "source", "reason"});
    for (const BackendInfo& b : backends)
        backend_table.add_row({"  " + b.name, b.usable ? "yes" : "no",
                               std::to_string(b.device_count), b.version, b.source, b.reason});
    backend_table.print(std::cout);

    std::cout << "\nPlugin candidates (" << candidates.size() << ")\n";
    if (candidates.empty()) std::cout << "  none found\n";
    for (const PluginCandidate& c : candidates) {
        std::cout << "  " << to_string(c.outcome) << "  " << c.path;
        if (!c.backend.empty()) std::cout << "  [" << c.backend << "]";
        if (!c.reason.empty()) std::cout << "\n      " << c.reason;
        std::cout << "\n";
    }

    std::cout << "\nDevices (" << devices.size() << ")\n";
    for (const Device& d : devices) {
        const DeviceProperties& p = d.properties();
        std::cout << "  " << d.to_string() << "  " << p.name << "\n"
                  << "      vendor " << p.vendor << ", architecture " << p.architecture
                  << ", compute units " << p.compute_units << ", warp size " << p.warp_size
                  << "\n"
                  << "      memory " << bytes_text(p.total_memory_bytes) << ", L2 "
                  << bytes_text(p.l2_cache_bytes) << ", peak bandwidth "
                  << (p.peak_memory_bandwidth_gbps > 0
                          ? fixed(p.peak_memory_bandwidth_gbps, 1) + " GB/s"
                          : std::string("unknown"))
                  << "\n"
                  << "      pinned host memory " << (p.supports_pinned_host ? "yes" : "no")
                  << ", managed memory " << (p.supports_managed ? "yes" : "no") << "\n";
    }

    std::cout << "\nDefault device (GPU_BACKEND=" << (selection.empty() ? "<unset>" : selection)
              << "): " << (chosen ? chosen->to_string() : "unavailable: " + selection_error)
              << "\n";
}

} // namespace

CLI::App* add_info_command(CLI::App& app, InfoOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "info", "Show backends, every plugin file considered (loaded or skipped, and why), "
                "devices and their properties, and the device GPU_BACKEND selects");
    cmd->add_flag("--json", o.json, "Print one JSON object instead of text");
    return cmd;
}

int info_command(const InfoOptions& o) {
    const std::vector<BackendInfo> backend_list = backends();
    const std::vector<PluginCandidate> candidates = plugin_candidates();
    const std::vector<Device> device_list = devices();
    const std::string selection = gpu_backend_variable();

    // The selection is the one thing here that may fail; report everything else regardless.
    std::optional<Device> chosen;
    std::string selection_error;
    try {
        chosen = default_device();
    } catch (const Error& e) {
        selection_error = e.what();
    }

    if (o.json) {
        nlohmann::json out;
        out["backends"] = nlohmann::json::array();
        for (const BackendInfo& b : backend_list)
            out["backends"].push_back({{"name", b.name},
                                       {"source", b.source},
                                       {"version", b.version},
                                       {"usable", b.usable},
                                       {"device_count", b.device_count},
                                       {"reason", b.reason}});
        out["plugin_candidates"] = nlohmann::json::array();
        for (const PluginCandidate& c : candidates)
            out["plugin_candidates"].push_back({{"path", c.path},
                                                {"outcome", to_string(c.outcome)},
                                                {"backend", c.backend},
                                                {"reason", c.reason}});
        out["devices"] = nlohmann::json::array();
        for (const Device& d : device_list) out["devices"].push_back(device_json(d));
        out["gpu_backend"] = selection;
        out["default_device"] = chosen ? nlohmann::json(chosen->to_string()) : nlohmann::json();
        if (!chosen) out["selection_error"] = selection_error;
        std::cout << json_text(out) << "\n";
    } else {
        print_text(backend_list, candidates, device_list, selection, chosen, selection_error);
    }

    if (!chosen) {
        std::cerr << "gpucore: " << selection_error << "\n";
        return exit_gpucore_error;
    }
    return exit_success;
}

} // namespace gpucore::cli

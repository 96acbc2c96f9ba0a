// SPDX-License-Identifier: Apache-2.0
#include "backend_selection.hpp"

#include <climits>

#include "access.hpp"
#include "logging.hpp"
#include "plugin_loader.hpp"
#include "runtime.hpp"

namespace gpucore::detail {

namespace {

[[noreturn]] void invalid(const char* operation, std::string_view text, const std::string& why) {
    throw Error(ErrorCode::invalid_argument, operation, "", -1,
                "invalid backend selection '" + std::string(text) + "': " + why +
                    " (want auto, or a backend name with an optional :N device index, e.g. cuda:1)");
}

std::string available_names(const Runtime& runtime) {
    std::string names;
    for (const Backend* backend : runtime.backends()) {
        if (!names.empty()) names += ", ";
        names += backend->name();
        if (!backend->usable()) names += " (unusable)";
    }
    return names.empty() ? std::string("none") : names;
}

std::string where_plugins_were_sought(const Runtime& runtime) {
    const auto& settings = runtime.settings();
    std::string where = settings.plugin_folder ? settings.plugin_folder->string() : "(no plugin folder)";
    where += settings.plugin_path ? ", GPUCORE_PLUGIN_PATH='" + *settings.plugin_path + "'"
                                  : ", GPUCORE_PLUGIN_PATH unset";
    return where;
}

// "; skipped plugin files, any of which may be it: <path> (backend <guess>): <reason>; ..." for
// every candidate that was skipped, or "" when none was.
std::string skipped_candidates(const Runtime& runtime) {
    std::string list;
    for (const auto& candidate : runtime.candidates()) {
        if (candidate.outcome != PluginCandidate::Outcome::skipped) continue;
        list += (list.empty() ? "" : "; ") + candidate.path;
        if (!candidate.backend.empty()) list += " (backend " + candidate.backend + ")";
        list += " was skipped: " + candidate.reason;
    }
    return list.empty() ? list : "; skipped plugin files, any of which may be it: " + list;
}

// The error goes to the caller, who decides whether and how to show it: logging it too would
// print the cause twice (or report a failure the caller handled).
[[noreturn]] void unavailable(const char* operation, const std::string& backend, int device,
                              const std::string& cause) {
    logger().debug("{}: backend {} is unavailable: {}", operation, backend, cause);
    throw Error(ErrorCode::backend_unavailable, operation, backend, device, cause);
}

// Test-only backends (names starting with "test-", e.g. test-wave64, the GPU kernels executed on
// the CPU) are selected by name only: auto never picks one, wherever its plugin was found.
bool auto_may_pick(const Backend& backend) { return backend.name().rfind("test-", 0) != 0; }

} // namespace

BackendSelection parse_backend_selection(std::string_view text, const char* operation) {
    BackendSelection selection;
    if (text.empty() || text == "auto") return selection;
    const auto colon = text.find(':');
    const std::string_view name = text.substr(0, colon);
    if (name.empty()) invalid(operation, text, "missing backend name before ':'");
    if (name == "auto") invalid(operation, text, "auto takes no device index");
    if (!is_valid_backend_name(std::string(name))) {
        invalid(operation, text, "backend names are 1-63 characters of lowercase a-z, 0-9, '_' and '-'");
    }
    selection.automatic = false;
    selection.backend = std::string(name);
    if (colon == std::string_view::npos) return selection;

    const std::string_view index = text.substr(colon + 1);
    if (index.empty()) invalid(operation, text, "missing device index after ':'");
    long long value = 0;
    for (char c : index) {
        if (c < '0' || c > '9') invalid(operation, text, "device index '" + std::string(index) + "' is not a non-negative integer");
        value = value * 10 + (c - '0');
        if (value > INT_MAX) invalid(operation, text, "device index '" + std::string(index) + "' is too large");
    }
    selection.device = static_cast<int>(value);
    return selection;
}

Device select_device(const Runtime& runtime, std::string_view text, const char* operation) {
    const BackendSelection selection = parse_backend_selection(text, operation);

    // A file whose backend name is unknown (refused before its table was read: untrusted, wrong
    // ABI, not a plugin...) may be the one asked for, or a usable second copy of it: every
    // failed selection names each skipped file with its reason (skipped_candidates).
    if (selection.automatic) {
        for (Backend* backend : runtime.backends()) {
            if (backend->usable() && auto_may_pick(*backend)) return Access::make_device(backend, 0);
        }
        std::string why;
        for (const Backend* backend : runtime.backends()) {
            why += (why.empty() ? "" : "; ") + backend->name() + ": " + backend->reason();
        }
        throw Error(ErrorCode::backend_unavailable, operation, "", -1,
                    "no backend reports a device (" + (why.empty() ? std::string("no backends") : why) + ")" +
                        skipped_candidates(runtime));
    }

    if (Backend* backend = runtime.find(selection.backend)) {
        if (!backend->usable()) {
            unavailable(operation, backend->name(), selection.device.value_or(-1),
                        "backend " + backend->name() + " (" + backend->source() + ") is unusable: " +
                            backend->reason() + skipped_candidates(runtime));
        }
        const int index = selection.device.value_or(0);
        if (index >= backend->device_count()) {
            throw Error(ErrorCode::invalid_argument, operation, backend->name(), index,
                        std::string(text) + ": backend " + backend->name() + " has " +
                            std::to_string(backend->device_count()) + " device(s)");
        }
        return Access::make_device(backend, index);
    }

    // Not registered: was a file for it refused? Its reason is the answer.
    std::string refused;
    for (const auto& candidate : runtime.candidates()) {
        if (candidate.backend != selection.backend) continue;
        refused += (refused.empty() ? "" : "; ") + candidate.path + " was skipped: " + candidate.reason;
    }
    if (!refused.empty()) {
        unavailable(operation, selection.backend, selection.device.value_or(-1),
                    "backend " + selection.backend + " did not load: " + refused);
    }
    if (selection.backend == "cuda" || selection.backend == "hip") {
        unavailable(operation, selection.backend, selection.device.value_or(-1),
                    "the " + selection.backend + " plugin (libgpucore-" + selection.backend +
                        ".so) was not found (searched " + where_plugins_were_sought(runtime) +
                        "); available backends: " + available_names(runtime) + skipped_candidates(runtime));
    }
    logger().debug("{}: unknown backend '{}'", operation, selection.backend);
    throw Error(ErrorCode::invalid_argument, operation, "", -1,
                "unknown backend '" + selection.backend + "'; available backends: " +
                    available_names(runtime) + " (plugins searched in " +
                    where_plugins_were_sought(runtime) + ")" + skipped_candidates(runtime));
}

} // namespace gpucore::detail

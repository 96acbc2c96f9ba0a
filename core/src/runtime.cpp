// SPDX-License-Identifier: Apache-2.0
#include "runtime.hpp"

#include <algorithm>
#include <mutex>

#include "logging.hpp"
#include "plugin_boundary.hpp"
#include "plugin_inspection.hpp"
#include "plugin_loader.hpp"
#include "plugin_trust.hpp"

#if defined(GPUCORE_HAVE_CPU_BACKEND)
#include "cpu_backend.h"
#endif

namespace gpucore::detail {

namespace {

// True on the thread that is starting the runtime, while it does: a plugin's entry, init,
// device_count or device_properties that calls back into gpucore gets an Error instead of waiting
// forever for the start it is part of.
thread_local bool starting_on_this_thread = false;

} // namespace

Runtime& Runtime::instance() {
    static std::once_flag once;
    static Runtime* runtime = nullptr;
    if (starting_on_this_thread) {
        throw Error(ErrorCode::plugin_error, "gpucore runtime start", "", -1,
                    "called back into gpucore while it is loading plugins (from a plugin's entry point, init, "
                    "device_count or device_properties); plugins must not call gpucore");
    }
    // Leaked on purpose (see the header). The once-function never throws, so the start is never
    // repeated: every plugin problem becomes a candidate's reason, and a failure of the start itself
    // (out of memory) is kept and raised by every later call.
    std::call_once(once, [] {
        starting_on_this_thread = true;
        try {
            runtime = new Runtime();
        } catch (...) {
            start_failure() = describe_current_exception();
        }
        starting_on_this_thread = false;
    });
    if (runtime == nullptr) {
        throw Error(ErrorCode::backend_unavailable, "gpucore runtime start", "", -1,
                    "the runtime failed to start: it " + start_failure());
    }
    return *runtime;
}

std::string& Runtime::start_failure() {
    static std::string failure;
    return failure;
}

Runtime::Runtime() : settings_(discovery_settings_from_environment()) {
    register_builtin_cpu();
    load_plugins();
    order_backends();
}

Backend* Runtime::find(std::string_view name) const noexcept {
    for (Backend* backend : ordered_) {
        if (backend->name() == name) return backend;
    }
    return nullptr;
}

const Backend* Runtime::find_owned(const std::string& name) const noexcept {
    for (const auto& backend : owned_) {
        if (backend->name() == name) return backend.get();
    }
    return nullptr;
}

void Runtime::register_builtin_cpu() {
#if defined(GPUCORE_HAVE_CPU_BACKEND)
    gpucore_message message;
    message.text[0] = '\0';
    const gpucore_plugin_api* table = gpucore_cpu_backend_table(&message);
    std::string problem;
    if (table == nullptr) {
        problem = std::string("gpucore_cpu_backend_table returned NULL: ") + message.text;
    } else {
        problem = validate_plugin_table(table);
    }
    if (!problem.empty()) {
        // Cannot happen with a correct build; reported loudly rather than hidden.
        logger().error("the built-in cpu backend is unusable: {}", problem);
        return;
    }
    auto backend = std::make_unique<Backend>(table, "built-in");
    backend->initialise();
    owned_.push_back(std::move(backend));
#else
    logger().warn("this libgpucore was built without the cpu backend");
#endif
}

void Runtime::load_plugins() {
    const auto files = discover_plugin_candidates(settings_);
    for (const auto& file : files) {
        PluginCandidate candidate;
        candidate.path = file.path.string();
        candidate.outcome = PluginCandidate::Outcome::skipped;
        candidate.backend = backend_name_from_file_name(file.path);
        auto add_note = [&candidate](const std::string& note) {
            if (note.empty()) return;
            if (!candidate.reason.empty()) candidate.reason += "; ";
            candidate.reason += note;
        };
        auto finish = [&] {
            logger().log(candidate.outcome == PluginCandidate::Outcome::loaded ? spdlog::level::debug
                                                                                : spdlog::level::info,
                         "plugin candidate {}: {}{}{}", candidate.path, to_string(candidate.outcome),
                         candidate.reason.empty() ? "" : ": ", candidate.reason);
            candidates_.push_back(std::move(candidate));
        };

        if (!file.skip_reason.empty()) {
            add_note(file.skip_reason);
            add_note(file.note);
            finish();
            continue;
        }
        OpenedCandidate opened = open_candidate(file.path, settings_.allow_insecure);
        if (!opened.reason.empty()) {
            add_note(opened.reason);
            add_note(opened.symlink_note);
            add_note(file.note);
            finish();
            continue;
        }
        const PluginInspection inspection =
            inspect_plugin_descriptor(opened.file.get(), static_cast<std::uint64_t>(opened.status.st_size));
        if (!inspection.acceptable) {
            add_note(inspection.reason);
            add_note(opened.symlink_note);
            add_note(file.note);
            finish();
            continue;
        }
        PluginLoadResult loaded = load_plugin(opened.resolved, opened.status);
        opened.file = FileDescriptor();
        if (loaded.library.is_loaded()) libraries_.push_back(std::move(loaded.library));
        if (!loaded.backend_name.empty()) candidate.backend = loaded.backend_name;
        if (loaded.table == nullptr) {
            add_note(loaded.reason);
            add_note(opened.symlink_note);
            add_note(file.note);
            finish();
            continue;
        }
        if (const Backend* earlier = find_owned(loaded.backend_name)) {
            add_note("backend '" + loaded.backend_name + "' already provided by " + earlier->source());
            add_note(opened.symlink_note);
            add_note(file.note);
            finish();
            continue;
        }
        auto backend = std::make_unique<Backend>(loaded.table, candidate.path);
        backend->initialise();
        if (!backend->initialised() || backend->broken()) {
            add_note(backend->reason());
        } else {
            candidate.outcome = PluginCandidate::Outcome::loaded;
            // "0 devices: <why>" stays visible on the candidate, not only on the backend.
            add_note(backend->reason());
        }
        add_note(opened.symlink_note);
        add_note(file.note);
        // A backend whose init failed is still registered: it is known by name, so selecting it
        // explicitly reports why it is unusable instead of "unknown backend".
        owned_.push_back(std::move(backend));
        finish();
    }
}

void Runtime::order_backends() {
    auto rank = [](const std::string& name) {
        if (name == "cuda") return 0;
        if (name == "hip") return 1;
        if (name == "cpu") return 3;
        return 2;
    };
    for (const auto& backend : owned_) ordered_.push_back(backend.get());
    std::stable_sort(ordered_.begin(), ordered_.end(), [&](const Backend* a, const Backend* b) {
        const int ra = rank(a->name());
        const int rb = rank(b->name());
        return ra != rb ? ra < rb : a->name() < b->name();
    });
}

} // namespace gpucore::detail

#include "runtime.hpp"

#include <algorithm>
#include <mutex>

#include "logging.hpp"
#include "plugin_inspection.hpp"
#include "plugin_loader.hpp"

#if defined(GPUCORE_HAVE_CPU_BACKEND)
#include "cpu_backend.h"
#endif

namespace gpucore::detail {

Runtime& Runtime::instance() {
    static std::once_flag once;
    static Runtime* runtime = nullptr;
    // Leaked on purpose (see the header). A failure other than bad_alloc cannot happen here:
    // every plugin problem becomes a candidate's reason.
    std::call_once(once, [] { runtime = new Runtime(); });
    return *runtime;
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
        const PluginInspection inspection = inspect_plugin_file(file.path);
        if (!inspection.acceptable) {
            add_note(inspection.reason);
            add_note(inspection.symlink_note);
            add_note(file.note);
            finish();
            continue;
        }
        PluginLoadResult loaded = load_plugin(file.path);
        if (loaded.library.is_loaded()) libraries_.push_back(std::move(loaded.library));
        if (!loaded.backend_name.empty()) candidate.backend = loaded.backend_name;
        if (loaded.table == nullptr) {
            add_note(loaded.reason);
            add_note(inspection.symlink_note);
            add_note(file.note);
            finish();
            continue;
        }
        if (const Backend* earlier = find_owned(loaded.backend_name)) {
            add_note("backend '" + loaded.backend_name + "' already provided by " + earlier->source());
            add_note(inspection.symlink_note);
            add_note(file.note);
            finish();
            continue;
        }
        auto backend = std::make_unique<Backend>(loaded.table, candidate.path);
        backend->initialise();
        if (!backend->initialised()) {
            add_note(backend->reason());
        } else {
            candidate.outcome = PluginCandidate::Outcome::loaded;
            // "0 devices: <why>" stays visible on the candidate, not only on the backend.
            add_note(backend->reason());
        }
        add_note(inspection.symlink_note);
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

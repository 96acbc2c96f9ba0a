// SPDX-License-Identifier: Apache-2.0
#include "logging.hpp"

#include <cstring>
#include <memory>
#include <string>

#include <spdlog/sinks/stdout_sinks.h>

#include "environment.hpp"

namespace gpucore::detail {

std::optional<spdlog::level::level_enum> parse_log_level(std::string_view text) {
    if (text == "trace") return spdlog::level::trace;
    if (text == "debug") return spdlog::level::debug;
    if (text == "info") return spdlog::level::info;
    if (text == "warn") return spdlog::level::warn;
    if (text == "error") return spdlog::level::err;
    if (text == "off") return spdlog::level::off;
    return std::nullopt;
}

namespace {

spdlog::logger* make_logger() {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    // Deliberately leaked: plugins may log from their own static destructors at process exit.
    auto* made = new spdlog::logger("gpucore", std::move(sink));
    made->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [gpucore] [%l] %v");
    made->set_level(spdlog::level::warn);
    made->flush_on(spdlog::level::trace); // stderr: never hold messages back
    const auto requested = environment_variable(env_log_level);
    if (requested && !requested->empty()) {
        if (const auto level = parse_log_level(*requested)) {
            made->set_level(*level);
        } else {
            made->warn("{}='{}' is not one of trace, debug, info, warn, error, off; using warn",
                       env_log_level, *requested);
        }
    }
    return made;
}

gpucore_log_level to_plugin_level(spdlog::level::level_enum level) {
    switch (level) {
    case spdlog::level::trace: return GPUCORE_LOG_TRACE;
    case spdlog::level::debug: return GPUCORE_LOG_DEBUG;
    case spdlog::level::info: return GPUCORE_LOG_INFO;
    case spdlog::level::warn: return GPUCORE_LOG_WARN;
    case spdlog::level::err:
    case spdlog::level::critical: return GPUCORE_LOG_ERROR;
    default: return GPUCORE_LOG_OFF;
    }
}

spdlog::level::level_enum from_plugin_level(gpucore_log_level level) {
    switch (level) {
    case GPUCORE_LOG_TRACE: return spdlog::level::trace;
    case GPUCORE_LOG_DEBUG: return spdlog::level::debug;
    case GPUCORE_LOG_INFO: return spdlog::level::info;
    case GPUCORE_LOG_WARN: return spdlog::level::warn;
    case GPUCORE_LOG_ERROR: return spdlog::level::err;
    default: return spdlog::level::off;
    }
}

constexpr std::size_t max_plugin_log_length = 4096;

// The callback plugins call. It is reached from C code, so nothing may escape it.
void log_from_plugin(void* user, gpucore_log_level level, const char* text) noexcept {
    try {
        const auto* backend_name = static_cast<const char*>(user);
        const auto spd_level = from_plugin_level(level);
        if (spd_level == spdlog::level::off || text == nullptr) return;
        // Bounded: a plugin's text is read up to max_plugin_log_length characters, NUL or not.
        const std::string_view bounded(text, strnlen(text, max_plugin_log_length));
        logger().log(spd_level, "[{}] {}{}", backend_name ? backend_name : "plugin", bounded,
                     bounded.size() == max_plugin_log_length ? " [cut]" : "");
    } catch (...) {
        // Logging must never take the process down; a lost message is the lesser evil.
    }
}

} // namespace

spdlog::logger& logger() {
    static spdlog::logger* const instance = make_logger();
    return *instance;
}

gpucore_host_services host_services(const char* backend_name) {
    gpucore_host_services services{};
    services.struct_size = sizeof(gpucore_host_services);
    services.log = &log_from_plugin;
    services.log_user = const_cast<char*>(backend_name); // read back as const char*
    services.log_level = to_plugin_level(logger().level());
    return services;
}

} // namespace gpucore::detail

// SPDX-License-Identifier: Apache-2.0
// The one logger of gpucore: core and plugins write to it; GPUCORE_LOG_LEVEL sets its level.
#pragma once

#include <optional>
#include <string_view>

#include <spdlog/logger.h>

#include "gpucore/plugin.h"

namespace gpucore::detail {

// The "gpucore" logger (stderr). Created on first use with the level from GPUCORE_LOG_LEVEL
// (trace|debug|info|warn|error|off; default warn; an unknown value is reported once at warn).
// Never destroyed, so plugins and static destructors may log until the process ends.
// Not registered in spdlog's global registry: an application's own "gpucore" logger cannot clash.
// Thread-safe.
spdlog::logger& logger();

// "trace".."off" -> level; nullopt for anything else.
std::optional<spdlog::level::level_enum> parse_log_level(std::string_view text);

// What init() of a backend receives: the logging callback into logger() and its level. Messages
// are tagged with `backend_name`, which must stay valid for the rest of the process.
gpucore_host_services host_services(const char* backend_name);

} // namespace gpucore::detail

// SPDX-License-Identifier: Apache-2.0
// The environment variables gpucore reads, and the one way it reads them.
#pragma once

#include <optional>
#include <string>

namespace gpucore::detail {

inline constexpr const char* env_backend = "GPU_BACKEND";
inline constexpr const char* env_plugin_path = "GPUCORE_PLUGIN_PATH";
inline constexpr const char* env_module_path = "GPUCORE_MODULE_PATH";
inline constexpr const char* env_log_level = "GPUCORE_LOG_LEVEL";
inline constexpr const char* env_allow_insecure_plugins = "GPUCORE_ALLOW_INSECURE_PLUGINS";
inline constexpr const char* env_staging_chunk_bytes = "GPUCORE_STAGING_CHUNK_BYTES";

// The variable's value, or nullopt when unset. Uses secure_getenv, so a setuid/setgid program
// sees every variable as unset (nobody can steer it into loading their plugin). Thread-safe as
// long as nobody calls setenv concurrently (the C library's rule).
std::optional<std::string> environment_variable(const char* name);

// True when the variable is set to exactly "1".
bool environment_flag(const char* name);

} // namespace gpucore::detail

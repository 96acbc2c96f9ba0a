// SPDX-License-Identifier: Apache-2.0
// The plugin SDK: the boundary plumbing every C++ backend needs, written once (header-only, C++17,
// no dependency beyond the contract). The cpu backend, the gpu backend and the template use it.
//
//  - StatusError: an exception that already knows its contract status (NOT_SUPPORTED, DEVICE...).
//  - write_message: copies a text into a gpucore_message, truncated and always NUL-terminated.
//  - describe_current_exception / guarded: every slot body runs inside guarded(), which turns any
//    exception into a status plus message, so no C++ exception ever crosses the C boundary.
//  - HostServices: the core's services copied by struct_size (a core older or newer than the
//    plugin's header hands a shorter or longer struct), and logging that skips disabled levels.
//  - environment_value: the one way a backend reads an environment variable (secure_getenv).
//
// Also part of the SDK: gpucore/element_types.hpp (the dtype list as C++ types) and
// gpucore/reduce_rules.hpp (reduce identities, combine steps and the NaN rule).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "gpucore/element_types.hpp"
#include "gpucore/plugin.h"

namespace gpucore::plugin {

// The value of the environment variable `name`, or NULL when it is unset or the process runs with
// privileges it did not get from its caller (setuid, setgid, file capabilities): secure_getenv,
// so nobody can steer a privileged program through a backend's variables. Thread-safe as long as
// nobody calls setenv concurrently (the C library's rule).
inline const char* environment_value(const char* name) noexcept { return ::secure_getenv(name); }

// An error that already knows its contract status (e.g. NOT_SUPPORTED for an unknown dtype).
class StatusError : public std::runtime_error {
public:
    StatusError(gpucore_status status, const std::string& what)
        : std::runtime_error(what), status_(status) {}
    gpucore_status status() const noexcept { return status_; }

private:
    gpucore_status status_;
};

// Copies `text` into msg->text, truncated to fit and always NUL-terminated. msg or text may be NULL.
inline void write_message(gpucore_message* msg, const char* text) noexcept {
    if (msg == nullptr) return;
    if (text == nullptr) text = "";
    const std::size_t length = std::min(std::strlen(text), sizeof(msg->text) - 1);
    std::memcpy(msg->text, text, length);
    msg->text[length] = '\0';
}

inline void write_message(gpucore_message* msg, const std::string& text) noexcept {
    write_message(msg, text.c_str());
}

// Classifies the exception being handled (call only inside a catch block): std::bad_alloc ->
// OUT_OF_MEMORY, StatusError (or a subclass) -> its status, anything else -> PLUGIN. Writes the
// cause, preceded by "<operation>: " when `operation` is not null, into text[0 .. capacity)
// (always terminated). Allocates nothing: it also runs when memory is exhausted, and must then
// still name the cause.
inline gpucore_status describe_current_exception(const char* operation, char* text,
                                                 std::size_t capacity) noexcept {
    const char* prefix = operation != nullptr ? operation : "";
    const char* separator = operation != nullptr ? ": " : "";
    auto write = [&](const char* kind, const char* cause) {
        std::snprintf(text, capacity, "%s%s%s%s", prefix, separator, kind, cause);
    };
    try {
        throw;
    } catch (const std::bad_alloc&) {
        write("out of memory", " (host memory exhausted)");
        return GPUCORE_ERROR_OUT_OF_MEMORY;
    } catch (const StatusError& e) {
        write("", e.what());
        return e.status();
    } catch (const std::exception& e) {
        write("internal error: ", e.what());
        return GPUCORE_ERROR_PLUGIN;
    } catch (...) {
        write("internal error: ", "unknown exception");
        return GPUCORE_ERROR_PLUGIN;
    }
}

// Runs body() and returns GPUCORE_OK (or body's own status, when it returns one); any exception
// becomes its status and message in *msg. `on_error(status, text)` (optional) sees each failure
// first, e.g. to mark a device lost; it runs inside the catch block, so it may inspect the
// exception with `try { throw; } catch (const MyError& e) { ... }`.
template <class Body, class OnError>
gpucore_status guarded(gpucore_message* msg, Body&& body, OnError&& on_error) noexcept {
    try {
        if constexpr (std::is_same_v<decltype(body()), gpucore_status>) {
            return body();
        } else {
            body();
            return GPUCORE_OK;
        }
    } catch (...) {
        gpucore_message fallback;
        gpucore_message* out = msg != nullptr ? msg : &fallback;
        const gpucore_status status = describe_current_exception(nullptr, out->text, sizeof out->text);
        try {
            on_error(status, static_cast<const char*>(out->text));
        } catch (...) {
            // A failing error hook must not turn one failure into a crash.
        }
        return status;
    }
}

template <class Body>
gpucore_status guarded(gpucore_message* msg, Body&& body) noexcept {
    return guarded(msg, std::forward<Body>(body), [](gpucore_status, const char*) {});
}

// What the core handed the plugin at init. copy_from() runs in init, before any other slot; the
// object is read-only afterwards, so log() may be called from any thread.
class HostServices {
public:
    // Copies the fields both sides know: no further than the core's struct_size, nor ours.
    void copy_from(const gpucore_host_services* host) noexcept {
        services_ = gpucore_host_services{};
        if (host == nullptr) return;
        std::memcpy(&services_, host, std::min<std::size_t>(host->struct_size, sizeof services_));
        services_.struct_size = sizeof services_;
    }

    // True when a message at `level` would be shown: skip formatting it otherwise.
    bool enabled(gpucore_log_level level) const noexcept {
        return services_.log != nullptr && level >= services_.log_level;
    }

    void log(gpucore_log_level level, const char* text) const noexcept {
        if (enabled(level)) services_.log(services_.log_user, level, text);
    }
    void log(gpucore_log_level level, const std::string& text) const noexcept { log(level, text.c_str()); }

    const gpucore_host_services& raw() const noexcept { return services_; }

private:
    gpucore_host_services services_{};
};

} // namespace gpucore::plugin

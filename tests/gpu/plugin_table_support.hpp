// SPDX-License-Identifier: Apache-2.0
// Loads libgpucore-cuda.so with dlopen (no libgpucore involved) and initialises it, so the tests
// exercise the C table exactly as the core sees it.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "gpucore/plugin.h"

namespace plugin_test {

struct LoadedPlugin {
    void* handle = nullptr;
    const gpucore_plugin_api* api = nullptr;
    std::string error;
    int devices = 0;
    std::string no_device_reason;
};

// Loads and inits the plugin once per process.
inline LoadedPlugin& plugin() {
    static LoadedPlugin loaded = [] {
        LoadedPlugin p;
        p.handle = dlopen(GPUCORE_CUDA_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
        if (p.handle == nullptr) {
            p.error = dlerror();
            return p;
        }
        auto entry = reinterpret_cast<gpucore_plugin_entry_fn>(
            dlsym(p.handle, GPUCORE_PLUGIN_ENTRY_NAME));
        if (entry == nullptr) {
            p.error = "no entry symbol";
            return p;
        }
        gpucore_message msg{};
        p.api = entry(&msg);
        if (p.api == nullptr) {
            p.error = msg.text;
            return p;
        }
        gpucore_host_services host{};
        host.struct_size = sizeof host;
        host.log_level = GPUCORE_LOG_OFF;
        if (p.api->init(&host, &msg) != GPUCORE_OK) {
            p.error = std::string("init: ") + msg.text;
            p.api = nullptr;
            return p;
        }
        msg.text[0] = '\0';
        if (p.api->device_count(&p.devices, &msg) != GPUCORE_OK) {
            p.error = std::string("device_count: ") + msg.text;
            p.api = nullptr;
            return p;
        }
        p.no_device_reason = msg.text;
        return p;
    }();
    return loaded;
}

#define PLUGIN_OK(call)                                                                           \
    do {                                                                                          \
        gpucore_message plugin_msg{};                                                             \
        const gpucore_status plugin_status = (call);                                              \
        ASSERT_EQ(plugin_status, GPUCORE_OK) << #call << ": " << plugin_msg.text;                 \
    } while (0)

// For slots whose last argument is the message: PLUGIN_OK(api->slot(args..., &plugin_msg)).

} // namespace plugin_test

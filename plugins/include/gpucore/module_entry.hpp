// SPDX-License-Identifier: Apache-2.0
// The entry point of one kernel module: its manifest (read by gpucore before the file is loaded)
// and gpucore_module_entry_v1, which returns the table of the kernels GPUCORE_MODULE_KERNEL
// registered. gpucore_add_kernel_module() compiles this once per module file, with
// GPUCORE_MODULE_NAME, GPUCORE_MODULE_KIND ("cuda", "hip", "cpu") and GPUCORE_MODULE_TARGETS
// (the device code the file holds: "sm_90 compute_90", "gfx90a gfx1030", "x86_64") defined.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

#include "gpucore/kernel_registry.hpp"

#if !defined(GPUCORE_MODULE_NAME) || !defined(GPUCORE_MODULE_KIND) || !defined(GPUCORE_MODULE_TARGETS)
#error "GPUCORE_MODULE_NAME, GPUCORE_MODULE_KIND and GPUCORE_MODULE_TARGETS must be defined (gpucore_add_kernel_module)"
#endif

namespace gpucore::module_detail {
namespace {

struct Registry {
    std::vector<const KernelRegistration*> kernels;
    bool failed = false; // out of memory while registering
};
Registry& registry() {
    static Registry r;
    return r;
}

// The manifest, in its own section: name, kind and targets, readable without running any code.
__attribute__((section(GPUCORE_MODULE_MANIFEST_SECTION), used)) const char manifest[] =
    "gpucore-module " GPUCORE_PLUGIN_STRINGIFY(GPUCORE_MODULE_ABI_MAJOR) "\n"
    "name " GPUCORE_MODULE_NAME "\n"
    "kind " GPUCORE_MODULE_KIND "\n"
    "targets " GPUCORE_MODULE_TARGETS "\n";

struct Table {
    std::vector<const KernelRegistration*> by_name;
    std::vector<gpucore_kernel_info> infos;
    gpucore_module_api api{};
    char problem[GPUCORE_MESSAGE_CAPACITY] = {};
};

gpucore_status launch(std::uint32_t kernel, const gpucore_launch_config* config, const gpucore_launch_target* target,
                      void* const* args, gpucore_message* msg);

const Table& table() {
    static const Table t = [] {
        Table made;
        Registry& r = registry();
        made.by_name = r.kernels;
        std::sort(made.by_name.begin(), made.by_name.end(),
                  [](const KernelRegistration* a, const KernelRegistration* b) { return std::strcmp(a->name, b->name) < 0; });
        if (r.failed) std::snprintf(made.problem, sizeof made.problem, "out of memory while registering kernels");
        for (std::size_t i = 1; i < made.by_name.size(); ++i) {
            if (std::strcmp(made.by_name[i - 1]->name, made.by_name[i]->name) == 0) {
                std::snprintf(made.problem, sizeof made.problem, "two kernels are registered as '%s'",
                              made.by_name[i]->name);
            }
        }
        for (const KernelRegistration* k : made.by_name) {
            made.infos.push_back(gpucore_kernel_info{k->name, k->param_count, k->params, 0});
        }
        made.api.abi_major = GPUCORE_MODULE_ABI_MAJOR;
        made.api.abi_minor = GPUCORE_MODULE_ABI_MINOR;
        made.api.struct_size = sizeof(gpucore_module_api);
        made.api.name = GPUCORE_MODULE_NAME;
        made.api.kind = GPUCORE_MODULE_KIND;
        made.api.kernel_count = static_cast<std::uint32_t>(made.infos.size());
        made.api.kernels = made.infos.data();
        made.api.launch = &launch;
        return made;
    }();
    return t;
}

gpucore_status launch(std::uint32_t kernel, const gpucore_launch_config* config, const gpucore_launch_target* target,
                      void* const* args, gpucore_message* msg) {
    const Table& t = table();
    if (kernel >= t.by_name.size()) {
        std::snprintf(msg->text, sizeof msg->text, "no kernel %u in module %s", kernel, GPUCORE_MODULE_NAME);
        return GPUCORE_ERROR_INVALID_ARGUMENT;
    }
    return t.by_name[kernel]->launch(config, target, args, msg);
}

} // namespace

void register_kernel(const KernelRegistration* kernel) noexcept {
    try {
        registry().kernels.push_back(kernel);
    } catch (...) {
        registry().failed = true;
    }
}

} // namespace gpucore::module_detail

extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_module_api* GPUCORE_MODULE_ENTRY(gpucore_message* msg) {
    try {
        const auto& t = gpucore::module_detail::table();
        if (t.problem[0] != '\0') {
            std::snprintf(msg->text, sizeof msg->text, "%s", t.problem);
            return nullptr;
        }
        return &t.api;
    } catch (const std::exception& e) {
        std::snprintf(msg->text, sizeof msg->text, "the module's table could not be built: %s", e.what());
    } catch (...) {
        std::snprintf(msg->text, sizeof msg->text, "the module's table could not be built");
    }
    return nullptr;
}

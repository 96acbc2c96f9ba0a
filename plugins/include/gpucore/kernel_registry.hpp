// SPDX-License-Identifier: Apache-2.0
// Inside one kernel module: how each GPUCORE_MODULE_KERNEL registers its kernel with the module's
// entry point (gpucore/module_entry.hpp). Plain C++, shared by the kernel translation units (nvcc,
// hipcc or a C++ compiler) and the entry's (a C++ compiler).
#pragma once

#include <cstdint>

#include "gpucore/module.h"

namespace gpucore::module_detail {

using LaunchFn = gpucore_status (*)(const gpucore_launch_config* config, const gpucore_launch_target* target,
                                    void* const* args, gpucore_message* msg);

struct KernelRegistration {
    const char* name;
    const gpucore_kernel_param* params;
    std::uint32_t param_count;
    LaunchFn launch;
};

// Adds `kernel` (static storage) to this module's table. Defined once per module by its entry,
// hidden: every module keeps its own list, however many are loaded.
__attribute__((visibility("hidden"))) void register_kernel(const KernelRegistration* kernel) noexcept;

} // namespace gpucore::module_detail

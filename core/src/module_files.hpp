// SPDX-License-Identifier: Apache-2.0
// Finding, checking and loading kernel-module files (gpucore/module.h): the same trust rule,
// pre-dlopen inspection and once-per-process loading as plugins, plus the module's manifest
// (kind and device targets) checked against the device before any of the file's code runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include "gpucore/device.hpp"
#include "gpucore/module.h"

namespace gpucore::detail {

struct KernelInfo {
    std::string name;
    std::vector<gpucore_kernel_param> params;
};

// A module file loaded into the process; it stays loaded until the process ends.
struct LoadedModule {
    std::string name;
    std::string kind; // "cuda", "hip" or "cpu"
    std::filesystem::path file;
    std::vector<std::string> targets;
    std::vector<KernelInfo> kernels; // in the table's order
    boost::dll::shared_library library;
    const gpucore_module_api* api = nullptr;
};

// What the manifest text says; `problem` is non-empty when it is malformed.
struct ModuleManifest {
    unsigned abi_major = 0;
    std::string name;
    std::string kind;
    std::vector<std::string> targets;
    std::string problem;
};
ModuleManifest parse_module_manifest(const std::string& text);

// True when a module of `kind` with `targets` holds code that `architecture` (a device's
// architecture property: "sm_90", "gfx90a:sramecc+:xnack-", "x86_64") runs: a cubin of the same
// major and an equal or lower minor, PTX of an equal or lower version, the gfx target itself.
bool module_runs_on(const std::string& kind, const std::vector<std::string>& targets, const std::string& architecture);

// The module kind a backend runs ("cuda", "hip", "cpu"), or "" with `why` when it runs none.
std::string module_kind_of(const Device& device, std::string& why);

// Finds the module `name` built for `device`'s backend in the module folders, checks it, and
// loads it (once per process). Throws gpucore::Error (operation "Module::load").
std::shared_ptr<const LoadedModule> load_module(const Device& device, const std::string& name);

} // namespace gpucore::detail

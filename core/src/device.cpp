// SPDX-License-Identifier: Apache-2.0
// Device and the free functions of device.hpp: the public face of the runtime registry.
#include "gpucore/device.hpp"

#include "access.hpp"
#include "backend_selection.hpp"
#include "environment.hpp"
#include "runtime.hpp"

namespace gpucore {

namespace detail {

Backend& backend_of(const Device& device, const char* operation) {
    Backend* backend = Access::backend(device);
    if (backend == nullptr) {
        throw Error(ErrorCode::invalid_argument, operation, "", -1, "null device (default-constructed Device)");
    }
    return *backend;
}

} // namespace detail

const std::string& Device::backend_name() const {
    return detail::backend_of(*this, "Device::backend_name").name();
}

int Device::index() const {
    detail::backend_of(*this, "Device::index");
    return index_;
}

const DeviceProperties& Device::properties() const {
    return detail::backend_of(*this, "Device::properties").properties(index_);
}

std::string Device::to_string() const {
    if (backend_ == nullptr) return "<null device>";
    return backend_->name() + ":" + std::to_string(index_);
}

MemoryInfo memory_info(const Device& device) {
    const detail::Backend& backend = detail::backend_of(device, "memory_info");
    const int index = detail::Access::index(device);
    MemoryInfo info;
    backend.call("memory_info", index, backend.optional_slot(&gpucore_plugin_api::memory_info, "memory_info", index),
                 index, &info.free_bytes, &info.total_bytes);
    return info;
}

std::vector<Device> devices() {
    std::vector<Device> all;
    for (detail::Backend* backend : detail::Runtime::instance().backends()) {
        if (!backend->usable()) continue;
        for (int i = 0; i < backend->device_count(); ++i) {
            all.push_back(detail::Access::make_device(backend, i));
        }
    }
    return all;
}

Device default_device() {
    const auto selection = detail::environment_variable(detail::env_backend);
    return detail::select_device(detail::Runtime::instance(), selection.value_or(""),
                                 "default_device (GPU_BACKEND)");
}

Device select_device(const std::string& selection) {
    return detail::select_device(detail::Runtime::instance(), selection, "select_device");
}

std::vector<BackendInfo> backends() {
    std::vector<BackendInfo> infos;
    for (const detail::Backend* backend : detail::Runtime::instance().backends()) {
        BackendInfo info;
        info.name = backend->name();
        info.source = backend->source();
        info.version = backend->version();
        info.usable = backend->usable();
        info.device_count = backend->device_count();
        info.reason = backend->reason();
        infos.push_back(std::move(info));
    }
    return infos;
}

std::vector<PluginCandidate> plugin_candidates() { return detail::Runtime::instance().candidates(); }

const char* to_string(PluginCandidate::Outcome outcome) noexcept {
    return outcome == PluginCandidate::Outcome::loaded ? "loaded" : "skipped";
}

} // namespace gpucore

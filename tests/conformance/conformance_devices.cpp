// SPDX-License-Identifier: Apache-2.0
#include "conformance_devices.hpp"

#include <exception>
#include <utility>

namespace conformance {
namespace {

struct DeviceList {
    std::vector<gpucore::Device> devices;
    std::string error;
};

std::string& backend_restriction() {
    static std::string backend;
    return backend;
}

const DeviceList& device_list() {
    // Read when GoogleTest expands the parameterized suites (inside InitGoogleTest), not during
    // static initialisation, and only once: every suite sees the same list.
    static const DeviceList list = [] {
        DeviceList result;
        try {
            for (const auto& device : gpucore::devices())
                if (backend_restriction().empty() || device.backend_name() == backend_restriction())
                    result.devices.push_back(device);
        } catch (const std::exception& e) {
            result.error = e.what();
        }
        return result;
    }();
    return list;
}

} // namespace

void restrict_to_backend(std::string backend) { backend_restriction() = std::move(backend); }

const std::vector<gpucore::Device>& conformance_devices() { return device_list().devices; }

const std::string& enumeration_error() { return device_list().error; }

bool is_cpu_execution_of_gpu_kernels(const gpucore::Device& device) {
    return device.backend_name().rfind("test-", 0) == 0;
}

std::string sanitize_test_name(std::string text) {
    for (char& c : text) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') || c == '_';
        if (!keep) c = '_';
    }
    return text;
}

std::string device_test_name(const gpucore::Device& device) {
    return sanitize_test_name(device.backend_name() + "_" + std::to_string(device.index()));
}

} // namespace conformance

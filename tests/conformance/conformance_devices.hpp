// SPDX-License-Identifier: Apache-2.0
// The devices the conformance suite runs on: every device gpucore::devices() reports at run time
// (here cpu:0; on a GPU machine cuda:0 ... too), and the names tests carry for them ("cpu_0").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gpucore/device.hpp"

namespace conformance {

// Restricts the list to the devices of one backend (gpucore-conformance --plugin). Call it before
// anything reads the list, i.e. before testing::InitGoogleTest.
void restrict_to_backend(std::string backend);

// gpucore::devices() (only the restricted backend's, when set), read once. Never throws: if
// enumeration fails, returns an empty list and enumeration_error() says why (the DeviceEnumeration
// test then fails with that reason).
const std::vector<gpucore::Device>& conformance_devices();
const std::string& enumeration_error();

// "cpu_0", "cuda_1": backend and index with every character outside [A-Za-z0-9] made '_', as
// GoogleTest parameter names require.
std::string device_test_name(const gpucore::Device& device);

// True for the test-only backends that execute the GPU kernels on the CPU (backends/simt:
// test-wave64, test-wave32; every "test-" backend). They run each GPU thread as a fiber, orders of
// magnitude slower than the hardware they model, so cases give them at most
// kCpuExecutionMaxElements elements (cases.cpp) and shorter stream chains.
bool is_cpu_execution_of_gpu_kernels(const gpucore::Device& device);
inline constexpr std::size_t kCpuExecutionMaxElements = std::size_t{1} << 22;

// Replaces every character outside [A-Za-z0-9_] by '_'.
std::string sanitize_test_name(std::string text);

} // namespace conformance

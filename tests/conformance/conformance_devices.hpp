// The devices the conformance suite runs on: every device gpucore::devices() reports at run time
// (here cpu:0; on a GPU machine cuda:0 ... too), and the names tests carry for them ("cpu_0").
#pragma once

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

// Replaces every character outside [A-Za-z0-9_] by '_'.
std::string sanitize_test_name(std::string text);

} // namespace conformance

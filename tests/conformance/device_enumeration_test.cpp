// SPDX-License-Identifier: Apache-2.0
// The device list the whole suite is parameterized over: it must enumerate without error, include
// the built-in cpu device, and report sane properties. Also prints the list once per run, so a CI
// log shows which devices the suite covered.
#include <gtest/gtest.h>

#include <iostream>

#include "cases.hpp"
#include "conformance_devices.hpp"
#include "gpucore/gpucore.hpp"
#include "test_seed.hpp"

namespace conformance {
namespace {

class DeviceListPrinter : public testing::Environment {
public:
    void SetUp() override {
        std::cout << "[ devices  ] gpucore conformance over " << conformance_devices().size()
                  << " device(s), GPUCORE_TEST_SEED=" << base_seed() << "\n";
        for (const auto& device : conformance_devices()) {
            const auto& p = device.properties();
            std::cout << "[ devices  ]   " << device.to_string() << ": " << p.name << " ("
                      << p.architecture << ", " << p.total_memory_bytes / (1u << 20) << " MiB, "
                      << p.compute_units << " units)\n";
        }
        if (!enumeration_error().empty())
            std::cout << "[ devices  ] enumeration failed: " << enumeration_error() << "\n";
    }
};

[[maybe_unused]] testing::Environment* const device_list_printer =
    testing::AddGlobalTestEnvironment(new DeviceListPrinter);

TEST(DeviceEnumeration, ListsTheCpuDevice) {
    ASSERT_TRUE(enumeration_error().empty()) << "gpucore::devices() threw: " << enumeration_error();
    ASSERT_FALSE(conformance_devices().empty());
    bool has_cpu = false;
    for (const auto& device : conformance_devices()) has_cpu |= device.backend_name() == "cpu";
    EXPECT_TRUE(has_cpu) << "the built-in cpu backend reports no device";
}

class DeviceProperties : public testing::TestWithParam<DeviceCase> {};

TEST_P(DeviceProperties, AreConsistent) {
    const gpucore::Device& device = GetParam().device;
    const gpucore::DeviceProperties& p = device.properties();
    EXPECT_TRUE(device.valid());
    EXPECT_EQ(p.backend, device.backend_name());
    EXPECT_EQ(p.index, device.index());
    EXPECT_EQ(device.to_string(), p.backend + ":" + std::to_string(p.index));
    EXPECT_FALSE(p.name.empty());
    EXPECT_FALSE(p.vendor.empty());
    EXPECT_FALSE(p.architecture.empty());
    EXPECT_GT(p.total_memory_bytes, 0u);
    EXPECT_GT(p.compute_units, 0u);
    EXPECT_GE(p.warp_size, 1u);
    EXPECT_GE(p.peak_memory_bandwidth_gbps, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Devices, DeviceProperties, testing::ValuesIn(device_cases()), CaseName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DeviceProperties);

} // namespace
} // namespace conformance

// SPDX-License-Identifier: Apache-2.0
// The CPU backend's table itself: header, device description, memory, argument validation.
#include <sys/utsname.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "cpu_test_support.hpp"
#include "cpu_thread_pool.hpp"

namespace gpucore::cpu::test {
namespace {

// An enum value none of the enumerators has, as a C caller could pass (copied in, since a cast to
// an out-of-range value is unspecified in C++).
template <class Enum>
Enum unknown(int value) {
    Enum result;
    static_assert(sizeof(Enum) == sizeof(int), "C enums here are int-sized");
    std::memcpy(&result, &value, sizeof(result));
    return result;
}

TEST(CpuTable, HeaderDescribesTheBuiltInBackend) {
    const gpucore_plugin_api& t = table();
    EXPECT_EQ(t.abi_major, static_cast<std::uint32_t>(GPUCORE_PLUGIN_ABI_MAJOR));
    EXPECT_EQ(t.abi_minor, static_cast<std::uint32_t>(GPUCORE_PLUGIN_ABI_MINOR));
    EXPECT_EQ(t.struct_size, sizeof(gpucore_plugin_api));
    EXPECT_STREQ(t.name, "cpu");
    EXPECT_NE(std::string(t.version).find("gpucore-cpu"), std::string::npos);
    // Every slot is filled: the core may call any of them.
    const void* const* slots = reinterpret_cast<const void* const*>(&t.init);
    const std::size_t count = (sizeof(gpucore_plugin_api) - offsetof(gpucore_plugin_api, init)) / sizeof(void*);
    for (std::size_t i = 0; i < count; ++i) EXPECT_NE(slots[i], nullptr) << "slot " << i;
}

TEST(CpuTable, HasOneDeviceDescribingTheHost) {
    gpucore_message msg{};
    int count = -1;
    ASSERT_EQ(table().device_count(&count, &msg), GPUCORE_OK);
    EXPECT_EQ(count, 1);
    gpucore_device_properties props{};
    props.struct_size = sizeof(props);
    ASSERT_EQ(table().device_properties(0, &props, &msg), GPUCORE_OK) << msg.text;
    EXPECT_GT(std::strlen(props.name), 0u);
    EXPECT_GT(std::strlen(props.vendor), 0u);
    utsname system{};
    ASSERT_EQ(uname(&system), 0);
    EXPECT_STREQ(props.architecture, system.machine);
    EXPECT_GT(props.total_memory_bytes, 0u);
    EXPECT_EQ(props.compute_units, static_cast<std::uint32_t>(max_threads()));
    EXPECT_EQ(props.warp_size, 1u);
    EXPECT_EQ(props.peak_memory_bandwidth_gbps, 0.0);
    EXPECT_EQ(props.supports_pinned_host, 1u);
    EXPECT_EQ(props.supports_managed, 1u);
    EXPECT_EQ(props.struct_size, sizeof(props));
}

TEST(CpuTable, WritesNoFurtherThanTheCallersStructSize) {
    // A core built against an older, shorter struct: nothing past its struct_size may change.
    unsigned char storage[sizeof(gpucore_device_properties)];
    std::memset(storage, 0xcd, sizeof(storage));
    gpucore_device_properties* props = reinterpret_cast<gpucore_device_properties*>(storage);
    const std::uint32_t short_size = offsetof(gpucore_device_properties, total_memory_bytes);
    props->struct_size = short_size;
    gpucore_message msg{};
    ASSERT_EQ(table().device_properties(0, props, &msg), GPUCORE_OK);
    EXPECT_EQ(props->struct_size, short_size);
    EXPECT_GT(std::strlen(props->name), 0u);
    for (std::size_t i = short_size; i < sizeof(storage); ++i) ASSERT_EQ(storage[i], 0xcd) << "byte " << i;
}

TEST(CpuTable, AllocatesEveryKindAlignedTo256Bytes) {
    for (gpucore_memory_kind kind : {GPUCORE_MEMORY_DEVICE, GPUCORE_MEMORY_PINNED_HOST, GPUCORE_MEMORY_MANAGED}) {
        for (std::size_t bytes : {std::size_t{1}, std::size_t{1000}, std::size_t{16} << 20}) {
            gpucore_message msg{};
            void* ptr = nullptr;
            ASSERT_EQ(table().allocate(0, kind, bytes, &ptr, &msg), GPUCORE_OK) << msg.text;
            ASSERT_NE(ptr, nullptr);
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(ptr) % 256, 0u);
            std::memset(ptr, 1, bytes); // usable from the host, every byte
            EXPECT_EQ(table().deallocate(0, kind, ptr, &msg), GPUCORE_OK);
        }
    }
}

TEST(CpuTable, ReportsOutOfMemoryAndRecovers) {
    gpucore_message msg{};
    void* ptr = nullptr;
    EXPECT_EQ(table().allocate(0, GPUCORE_MEMORY_DEVICE, std::size_t{1} << 62, &ptr, &msg), GPUCORE_ERROR_OUT_OF_MEMORY);
    EXPECT_NE(std::string(msg.text).find("out of host memory"), std::string::npos) << msg.text;
    EXPECT_EQ(table().allocate(0, GPUCORE_MEMORY_DEVICE, SIZE_MAX, &ptr, &msg), GPUCORE_ERROR_OUT_OF_MEMORY);
    ASSERT_EQ(table().allocate(0, GPUCORE_MEMORY_DEVICE, 4096, &ptr, &msg), GPUCORE_OK);
    EXPECT_EQ(table().deallocate(0, GPUCORE_MEMORY_DEVICE, ptr, &msg), GPUCORE_OK);
}

TEST(CpuTable, RejectsUnknownEnumsAtOnce) {
    TableStream stream;
    gpucore_message msg{};
    void* ptr = nullptr;
    EXPECT_EQ(table().allocate(0, unknown<gpucore_memory_kind>(7), 64, &ptr, &msg), GPUCORE_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(table().vector_add(unknown<gpucore_dtype>(9), nullptr, nullptr, nullptr, 1, stream.get(), &msg),
              GPUCORE_ERROR_NOT_SUPPORTED);
    EXPECT_NE(std::string(msg.text).find("dtype"), std::string::npos) << msg.text;
    EXPECT_EQ(table().transpose(unknown<gpucore_dtype>(9), nullptr, nullptr, 2, 2, stream.get(), &msg),
              GPUCORE_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(table().reduce(GPUCORE_DTYPE_F32, unknown<gpucore_reduce_op>(9), nullptr, 1, nullptr, stream.get(), &msg),
              GPUCORE_ERROR_NOT_SUPPORTED);
    EXPECT_NE(std::string(msg.text).find("reduce op"), std::string::npos) << msg.text;
    EXPECT_EQ(table().reduce_rows(unknown<gpucore_dtype>(9), GPUCORE_REDUCE_SUM, nullptr, 1, 1, nullptr, stream.get(), &msg),
              GPUCORE_ERROR_NOT_SUPPORTED);
    int value = 0;
    EXPECT_EQ(table().fill(nullptr, &value, 3, 1, stream.get(), &msg), GPUCORE_ERROR_INVALID_ARGUMENT);
    stream.sync(); // nothing was queued by the rejected calls
}

TEST(CpuTable, PeerCopyWithinItsOneDeviceIsQueuedOnTheStream) {
    const std::size_t n = 100003; // odd
    DeviceArray<std::uint32_t> from(n), to(n);
    for (std::size_t i = 0; i < n; ++i) {
        from[i] = static_cast<std::uint32_t>(i * 2654435761u);
        to[i] = 0xDEADBEEFu;
    }
    TableStream stream;
    gpucore_message msg{};
    ASSERT_EQ(table().copy_peer(to.data(), 0, from.data(), 0, n * sizeof(std::uint32_t), stream.get(), &msg),
              GPUCORE_OK)
        << msg.text;
    ASSERT_EQ(table().copy_peer(to.data(), 0, from.data(), 0, 0, stream.get(), &msg), GPUCORE_OK) << msg.text;
    stream.sync();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(to[i], static_cast<std::uint32_t>(i * 2654435761u)) << i;
}

} // namespace
} // namespace gpucore::cpu::test

// SPDX-License-Identifier: Apache-2.0
// The CUDA plugin's C table, loaded with dlopen. Without a GPU (CI): it loads, inits, and reports
// 0 devices with the CUDA runtime's reason. With one: properties, error mapping (out of memory,
// managed oversubscription, events never recorded), streams in bulk (scratch reuse), and reduces
// on two streams at once (per-stream scratch).
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "plugin_table_support.hpp"

namespace plugin_test {
namespace {

#define REQUIRE_DEVICE()                                                                          \
    if (plugin().devices == 0) GTEST_SKIP() << "0 CUDA devices: " << plugin().no_device_reason

class CudaPlugin : public testing::Test {
protected:
    void SetUp() override {
        ASSERT_NE(plugin().api, nullptr) << plugin().error;
        api = plugin().api;
    }
    const gpucore_plugin_api* api = nullptr;
};

TEST_F(CudaPlugin, LoadsAndReportsDevicesOrTheReasonForNone) {
    EXPECT_EQ(api->abi_major, static_cast<uint32_t>(GPUCORE_PLUGIN_ABI_MAJOR));
    EXPECT_EQ(api->struct_size, sizeof(gpucore_plugin_api));
    EXPECT_STREQ(api->name, "cuda");
    EXPECT_NE(std::strstr(api->version, "CUDA runtime"), nullptr) << api->version;
    if (plugin().devices == 0) {
        EXPECT_FALSE(plugin().no_device_reason.empty()) << "0 devices must come with a reason";
        std::printf("0 CUDA devices, reason: %s\n", plugin().no_device_reason.c_str());
    }
}

TEST_F(CudaPlugin, DevicePropertiesAreRead) {
    REQUIRE_DEVICE();
    gpucore_device_properties props{};
    props.struct_size = sizeof props;
    PLUGIN_OK(api->device_properties(0, &props, &plugin_msg));
    EXPECT_EQ(props.struct_size, sizeof props);
    EXPECT_GT(std::strlen(props.name), 0u);
    EXPECT_STREQ(props.vendor, "NVIDIA");
    EXPECT_EQ(std::strncmp(props.architecture, "sm_", 3), 0) << props.architecture;
    EXPECT_GT(props.compute_units, 0u);
    EXPECT_EQ(props.warp_size, 32u);
    EXPECT_GT(props.total_memory_bytes, 1ull << 30);
    EXPECT_GT(props.l2_cache_bytes, 0u);
    EXPECT_GT(props.peak_memory_bandwidth_gbps, 100.0);
    EXPECT_EQ(props.supports_pinned_host, 1u);
    std::printf("%s %s: %u SMs, %.0f GB/s peak, L2 %llu B\n", props.name, props.architecture,
                props.compute_units, props.peak_memory_bandwidth_gbps,
                static_cast<unsigned long long>(props.l2_cache_bytes));
}

TEST_F(CudaPlugin, PropertiesRespectASmallerCoreStruct) {
    REQUIRE_DEVICE();
    gpucore_device_properties props;
    std::memset(&props, 0x5A, sizeof props);
    props.struct_size = static_cast<uint32_t>(offsetof(gpucore_device_properties, vendor));
    PLUGIN_OK(api->device_properties(0, &props, &plugin_msg));
    EXPECT_EQ(props.struct_size, offsetof(gpucore_device_properties, vendor));
    EXPECT_EQ(static_cast<unsigned char>(props.vendor[0]), 0x5A) << "wrote past struct_size";
}

TEST_F(CudaPlugin, AllocationBeyondTheDeviceIsOutOfMemoryAndTheDeviceStillWorks) {
    REQUIRE_DEVICE();
    for (gpucore_memory_kind kind : {GPUCORE_MEMORY_DEVICE, GPUCORE_MEMORY_MANAGED}) {
        void* p = nullptr;
        gpucore_message msg{};
        EXPECT_EQ(api->allocate(0, kind, std::size_t{1} << 50, &p, &msg),
                  GPUCORE_ERROR_OUT_OF_MEMORY)
            << msg.text;
        EXPECT_GT(std::strlen(msg.text), 0u);
        PLUGIN_OK(api->allocate(0, kind, 1 << 20, &p, &plugin_msg));
        PLUGIN_OK(api->deallocate(0, kind, p, &plugin_msg));
    }
    // A later launch must not report the earlier, non-sticky failure.
    gpucore_stream s = nullptr;
    PLUGIN_OK(api->stream_create(0, &s, &plugin_msg));
    void* buf = nullptr;
    PLUGIN_OK(api->allocate(0, GPUCORE_MEMORY_DEVICE, 4096, &buf, &plugin_msg));
    const float one = 1.0f;
    PLUGIN_OK(api->fill(buf, &one, 4, 1024, s, &plugin_msg));
    PLUGIN_OK(api->reduce(GPUCORE_DTYPE_F32, GPUCORE_REDUCE_SUM, buf, 1024, buf, s, &plugin_msg));
    PLUGIN_OK(api->stream_synchronize(s, &plugin_msg));
    float got = 0;
    PLUGIN_OK(api->copy(&got, buf, 4, GPUCORE_COPY_DEVICE_TO_HOST, s, &plugin_msg));
    PLUGIN_OK(api->stream_synchronize(s, &plugin_msg));
    EXPECT_EQ(got, 1024.0f);
    PLUGIN_OK(api->deallocate(0, GPUCORE_MEMORY_DEVICE, buf, &plugin_msg));
    PLUGIN_OK(api->stream_destroy(s, &plugin_msg));
}

TEST_F(CudaPlugin, NativeHandleOfEachStreamIsItsOwnAndStable) {
    REQUIRE_DEVICE();
    ASSERT_NE(api->stream_native_handle, nullptr) << "the ABI 1.2 slot is implemented";
    gpucore_stream s = nullptr, t = nullptr;
    PLUGIN_OK(api->stream_create(0, &s, &plugin_msg));
    PLUGIN_OK(api->stream_create(0, &t, &plugin_msg));
    void *hs = nullptr, *ht = nullptr, *again = nullptr;
    PLUGIN_OK(api->stream_native_handle(s, &hs, &plugin_msg));
    PLUGIN_OK(api->stream_native_handle(t, &ht, &plugin_msg));
    PLUGIN_OK(api->stream_native_handle(s, &again, &plugin_msg));
    EXPECT_NE(hs, nullptr) << "never the legacy default stream";
    EXPECT_NE(hs, ht);
    EXPECT_EQ(hs, again);
    PLUGIN_OK(api->stream_destroy(s, &plugin_msg));
    PLUGIN_OK(api->stream_destroy(t, &plugin_msg));
}

TEST_F(CudaPlugin, PointerDeviceLocatesMemoryAndRefusesForeignPointers) {
    REQUIRE_DEVICE();
    ASSERT_NE(api->pointer_device, nullptr);
    const std::size_t bytes = 1 << 20;
    const gpucore_memory_kind kinds[] = {GPUCORE_MEMORY_DEVICE, GPUCORE_MEMORY_MANAGED, GPUCORE_MEMORY_PINNED_HOST};
    for (gpucore_memory_kind kind : kinds) {
        void* p = nullptr;
        PLUGIN_OK(api->allocate(0, kind, bytes, &p, &plugin_msg));
        // The start, an interior element address and the last byte.
        for (const std::size_t at : {std::size_t{0}, std::size_t{4}, bytes - 1}) {
            int device = -1;
            gpucore_memory_kind got = kind == GPUCORE_MEMORY_DEVICE ? GPUCORE_MEMORY_MANAGED : GPUCORE_MEMORY_DEVICE;
            PLUGIN_OK(api->pointer_device(static_cast<const char*>(p) + at, &device, &got, &plugin_msg));
            EXPECT_EQ(device, 0) << "kind " << kind << " at +" << at;
            EXPECT_EQ(got, kind) << "at +" << at;
        }
        PLUGIN_OK(api->deallocate(0, kind, p, &plugin_msg));
    }
    // Pageable host memory, a null pointer and a never-mapped address are not the plugin's memory.
    std::vector<float> pageable(64);
    const void* foreign[] = {pageable.data(), nullptr, reinterpret_cast<const void*>(std::uintptr_t{0x1000})};
    for (const void* p : foreign) {
        int device = -1;
        gpucore_memory_kind kind = GPUCORE_MEMORY_DEVICE;
        gpucore_message msg{};
        EXPECT_EQ(api->pointer_device(p, &device, &kind, &msg), GPUCORE_ERROR_INVALID_ARGUMENT) << p;
        EXPECT_GT(std::strlen(msg.text), 0u);
    }
    // The refusals leave no error behind: a launch afterwards succeeds.
    gpucore_stream s = nullptr;
    void* buf = nullptr;
    PLUGIN_OK(api->stream_create(0, &s, &plugin_msg));
    PLUGIN_OK(api->allocate(0, GPUCORE_MEMORY_DEVICE, 4096, &buf, &plugin_msg));
    const float one = 1.0f;
    PLUGIN_OK(api->fill(buf, &one, 4, 1024, s, &plugin_msg));
    PLUGIN_OK(api->stream_synchronize(s, &plugin_msg));
    PLUGIN_OK(api->deallocate(0, GPUCORE_MEMORY_DEVICE, buf, &plugin_msg));
    PLUGIN_OK(api->stream_destroy(s, &plugin_msg));
}

TEST_F(CudaPlugin, EventsNeverRecordedOrPendingAreInvalidArguments) {
    REQUIRE_DEVICE();
    gpucore_event a = nullptr, b = nullptr;
    PLUGIN_OK(api->event_create(0, &a, &plugin_msg));
    PLUGIN_OK(api->event_create(0, &b, &plugin_msg));
    double ms = 0;
    gpucore_message msg{};
    EXPECT_EQ(api->event_elapsed_ms(a, b, &ms, &msg), GPUCORE_ERROR_INVALID_ARGUMENT) << msg.text;
    int done = 0;
    PLUGIN_OK(api->event_query(a, &done, &plugin_msg));
    EXPECT_EQ(done, 1) << "a never-recorded event counts as complete";
    gpucore_stream s = nullptr;
    PLUGIN_OK(api->stream_create(0, &s, &plugin_msg));
    PLUGIN_OK(api->stream_wait_event(s, a, &plugin_msg)); // never recorded: no wait
    PLUGIN_OK(api->event_record(a, s, &plugin_msg));
    PLUGIN_OK(api->event_record(b, s, &plugin_msg));
    PLUGIN_OK(api->event_synchronize(b, &plugin_msg));
    PLUGIN_OK(api->event_elapsed_ms(a, b, &ms, &plugin_msg));
    EXPECT_GE(ms, 0.0);
    PLUGIN_OK(api->stream_destroy(s, &plugin_msg));
    PLUGIN_OK(api->event_destroy(a, &plugin_msg));
    PLUGIN_OK(api->event_destroy(b, &plugin_msg));
}

TEST_F(CudaPlugin, StreamsCreatedAndDestroyedInBulk) {
    REQUIRE_DEVICE();
    for (int round = 0; round < 200; ++round) {
        std::vector<gpucore_stream> streams(8);
        for (auto& s : streams) PLUGIN_OK(api->stream_create(0, &s, &plugin_msg));
        for (auto& s : streams) PLUGIN_OK(api->stream_destroy(s, &plugin_msg));
    }
}

// Reduces on several streams from several threads at once: each stream's scratch is its own, so
// every result is exact (integer inputs).
TEST_F(CudaPlugin, ConcurrentReducesOnSeparateStreams) {
    REQUIRE_DEVICE();
    constexpr int kThreads = 4;
    constexpr std::size_t kN = (1 << 22) + 3;
    std::vector<std::thread> threads;
    std::vector<int> failures(kThreads, 0);
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            gpucore_message msg{};
            gpucore_stream s = nullptr;
            void* in = nullptr;
            void* out = nullptr;
            if (api->stream_create(0, &s, &msg) != GPUCORE_OK ||
                api->allocate(0, GPUCORE_MEMORY_DEVICE, kN * 4, &in, &msg) != GPUCORE_OK ||
                api->allocate(0, GPUCORE_MEMORY_DEVICE, 4, &out, &msg) != GPUCORE_OK) {
                failures[t] = -1;
                return;
            }
            const std::uint32_t value = static_cast<std::uint32_t>(t + 1);
            for (int round = 0; round < 50; ++round) {
                std::uint32_t got = 0;
                if (api->fill(in, &value, 4, kN, s, &msg) != GPUCORE_OK ||
                    api->reduce(GPUCORE_DTYPE_U32, GPUCORE_REDUCE_SUM, in, kN, out, s, &msg) !=
                        GPUCORE_OK ||
                    api->copy(&got, out, 4, GPUCORE_COPY_DEVICE_TO_HOST, s, &msg) != GPUCORE_OK ||
                    api->stream_synchronize(s, &msg) != GPUCORE_OK ||
                    got != static_cast<std::uint32_t>(kN * value)) {
                    ++failures[t];
                }
            }
            api->deallocate(0, GPUCORE_MEMORY_DEVICE, in, &msg);
            api->deallocate(0, GPUCORE_MEMORY_DEVICE, out, &msg);
            api->stream_destroy(s, &msg);
        });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

} // namespace
} // namespace plugin_test

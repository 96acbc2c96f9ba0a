// SPDX-License-Identifier: Apache-2.0
// Every optional slot a device's plugin fills is exercised, on its success and its error paths:
// through the public API where it reaches the slot (Stream::native_handle, memory_info), and
// through the plugin's own table for what the API reaches only with several devices (copy_peer,
// here also between a device and itself, as the contract allows) or only indirectly
// (pointer_device's refusals). A slot that throws a C++ exception across the C boundary, or fails
// where it must succeed, fails the test, and with it `gpucore-conformance --plugin`.
#include <dlfcn.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance_devices.hpp"
#include "gpucore/gpucore.hpp"
#include "gpucore/plugin.h"

namespace conformance {
namespace {

class OptionalSlots : public testing::TestWithParam<gpucore::Device> {};

std::string source_of(const gpucore::Device& device) {
    for (const auto& backend : gpucore::backends()) {
        if (backend.name == device.backend_name()) return backend.source;
    }
    return {};
}

// The plugin's table, for a backend loaded from a file (the built-in cpu backend has none here:
// backends/cpu/tests cover its slots). The file is loaded already: dlopen only finds it.
const gpucore_plugin_api* table_of(const std::string& source) {
    if (source.empty() || source == "built-in") return nullptr;
    void* handle = ::dlopen(source.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr) return nullptr;
    const auto entry = reinterpret_cast<gpucore_plugin_entry_fn>(::dlsym(handle, "gpucore_plugin_entry_v1"));
    gpucore_message msg{};
    return entry != nullptr ? entry(&msg) : nullptr;
}

// True when the table is long enough to hold the slot at `offset` and fills it.
bool filled(const gpucore_plugin_api* table, std::size_t offset) {
    if (table == nullptr || offset + sizeof(void*) > table->struct_size) return false;
    void* slot = nullptr;
    std::memcpy(&slot, reinterpret_cast<const char*>(table) + offset, sizeof slot);
    return slot != nullptr;
}
#define GPUCORE_SLOT_FILLED(table, slot) filled(table, offsetof(gpucore_plugin_api, slot))

// Calls a slot; a C++ exception escaping it is a failure of the plugin (reported, not rethrown).
template <class Call>
gpucore_status call_slot(const char* name, gpucore_message& msg, Call&& call) {
    msg.text[0] = '\0';
    try {
        return call();
    } catch (const std::exception& e) {
        ADD_FAILURE() << name << " threw a C++ exception across the C boundary: " << e.what();
    } catch (...) {
        ADD_FAILURE() << name << " threw across the C boundary";
    }
    return GPUCORE_ERROR_PLUGIN;
}

#define EXPECT_SLOT_OK(name, msg, expression)                                                        \
    EXPECT_EQ(call_slot(name, msg, [&] { return (expression); }), GPUCORE_OK) << name << ": " << (msg).text

TEST_P(OptionalSlots, EveryFilledSlotWorksAndRefusesWhatItMust) {
    const gpucore::Device device = GetParam();
    const gpucore_plugin_api* table = table_of(source_of(device));
    const bool built_in = source_of(device) == "built-in";

    // Through the public API: a filled slot must answer, an empty one gives not_supported.
    for (const bool native : {true, false}) {
        const bool has = built_in || (native ? GPUCORE_SLOT_FILLED(table, stream_native_handle)
                                             : GPUCORE_SLOT_FILLED(table, memory_info));
        try {
            if (native) {
                gpucore::Stream stream(device);
                (void)stream.native_handle();
            } else {
                const gpucore::MemoryInfo info = gpucore::memory_info(device);
                if (info.total_bytes > 0) {
                    EXPECT_LE(info.free_bytes, info.total_bytes);
                }
            }
            EXPECT_TRUE(has) << (native ? "native_handle" : "memory_info") << " answered without the slot";
        } catch (const gpucore::Error& e) {
            EXPECT_FALSE(has) << e.what();
            EXPECT_EQ(e.code(), gpucore::ErrorCode::not_supported) << e.what();
        }
    }
    if (table == nullptr) return;

    // Through the table, on the device's own index (the core's indices are the plugin's).
    const int index = device.index();
    gpucore_message msg{};
    gpucore_stream stream = nullptr;
    ASSERT_EQ(table->stream_create(index, &stream, &msg), GPUCORE_OK) << msg.text;
    if (GPUCORE_SLOT_FILLED(table, stream_native_handle)) {
        void* handle = nullptr;
        EXPECT_SLOT_OK("stream_native_handle", msg, table->stream_native_handle(stream, &handle, &msg));
    }
    if (GPUCORE_SLOT_FILLED(table, memory_info)) {
        std::uint64_t free_bytes = 0, total_bytes = 0;
        EXPECT_SLOT_OK("memory_info", msg, table->memory_info(index, &free_bytes, &total_bytes, &msg));
    }
    constexpr std::size_t bytes = 4096;
    void* a = nullptr;
    void* b = nullptr;
    ASSERT_EQ(table->allocate(index, GPUCORE_MEMORY_DEVICE, bytes, &a, &msg), GPUCORE_OK) << msg.text;
    ASSERT_EQ(table->allocate(index, GPUCORE_MEMORY_DEVICE, bytes, &b, &msg), GPUCORE_OK) << msg.text;
    if (GPUCORE_SLOT_FILLED(table, pointer_device)) {
        int owner = -1;
        gpucore_memory_kind kind = GPUCORE_MEMORY_PINNED_HOST;
        EXPECT_SLOT_OK("pointer_device", msg, table->pointer_device(static_cast<char*>(a) + 100, &owner, &kind, &msg));
        EXPECT_EQ(owner, index);
        EXPECT_EQ(kind, GPUCORE_MEMORY_DEVICE);
        // The error path: a null pointer is nobody's memory.
        const gpucore_status refused =
            call_slot("pointer_device", msg, [&] { return table->pointer_device(nullptr, &owner, &kind, &msg); });
        EXPECT_NE(refused, GPUCORE_OK) << "pointer_device accepted a null pointer";
        EXPECT_NE(refused, GPUCORE_ERROR_PLUGIN) << msg.text;
    }
    if (GPUCORE_SLOT_FILLED(table, copy_peer)) {
        std::vector<unsigned char> in(bytes), out(bytes, 0);
        for (std::size_t i = 0; i < bytes; ++i) in[i] = static_cast<unsigned char>(i * 7 + 1);
        ASSERT_EQ(table->copy(a, in.data(), bytes, GPUCORE_COPY_HOST_TO_DEVICE, stream, &msg), GPUCORE_OK) << msg.text;
        // To itself and, where the plugin has more devices, to the next one and back.
        EXPECT_SLOT_OK("copy_peer", msg, table->copy_peer(b, index, a, index, bytes, stream, &msg));
        EXPECT_SLOT_OK("copy_peer", msg, table->copy_peer(b, index, a, index, 0, stream, &msg));
        EXPECT_SLOT_OK("stream_synchronize", msg, table->stream_synchronize(stream, &msg));
        ASSERT_EQ(table->copy(out.data(), b, bytes, GPUCORE_COPY_DEVICE_TO_HOST, stream, &msg), GPUCORE_OK) << msg.text;
        EXPECT_SLOT_OK("stream_synchronize", msg, table->stream_synchronize(stream, &msg));
        EXPECT_EQ(out, in) << "copy_peer did not copy";
        int count = 0;
        if (table->device_count(&count, &msg) == GPUCORE_OK && count > 1) {
            const int other = (index + 1) % count;
            void* c = nullptr;
            ASSERT_EQ(table->allocate(other, GPUCORE_MEMORY_DEVICE, bytes, &c, &msg), GPUCORE_OK) << msg.text;
            EXPECT_SLOT_OK("copy_peer", msg, table->copy_peer(c, other, a, index, bytes, stream, &msg));
            EXPECT_SLOT_OK("copy_peer", msg, table->copy_peer(b, index, c, other, bytes, stream, &msg));
            EXPECT_SLOT_OK("stream_synchronize", msg, table->stream_synchronize(stream, &msg));
            table->deallocate(other, GPUCORE_MEMORY_DEVICE, c, &msg);
        }
    }
    EXPECT_SLOT_OK("stream_synchronize", msg, table->stream_synchronize(stream, &msg));
    table->deallocate(index, GPUCORE_MEMORY_DEVICE, a, &msg);
    table->deallocate(index, GPUCORE_MEMORY_DEVICE, b, &msg);
    table->stream_destroy(stream, &msg);
}

INSTANTIATE_TEST_SUITE_P(Devices, OptionalSlots, testing::ValuesIn(conformance_devices()),
                         [](const testing::TestParamInfo<gpucore::Device>& param) {
                             return device_test_name(param.param);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OptionalSlots);

} // namespace
} // namespace conformance

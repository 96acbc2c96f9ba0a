// SPDX-License-Identifier: Apache-2.0
// The slot table of a plugin built from backends/gpu (cuda, hip and the simt test plugins), read
// through dlopen as the core reads it: the entry point gives every caller one table, even on
// concurrent first calls, and that table sets every slot of the ABI minor it reports (the slots are
// filled by several files, so a forgotten one would otherwise reach users as not_supported). Only
// the entry point runs: no init, no vendor runtime, so it runs where no GPU is.
// The plugin is named by GPUCORE_TABLE_TEST_PLUGIN: one ctest test per plugin built.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gpucore/plugin.h"

namespace {

using Slot = void (*)();

std::string plugin_path() {
    const char* path = std::getenv("GPUCORE_TABLE_TEST_PLUGIN");
    return path != nullptr ? path : "";
}

// "libgpucore-test-wave64.so" -> "test-wave64": the file name carries the backend name.
std::string backend_name_of(const std::string& path) {
    const std::string file = path.substr(path.find_last_of('/') + 1);
    const std::string prefix = "libgpucore-";
    const std::string suffix = ".so";
    if (file.size() <= prefix.size() + suffix.size() || file.compare(0, prefix.size(), prefix) != 0)
        return "";
    return file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
}

gpucore_plugin_entry_fn load_entry() {
    const std::string path = plugin_path();
    if (path.empty()) {
        ADD_FAILURE() << "GPUCORE_TABLE_TEST_PLUGIN names no plugin";
        return nullptr;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL); // kept open until the process ends
    if (handle == nullptr) {
        ADD_FAILURE() << dlerror();
        return nullptr;
    }
    auto entry = reinterpret_cast<gpucore_plugin_entry_fn>(dlsym(handle, GPUCORE_PLUGIN_ENTRY_NAME));
    if (entry == nullptr) ADD_FAILURE() << path << " has no " << GPUCORE_PLUGIN_ENTRY_NAME;
    return entry;
}

// Runs first in this process (one ctest test runs the whole binary), so the calls race to build
// the table.
TEST(GpuPluginTable, ConcurrentFirstCallsGetOneTable) {
    const gpucore_plugin_entry_fn entry = load_entry();
    ASSERT_NE(entry, nullptr);
    constexpr int kThreads = 8;
    std::vector<const gpucore_plugin_api*> tables(kThreads, nullptr);
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
            gpucore_message msg{};
            tables[t] = entry(&msg);
        });
    }
    go.store(true, std::memory_order_release);
    for (auto& thread : threads) thread.join();
    ASSERT_NE(tables[0], nullptr);
    for (int t = 1; t < kThreads; ++t) EXPECT_EQ(tables[t], tables[0]) << "thread " << t;
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(tables[t]->struct_size, sizeof(gpucore_plugin_api)) << "thread " << t << " saw a table still being built";
    }
}

TEST(GpuPluginTable, SetsEverySlotOfItsMinor) {
    const gpucore_plugin_entry_fn entry = load_entry();
    ASSERT_NE(entry, nullptr);
    gpucore_message msg{};
    const gpucore_plugin_api* api = entry(&msg);
    ASSERT_NE(api, nullptr) << msg.text;

    // Built against this header: its minor, its whole table.
    EXPECT_EQ(api->abi_major, static_cast<uint32_t>(GPUCORE_PLUGIN_ABI_MAJOR));
    EXPECT_EQ(api->abi_minor, static_cast<uint32_t>(GPUCORE_PLUGIN_ABI_MINOR));
    ASSERT_EQ(api->struct_size, sizeof(gpucore_plugin_api));
    const std::string name = backend_name_of(plugin_path());
    ASSERT_NE(api->name, nullptr);
    EXPECT_EQ(name, api->name);
    ASSERT_NE(api->version, nullptr);
    const std::string version_start = "gpucore-" + name + " " GPUCORE_PLUGIN_VERSION_STRING " (";
    EXPECT_EQ(std::string(api->version).compare(0, version_start.size(), version_start), 0) << api->version;

    // After the header the table is slots only, each a function pointer: every one the plugin's
    // struct_size covers must be set, including slots appended to plugin.h later.
    constexpr std::size_t first = offsetof(gpucore_plugin_api, init);
    static_assert((sizeof(gpucore_plugin_api) - first) % sizeof(Slot) == 0,
                  "the table after its header holds function pointers only");
    const auto* bytes = reinterpret_cast<const unsigned char*>(api);
    int slots = 0;
    for (std::size_t at = first; at < api->struct_size; at += sizeof(Slot), ++slots) {
        Slot slot = nullptr;
        std::memcpy(&slot, bytes + at, sizeof slot);
        EXPECT_NE(slot, nullptr) << "slot " << slots << " of plugin.h's table, counting init as 0 (byte offset " << at
                                 << "), is NULL";
    }
}

} // namespace

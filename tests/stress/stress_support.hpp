// SPDX-License-Identifier: Apache-2.0
// What the stress tests share: the devices to run on, a thread-safe failure log, and starting many
// threads at the same instant.
#pragma once

#include <atomic>
#include <cctype>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "gpucore/gpucore.hpp"

namespace gpucore::stress {

// Every device gpucore found, except backends that are broken on purpose (fault-test plugins):
// cpu here, the template plugin when it is on GPUCORE_PLUGIN_PATH, cuda/hip on a GPU machine.
inline std::vector<Device> devices_under_test() {
    std::vector<Device> found;
    for (const Device& device : devices()) {
        if (device.backend_name() != "failing" && device.backend_name() != "deferred") found.push_back(device);
    }
    return found;
}

// "cpu:0" -> "cpu_0" (gtest parameter names allow only [A-Za-z0-9_]).
inline std::string test_name(const Device& device) {
    std::string name = device.to_string();
    for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return name;
}

struct DeviceName {
    std::string operator()(const testing::TestParamInfo<Device>& info) const { return test_name(info.param); }
};

// Failures seen by worker threads, reported by the main thread (one message each, bounded).
class FailureLog {
public:
    void add(std::string message) {
        std::lock_guard<std::mutex> lock(mutex_);
        ++count_;
        if (messages_.size() < 20) messages_.push_back(std::move(message));
    }
    void report() const {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const auto& message : messages_) ADD_FAILURE() << message;
        if (count_ > messages_.size()) ADD_FAILURE() << (count_ - messages_.size()) << " more failures";
    }
    std::size_t count() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return count_;
    }

private:
    mutable std::mutex mutex_;
    std::vector<std::string> messages_;
    std::size_t count_ = 0;
};

// Runs body(t) on `threads` threads released together, so their first calls really overlap.
// An exception escaping a body is logged as a failure, not lost (and never terminates the test).
inline void run_together(int threads, const std::function<void(int)>& body, FailureLog& log) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            ready.fetch_add(1);
            while (!go.load()) std::this_thread::yield();
            try {
                body(t);
            } catch (const std::exception& e) {
                log.add("thread " + std::to_string(t) + " threw: " + e.what());
            } catch (...) {
                log.add("thread " + std::to_string(t) + " threw a non-standard exception");
            }
        });
    }
    while (ready.load() < threads) std::this_thread::yield();
    go.store(true);
    for (auto& thread : pool) thread.join();
}

} // namespace gpucore::stress

// SPDX-License-Identifier: Apache-2.0
// Shared helpers of the CPU backend tests: the table, owned allocations, a gate to hold a stream.
#pragma once

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>

#include "cpu_backend.h"
#include "cpu_stream.hpp"

namespace gpucore::cpu::test {

inline const gpucore_plugin_api& table() {
    static const gpucore_plugin_api* api = [] {
        gpucore_message msg{};
        const gpucore_plugin_api* t = gpucore_cpu_backend_table(&msg);
        gpucore_host_services host{};
        host.struct_size = sizeof(host);
        host.log_level = GPUCORE_LOG_OFF;
        if (t != nullptr && t->init(&host, &msg) != GPUCORE_OK) return static_cast<const gpucore_plugin_api*>(nullptr);
        return t;
    }();
    if (api == nullptr) throw std::runtime_error("cpu backend table unavailable");
    return *api;
}

// An allocation from the table, freed on scope exit.
template <class T>
class DeviceArray {
public:
    explicit DeviceArray(std::size_t count) : count_(count) {
        gpucore_message msg{};
        void* ptr = nullptr;
        const gpucore_status status =
            table().allocate(0, GPUCORE_MEMORY_DEVICE, std::max<std::size_t>(count, 1) * sizeof(T), &ptr, &msg);
        if (status != GPUCORE_OK) throw std::runtime_error(msg.text);
        data_ = static_cast<T*>(ptr);
    }
    ~DeviceArray() {
        gpucore_message msg{};
        table().deallocate(0, GPUCORE_MEMORY_DEVICE, data_, &msg);
    }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    T* data() const { return data_; }
    T& operator[](std::size_t i) const { return data_[i]; }
    std::size_t size() const { return count_; }

private:
    T* data_ = nullptr;
    std::size_t count_;
};

// A stream from the table, synchronized and destroyed on scope exit.
class TableStream {
public:
    TableStream() {
        gpucore_message msg{};
        if (table().stream_create(0, &handle_, &msg) != GPUCORE_OK) throw std::runtime_error(msg.text);
    }
    ~TableStream() {
        gpucore_message msg{};
        table().stream_destroy(handle_, &msg);
    }
    TableStream(const TableStream&) = delete;
    TableStream& operator=(const TableStream&) = delete;
    gpucore_stream get() const { return handle_; }
    // The backend's own object behind the handle, to queue test tasks on it.
    Stream& queue() const { return *reinterpret_cast<Stream*>(handle_); }
    void sync() const {
        gpucore_message msg{};
        ASSERT_EQ(table().stream_synchronize(handle_, &msg), GPUCORE_OK) << msg.text;
    }

private:
    gpucore_stream handle_ = nullptr;
};

// A task that blocks its stream until open() is called: makes "not yet finished" deterministic.
class Gate {
public:
    Stream::Task task() {
        return [state = state_] {
            std::unique_lock<std::mutex> lock(state->mutex);
            state->cv.wait(lock, [&] { return state->open; });
        };
    }
    void open() {
        {
            std::lock_guard<std::mutex> lock(state_->mutex);
            state_->open = true;
        }
        state_->cv.notify_all();
    }
    ~Gate() { open(); } // never leave a worker blocked

private:
    struct State {
        std::mutex mutex;
        std::condition_variable cv;
        bool open = false;
    };
    std::shared_ptr<State> state_ = std::make_shared<State>();
};

} // namespace gpucore::cpu::test

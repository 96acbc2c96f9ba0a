// SPDX-License-Identifier: Apache-2.0
// Error names and texts, the per-thread last error and the device's sticky fault.
#include <atomic>
#include <vector>

#include "simt_internal.hpp"

namespace gpucore::simt {
namespace {

thread_local simtError_t t_last_error = simtSuccess;

struct FaultState {
    std::mutex mutex;
    std::atomic<bool> set{false};
    // Every fault text ever reported stays alive: simtGetErrorString hands out pointers to it.
    std::vector<std::unique_ptr<std::string>> texts;
};

FaultState& fault_state() {
    static FaultState* state = new FaultState(); // outlives every caller, even at exit
    return *state;
}

} // namespace

simtError_t record(simtError_t err) noexcept {
    if (err != simtSuccess) t_last_error = err;
    return err;
}

void set_fault(const std::string& text) noexcept {
    FaultState& state = fault_state();
    try {
        std::lock_guard<std::mutex> lock(state.mutex);
        if (state.set.load(std::memory_order_relaxed)) return;
        state.texts.push_back(std::make_unique<std::string>("kernel fault: " + text));
    } catch (...) {
        // The fault still counts; its text is the fixed one.
    }
    state.set.store(true, std::memory_order_release);
}

bool faulted() noexcept { return fault_state().set.load(std::memory_order_acquire); }

} // namespace gpucore::simt

using gpucore::simt::faulted;

const char* simtGetErrorName(simtError_t err) noexcept {
    switch (err) {
    case simtSuccess: return "simtSuccess";
    case simtErrorInvalidValue: return "simtErrorInvalidValue";
    case simtErrorMemoryAllocation: return "simtErrorMemoryAllocation";
    case simtErrorInvalidDevice: return "simtErrorInvalidDevice";
    case simtErrorInvalidConfiguration: return "simtErrorInvalidConfiguration";
    case simtErrorInvalidResourceHandle: return "simtErrorInvalidResourceHandle";
    case simtErrorNotReady: return "simtErrorNotReady";
    case simtErrorLaunchFailure: return "simtErrorLaunchFailure";
    case simtErrorNoDevice: return "simtErrorNoDevice";
    case simtErrorNotSupported: return "simtErrorNotSupported";
    case simtErrorPeerAccessAlreadyEnabled: return "simtErrorPeerAccessAlreadyEnabled";
    }
    return "simtErrorUnknown";
}

const char* simtGetErrorString(simtError_t err) noexcept {
    switch (err) {
    case simtSuccess: return "no error";
    case simtErrorInvalidValue: return "invalid argument";
    case simtErrorMemoryAllocation: return "out of memory";
    case simtErrorInvalidDevice: return "invalid device ordinal";
    case simtErrorInvalidConfiguration: return "invalid launch configuration";
    case simtErrorInvalidResourceHandle: return "invalid resource handle";
    case simtErrorNotReady: return "not ready";
    case simtErrorLaunchFailure: {
        auto& state = gpucore::simt::fault_state();
        std::lock_guard<std::mutex> lock(state.mutex);
        return state.texts.empty() ? "kernel fault" : state.texts.back()->c_str();
    }
    case simtErrorNoDevice: return "no device";
    case simtErrorNotSupported: return "operation not supported";
    case simtErrorPeerAccessAlreadyEnabled: return "peer access is already enabled";
    }
    return "unknown error";
}

simtError_t simtGetLastError() noexcept {
    if (faulted()) return simtErrorLaunchFailure; // sticky
    const simtError_t err = gpucore::simt::t_last_error;
    gpucore::simt::t_last_error = simtSuccess;
    return err;
}

simtError_t simtDeviceReset() noexcept {
    auto& state = gpucore::simt::fault_state();
    std::lock_guard<std::mutex> lock(state.mutex);
    state.set.store(false, std::memory_order_release);
    gpucore::simt::t_last_error = simtSuccess;
    return simtSuccess;
}

// SPDX-License-Identifier: Apache-2.0
// Errors inside the plugin: a vendor call that fails throws GpuError (through GPUCORE_GPU_CHECK);
// the slot guard (slot_guard.hpp) catches it at the C boundary and turns it into a status code and
// message. Exceptions never leave the plugin.
#pragma once

#include <stdexcept>
#include <string>

#include "gpu_vendor.hpp"
#include "gpucore/plugin.h"
#include "gpucore/plugin_support.hpp"

namespace gpucore::gpu {

// A failure with its contract status (the plugin SDK's StatusError), and whether it is sticky.
class GpuError : public plugin::StatusError {
public:
    GpuError(gpucore_status status, const std::string& text, bool sticky = false)
        : plugin::StatusError(status, text), sticky_(sticky) {}
    // True when the device context is lost (illegal address, kernel fault, ...).
    bool sticky() const noexcept { return sticky_; }

private:
    bool sticky_;
};

// Maps a failed vendor call to the contract's status codes:
//   allocation failure -> OUT_OF_MEMORY, sticky errors -> DEVICE, no driver/device ->
//   BACKEND_UNAVAILABLE, anything else -> DEVICE.
gpucore_status status_of(gpuError_t err) noexcept;

// The call as written with the vendor's names: "gpuMalloc(&p, n)" -> "cudaMalloc(&p, n)".
std::string vendor_call_text(const char* call_text);

// "cudaMalloc(&p, bytes): out of memory (cudaErrorMemoryAllocation) at gpu_memory.cpp:42".
std::string describe_call_failure(gpuError_t err, const char* call_text, const char* file,
                                  int line);

// Throws GpuError for `err`. Clears the runtime's last-error slot first, so a non-sticky failure
// (e.g. an allocation that did not fit) is not reported again by the next launch check.
[[noreturn]] void throw_gpu_error(gpuError_t err, const char* call_text, const char* file,
                                  int line);

inline void check_call(gpuError_t err, const char* call_text, const char* file, int line) {
    if (err != gpuSuccess) throw_gpu_error(err, call_text, file, line);
}

// The error of the last kernel launch on this thread (read and reset). "Not ready" is a status of
// an earlier query, not a failure, so it never fails a launch.
inline gpuError_t last_launch_error() noexcept {
    const gpuError_t err = take_launch_error();
    return err == gpuErrorNotReady ? gpuSuccess : err;
}

} // namespace gpucore::gpu

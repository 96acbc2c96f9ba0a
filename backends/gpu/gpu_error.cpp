// SPDX-License-Identifier: Apache-2.0
#include "gpu_error.hpp"

#include <cctype>
#include <cstring>

namespace gpucore::gpu {

gpucore_status status_of(gpuError_t err) noexcept {
    if (err == gpuErrorMemoryAllocation) return GPUCORE_ERROR_OUT_OF_MEMORY;
    if (is_no_device_error(err)) return GPUCORE_ERROR_BACKEND_UNAVAILABLE;
    return GPUCORE_ERROR_DEVICE;
}

std::string vendor_call_text(const char* call_text) {
    std::string text;
    for (const char* p = call_text; *p != '\0'; ++p) {
        const bool starts_word =
            p == call_text || !(std::isalnum(static_cast<unsigned char>(p[-1])) || p[-1] == '_');
        if (starts_word && std::strncmp(p, "gpu", 3) == 0 &&
            std::isupper(static_cast<unsigned char>(p[3]))) {
            text += GPUCORE_GPU_API_PREFIX;
            p += 2;
        } else {
            text += *p;
        }
    }
    return text;
}

std::string describe_call_failure(gpuError_t err, const char* call_text, const char* file,
                                  int line) {
    const char* base = std::strrchr(file, '/');
    std::string text = vendor_call_text(call_text);
    text += ": ";
    text += gpuGetErrorString(err);
    text += " (";
    text += gpuGetErrorName(err);
    text += ") at ";
    text += base ? base + 1 : file;
    text += ':';
    text += std::to_string(line);
    return text;
}

void throw_gpu_error(gpuError_t err, const char* call_text, const char* file, int line) {
    // Reading the last error resets it for non-sticky errors; sticky ones stay and are reported
    // by every later call anyway.
    (void)gpuGetLastError();
    throw GpuError(status_of(err), describe_call_failure(err, call_text, file, line),
                   is_sticky_error(err));
}

} // namespace gpucore::gpu

#include "gpu_error.hpp"

#include <cstring>

namespace gpucore::gpu {

gpucore_status status_of(gpuError_t err) noexcept {
    if (err == gpuErrorMemoryAllocation) return GPUCORE_ERROR_OUT_OF_MEMORY;
    if (is_no_device_error(err)) return GPUCORE_ERROR_BACKEND_UNAVAILABLE;
    return GPUCORE_ERROR_DEVICE;
}

std::string describe_call_failure(gpuError_t err, const char* call_text, const char* file,
                                  int line) {
    const char* base = std::strrchr(file, '/');
    std::string text = call_text;
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

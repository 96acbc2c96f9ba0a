// The C boundary: every slot runs its body through guarded(), which turns any exception into a
// status and a message, and marks the device lost on a sticky error. Nothing escapes.
#pragma once

#include <cstdio>
#include <exception>
#include <new>

#include "gpu_error.hpp"
#include "gpucore/plugin.h"
#include "plugin_state.hpp"

namespace gpucore::gpu {

inline void write_message(gpucore_message* msg, const char* text) noexcept {
    if (msg != nullptr) std::snprintf(msg->text, sizeof msg->text, "%s", text);
}

// Runs body(); `device` is the device the slot works on (-1 when none).
template <class Body>
gpucore_status guarded(gpucore_message* msg, int device, Body&& body) noexcept {
    try {
        body();
        return GPUCORE_OK;
    } catch (const GpuError& e) {
        if (e.sticky()) mark_lost(device, e.what());
        write_message(msg, e.what());
        return e.status();
    } catch (const std::bad_alloc&) {
        write_message(msg, "host memory exhausted inside the " GPUCORE_GPU_BACKEND_NAME " plugin");
        return GPUCORE_ERROR_OUT_OF_MEMORY;
    } catch (const std::exception& e) {
        write_message(msg, e.what());
        return GPUCORE_ERROR_PLUGIN;
    } catch (...) {
        write_message(msg, "unknown exception inside the " GPUCORE_GPU_BACKEND_NAME " plugin");
        return GPUCORE_ERROR_PLUGIN;
    }
}

} // namespace gpucore::gpu

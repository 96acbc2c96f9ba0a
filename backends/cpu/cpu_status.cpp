#include "cpu_status.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>

namespace gpucore::cpu {

void write_message(gpucore_message* msg, const char* text) noexcept {
    if (msg == nullptr) return;
    const std::size_t length = std::min(std::strlen(text), sizeof(msg->text) - 1);
    std::memcpy(msg->text, text, length);
    msg->text[length] = '\0';
}

gpucore_status describe_current_exception(const char* operation, char* text, std::size_t capacity) noexcept {
    const char* prefix = operation != nullptr ? operation : "";
    const char* separator = operation != nullptr ? ": " : "";
    auto write = [&](const char* kind, const char* cause) {
        std::snprintf(text, capacity, "%s%s%s%s", prefix, separator, kind, cause);
    };
    try {
        throw;
    } catch (const std::bad_alloc&) {
        write("out of memory", " (host memory exhausted)");
        return GPUCORE_ERROR_OUT_OF_MEMORY;
    } catch (const BackendError& e) {
        write("", e.what());
        return e.status();
    } catch (const std::exception& e) {
        write("internal error: ", e.what());
        return GPUCORE_ERROR_PLUGIN;
    } catch (...) {
        write("internal error: ", "unknown exception");
        return GPUCORE_ERROR_PLUGIN;
    }
}

} // namespace gpucore::cpu

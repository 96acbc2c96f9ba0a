#include "cpu_status.hpp"

#include <algorithm>
#include <cstring>
#include <exception>

namespace gpucore::cpu {

void write_message(gpucore_message* msg, const char* text) noexcept {
    if (msg == nullptr) return;
    const std::size_t length = std::min(std::strlen(text), sizeof(msg->text) - 1);
    std::memcpy(msg->text, text, length);
    msg->text[length] = '\0';
}

gpucore_status classify_current_exception(std::string* text) noexcept {
    // Building the text may itself throw bad_alloc; then a fixed text is the best we can do.
    try {
        try {
            throw;
        } catch (const std::bad_alloc&) {
            *text = "out of host memory";
            return GPUCORE_ERROR_OUT_OF_MEMORY;
        } catch (const BackendError& e) {
            *text = e.what();
            return e.status();
        } catch (const std::exception& e) {
            *text = std::string("internal error: ") + e.what();
            return GPUCORE_ERROR_PLUGIN;
        } catch (...) {
            *text = "internal error: unknown exception";
            return GPUCORE_ERROR_PLUGIN;
        }
    } catch (...) {
        text->clear();
        return GPUCORE_ERROR_OUT_OF_MEMORY;
    }
}

} // namespace gpucore::cpu

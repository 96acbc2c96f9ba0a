// SPDX-License-Identifier: Apache-2.0
#include "plugin_loader.hpp"

#include <cstring>
#include <exception>

#include "logging.hpp"
#include "plugin_boundary.hpp"
#include "plugin_trust.hpp"

namespace gpucore::detail {

namespace {

// boost::dll puts dlerror's text inside its message: "... (dlerror system message: <text>): ...".
std::string loader_text(const std::string& what) {
    const std::string marker = "dlerror system message: ";
    const auto begin = what.find(marker);
    if (begin == std::string::npos) return what;
    const auto text_begin = begin + marker.size();
    const auto end = what.rfind(')');
    if (end == std::string::npos || end < text_begin) return what.substr(text_begin);
    return what.substr(text_begin, end - text_begin);
}

std::string message_text(const gpucore_message& message) {
    const char* end = static_cast<const char*>(std::memchr(message.text, '\0', sizeof message.text));
    return std::string(message.text, end ? end : message.text + sizeof message.text);
}

} // namespace

bool is_valid_backend_name(const std::string& name) {
    if (name.empty() || name.size() > 63 || name == "auto") return false;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        if (!ok) return false;
    }
    return true;
}

std::string validate_plugin_table(const gpucore_plugin_api* table) {
    if (table->abi_major != GPUCORE_PLUGIN_ABI_MAJOR) {
        return "table reports ABI major " + std::to_string(table->abi_major) +
               ", this gpucore speaks " + std::to_string(GPUCORE_PLUGIN_ABI_MAJOR);
    }
    if (table->struct_size < kAbi10TableSize) {
        return "table struct_size " + std::to_string(table->struct_size) +
               " is smaller than the ABI 1.0 table (" + std::to_string(kAbi10TableSize) + " bytes)";
    }
    if (table->name == nullptr) return "table has no name";
    const std::string name(table->name, strnlen(table->name, 64));
    if (!is_valid_backend_name(name) || table->name[name.size()] != '\0') {
        return "invalid backend name '" + name + "' (want 1-63 characters of [a-z0-9_-], not 'auto')";
    }
    struct Slot {
        const char* slot_name;
        bool present;
    };
    const Slot slots[] = {
        {"init", table->init != nullptr},
        {"shutdown", table->shutdown != nullptr},
        {"device_count", table->device_count != nullptr},
        {"device_properties", table->device_properties != nullptr},
        {"allocate", table->allocate != nullptr},
        {"deallocate", table->deallocate != nullptr},
        {"stream_create", table->stream_create != nullptr},
        {"stream_destroy", table->stream_destroy != nullptr},
        {"stream_synchronize", table->stream_synchronize != nullptr},
        {"stream_query", table->stream_query != nullptr},
        {"stream_wait_event", table->stream_wait_event != nullptr},
        {"event_create", table->event_create != nullptr},
        {"event_destroy", table->event_destroy != nullptr},
        {"event_record", table->event_record != nullptr},
        {"event_synchronize", table->event_synchronize != nullptr},
        {"event_query", table->event_query != nullptr},
        {"event_elapsed_ms", table->event_elapsed_ms != nullptr},
        {"copy", table->copy != nullptr},
        {"fill", table->fill != nullptr},
    };
    for (const auto& slot : slots) {
        if (!slot.present) return std::string("table slot '") + slot.slot_name + "' is NULL";
    }
    return {};
}

PluginLoadResult load_plugin(const std::filesystem::path& path, const struct stat& checked) {
    PluginLoadResult result;
    try {
        result.library.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
        result.reason = "dlopen failed: " + loader_text(e.what());
        return result;
    }
    // The trusted folders leave only root or this user able to swap the file between its check and
    // dlopen; a swap is still refused rather than run further.
    struct stat loaded {};
    if (::stat(path.c_str(), &loaded) != 0 || !same_file(loaded, checked)) {
        result.reason = "the file changed between its checks and dlopen (" + path.string() + " is another file now)";
        return result;
    }
    gpucore_plugin_entry_fn entry = nullptr;
    try {
        // get<> (not import_symbol): the library is kept loaded by the runtime, not by a shared_ptr.
        entry = result.library.get<const gpucore_plugin_api*(gpucore_message*)>(GPUCORE_PLUGIN_ENTRY_NAME);
    } catch (const std::exception& e) {
        result.reason = std::string("cannot import ") + GPUCORE_PLUGIN_ENTRY_NAME + ": " +
                        loader_text(e.what());
        return result;
    }
    gpucore_message message;
    message.text[0] = '\0';
    const gpucore_plugin_api* table = nullptr;
    try {
        table = entry(&message);
    } catch (...) {
        result.reason = std::string(GPUCORE_PLUGIN_ENTRY_NAME) + " of " + path.string() + " " +
                        describe_current_exception() + " (a plugin must report failure by its return value)";
        return result;
    }
    if (table == nullptr) {
        const std::string why = message_text(message);
        result.reason = std::string(GPUCORE_PLUGIN_ENTRY_NAME) + " returned NULL: " +
                        (why.empty() ? std::string("(no message)") : why);
        return result;
    }
    if (table->name != nullptr && is_valid_backend_name(std::string(table->name, strnlen(table->name, 64)))) {
        result.backend_name = table->name;
    }
    if (auto problem = validate_plugin_table(table); !problem.empty()) {
        result.reason = "invalid plugin table: " + problem;
        return result;
    }
    result.table = table;
    return result;
}

} // namespace gpucore::detail

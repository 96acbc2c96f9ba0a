// SPDX-License-Identifier: Apache-2.0
#include "module_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <boost/dll/runtime_symbol_info.hpp>

#include "access.hpp"
#include "backend.hpp"
#include "environment.hpp"
#include "gpucore/error.hpp"
#include "plugin_boundary.hpp"
#include "plugin_inspection.hpp"
#include "plugin_trust.hpp"

#ifndef GPUCORE_MODULE_DIR_NAME
#error "GPUCORE_MODULE_DIR_NAME must be defined by the build (core/CMakeLists.txt)"
#endif

namespace gpucore::detail {
namespace fs = std::filesystem;

namespace {

constexpr const char* kLoad = "Module::load";
constexpr std::uint32_t kMaxKernels = 4096;
constexpr std::uint32_t kMaxParams = 256;
constexpr std::size_t kMaxNameLength = 255;

const EntryPoint module_entry_point{GPUCORE_MODULE_ENTRY_PREFIX, GPUCORE_MODULE_ABI_MAJOR,
                                    GPUCORE_MODULE_MANIFEST_SECTION, GPUCORE_MODULE_MANIFEST_CAPACITY};

bool valid_module_name(const std::string& name) {
    if (name.empty() || name.size() > 128 || name == "." || name == "..") return false;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '-' || c == '.';
        if (!ok) return false;
    }
    return true;
}

// A NUL-terminated string of static storage in the module, at most `limit` characters, or "".
std::string bounded_text(const char* text, std::size_t limit) {
    if (text == nullptr) return {};
    const std::size_t length = strnlen(text, limit + 1);
    return length > limit ? std::string() : std::string(text, length);
}

// The folders searched, in order, each with where it came from.
std::vector<std::pair<fs::path, std::string>> module_folders(std::vector<std::string>& notes) {
    std::vector<std::pair<fs::path, std::string>> folders;
    std::error_code ec;
    const fs::path program = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) folders.emplace_back(program.parent_path(), "the program's folder");
    if (const auto path = environment_variable(env_module_path)) {
        std::stringstream entries(*path);
        std::string entry;
        while (std::getline(entries, entry, ':')) {
            if (entry.empty()) continue; // an empty entry never means the current directory
            if (fs::path(entry).is_relative()) {
                notes.push_back(entry + " (GPUCORE_MODULE_PATH): skipped, not an absolute path");
                continue;
            }
            folders.emplace_back(entry, "GPUCORE_MODULE_PATH");
        }
    }
    const fs::path library = boost::dll::this_line_location();
    folders.emplace_back(library.parent_path() / GPUCORE_MODULE_DIR_NAME, "the installed module folder");
    return folders;
}

std::string message_text(const gpucore_message& message) {
    return std::string(message.text, strnlen(message.text, sizeof message.text));
}

// Checks the table an entry point returned against the manifest; copies what the core keeps.
std::string read_table(const gpucore_module_api* api, const ModuleManifest& manifest, LoadedModule& out) {
    if (api->abi_major != GPUCORE_MODULE_ABI_MAJOR) {
        return "its table reports ABI major " + std::to_string(api->abi_major) + ", this gpucore speaks " +
               std::to_string(GPUCORE_MODULE_ABI_MAJOR);
    }
    if (api->struct_size < sizeof(gpucore_module_api)) {
        return "its table's struct_size " + std::to_string(api->struct_size) + " is smaller than the ABI 1.0 table (" +
               std::to_string(sizeof(gpucore_module_api)) + " bytes)";
    }
    if (bounded_text(api->name, kMaxNameLength) != manifest.name || bounded_text(api->kind, 16) != manifest.kind) {
        return "its table names another module or kind than its manifest";
    }
    if (api->launch == nullptr) return "its table has no launch function";
    if (api->kernel_count > kMaxKernels) return "its table lists " + std::to_string(api->kernel_count) + " kernels";
    if (api->kernel_count > 0 && api->kernels == nullptr) return "its table's kernel list is NULL";
    for (std::uint32_t k = 0; k < api->kernel_count; ++k) {
        const gpucore_kernel_info& info = api->kernels[k];
        KernelInfo kernel;
        kernel.name = bounded_text(info.name, kMaxNameLength);
        if (kernel.name.empty()) return "kernel " + std::to_string(k) + " has no valid name";
        if (info.param_count > kMaxParams || (info.param_count > 0 && info.params == nullptr)) {
            return "kernel '" + kernel.name + "' has an invalid parameter list";
        }
        for (std::uint32_t p = 0; p < info.param_count; ++p) {
            const gpucore_kernel_param& param = info.params[p];
            const bool buffer = param.kind == GPUCORE_PARAM_BUFFER || param.kind == GPUCORE_PARAM_CONST_BUFFER;
            const bool sane = (buffer && param.size == sizeof(void*) && param.element_size > 0) ||
                              (param.kind == GPUCORE_PARAM_SCALAR && param.size > 0 && param.size <= 4096);
            if (!sane || static_cast<std::uint32_t>(param.type) > GPUCORE_PARAM_RAW) {
                return "kernel '" + kernel.name + "' parameter " + std::to_string(p + 1) + " is not a valid parameter";
            }
            kernel.params.push_back(param);
        }
        out.kernels.push_back(std::move(kernel));
    }
    return {};
}

// One candidate file: trust, inspection, manifest, targets, then dlopen and the table. Returns the
// module, or null with the reason (and whether it failed only for lack of device code).
std::shared_ptr<const LoadedModule> try_file(const fs::path& path, const std::string& name, const std::string& kind,
                                             const std::string& architecture, std::string& reason, bool& no_code) {
    static std::mutex mutex; // loads one file at a time (dlerror is per thread; the registry)
    static std::map<std::pair<dev_t, ino_t>, std::shared_ptr<const LoadedModule>> loaded;
    std::lock_guard<std::mutex> lock(mutex);

    OpenedCandidate opened = open_candidate(path, environment_flag(env_allow_insecure_plugins));
    if (!opened.reason.empty()) {
        reason = opened.reason;
        return nullptr;
    }
    const auto key = std::make_pair(opened.status.st_dev, opened.status.st_ino);
    if (const auto it = loaded.find(key); it != loaded.end()) {
        if (!module_runs_on(it->second->kind, it->second->targets, architecture)) {
            no_code = true;
            reason = "has no code for this device's " + architecture;
            return nullptr;
        }
        return it->second;
    }
    PluginInspection inspection =
        inspect_shared_object(opened.file.get(), static_cast<std::uint64_t>(opened.status.st_size), module_entry_point);
    if (!inspection.acceptable) {
        reason = inspection.reason;
        return nullptr;
    }
    const ModuleManifest manifest = parse_module_manifest(inspection.manifest);
    if (!manifest.problem.empty()) {
        reason = "its manifest is malformed: " + manifest.problem;
        return nullptr;
    }
    if (manifest.abi_major != GPUCORE_MODULE_ABI_MAJOR) {
        reason = "its manifest says module ABI " + std::to_string(manifest.abi_major);
        return nullptr;
    }
    if (manifest.name != name || manifest.kind != kind) {
        reason = "its manifest names module '" + manifest.name + "' of kind '" + manifest.kind + "', not '" + name +
                 "' of kind '" + kind + "'";
        return nullptr;
    }
    if (!module_runs_on(kind, manifest.targets, architecture)) {
        no_code = true;
        std::string list;
        for (const auto& t : manifest.targets) list += (list.empty() ? "" : " ") + t;
        reason = "has code for " + (list.empty() ? std::string("no target") : list) + ", none of which runs on this device (" +
                 architecture + ")";
        return nullptr;
    }

    auto module = std::make_shared<LoadedModule>();
    module->name = manifest.name;
    module->kind = manifest.kind;
    module->targets = manifest.targets;
    module->file = opened.resolved;
    try {
        module->library.load(opened.resolved, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
        reason = std::string("dlopen failed: ") + e.what();
        return nullptr;
    }
    struct stat now {};
    if (::stat(opened.resolved.c_str(), &now) != 0 || !same_file(now, opened.status)) {
        reason = "the file changed between its checks and dlopen";
        return nullptr;
    }
    gpucore_module_entry_fn entry = nullptr;
    try {
        entry = module->library.get<const gpucore_module_api*(gpucore_message*)>(GPUCORE_MODULE_ENTRY_NAME);
    } catch (const std::exception& e) {
        reason = std::string("cannot import ") + GPUCORE_MODULE_ENTRY_NAME + ": " + e.what();
        return nullptr;
    }
    gpucore_message message;
    message.text[0] = '\0';
    const gpucore_module_api* api = nullptr;
    try {
        api = entry(&message);
    } catch (...) {
        reason = std::string(GPUCORE_MODULE_ENTRY_NAME) + " " + describe_current_exception() +
                 " (a module must report failure by its return value)";
        return nullptr;
    }
    if (api == nullptr) {
        const std::string why = message_text(message);
        reason = std::string(GPUCORE_MODULE_ENTRY_NAME) + " returned NULL: " + (why.empty() ? "(no message)" : why);
        return nullptr;
    }
    if (auto problem = read_table(api, manifest, *module); !problem.empty()) {
        reason = "invalid module table: " + problem;
        return nullptr;
    }
    module->api = api;
    loaded.emplace(key, module);
    return module;
}

} // namespace

namespace {

// The words of one line, split at blanks (spaces and tabs).
std::vector<std::string_view> manifest_words(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t at = 0;
    while (at < line.size()) {
        while (at < line.size() && (line[at] == ' ' || line[at] == '\t' || line[at] == '\r')) ++at;
        std::size_t end = at;
        while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r') ++end;
        if (end > at) words.push_back(line.substr(at, end - at));
        at = end;
    }
    return words;
}

} // namespace

// Parsed by hand, never through iostreams: a file format must not depend on the process's locale,
// which a library loaded into the same process (a Python extension, a framework) may change.
ModuleManifest parse_module_manifest(const std::string& text) {
    ModuleManifest manifest;
    bool saw_header = false;
    std::string_view rest(text);
    while (!rest.empty()) {
        const std::size_t newline = rest.find('\n');
        const std::string_view line = rest.substr(0, newline);
        rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
        const std::vector<std::string_view> words = manifest_words(line);
        if (words.empty()) continue;
        const std::string_view key = words[0];
        if (key == "gpucore-module" && words.size() >= 2) {
            const std::string_view number = words[1];
            const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), manifest.abi_major);
            saw_header = error == std::errc() && end == number.data() + number.size();
        } else if (key == "name" && words.size() >= 2) {
            manifest.name = std::string(words[1]);
        } else if (key == "kind" && words.size() >= 2) {
            manifest.kind = std::string(words[1]);
        } else if (key == "targets") {
            for (std::size_t i = 1; i < words.size(); ++i) manifest.targets.emplace_back(words[i]);
        }
    }
    if (!saw_header) manifest.problem = "no 'gpucore-module <ABI major>' line";
    else if (manifest.name.empty()) manifest.problem = "no 'name' line";
    else if (manifest.kind.empty()) manifest.problem = "no 'kind' line";
    return manifest;
}

bool module_runs_on(const std::string& kind, const std::vector<std::string>& targets, const std::string& architecture) {
    if (kind == "cpu") return true; // the ELF machine check has matched the architecture already
    if (kind == "hip") {
        const std::string base = architecture.substr(0, architecture.find(':'));
        for (const auto& t : targets) {
            if (t == base) return true;
        }
        return false;
    }
    // cuda: "sm_XY" devices run cubins sm_XZ with Z <= Y, and PTX compute_AB with AB <= XY.
    const auto number = [](const std::string& text, const char* prefix) -> int {
        const std::size_t n = std::strlen(prefix);
        if (text.compare(0, n, prefix) != 0 || text.size() < n + 2 || text.size() > n + 3) return -1;
        int value = 0;
        for (std::size_t i = n; i < text.size(); ++i) {
            if (text[i] < '0' || text[i] > '9') return -1;
            value = value * 10 + (text[i] - '0');
        }
        return value;
    };
    const int device = number(architecture, "sm_");
    if (device < 0) return false;
    for (const auto& t : targets) {
        const int cubin = number(t, "sm_");
        if (cubin >= 0 && cubin / 10 == device / 10 && cubin <= device) return true;
        const int ptx = number(t, "compute_");
        if (ptx >= 0 && ptx <= device) return true;
    }
    return false;
}

std::string module_kind_of(const Device& device, std::string& why) {
    Backend& backend = backend_of(device, kLoad);
    const std::string& name = backend.name();
    if (name == "cuda" || name == "hip") {
        if (backend.api().stream_native_handle == nullptr) {
            why = "the " + name + " plugin was built against an ABI before 1.2 (no native stream handles)";
            return {};
        }
        return name;
    }
    if (backend.api().enqueue_host_task != nullptr) return "cpu";
    why = "backend '" + name + "' runs no kernel modules: it is neither cuda nor hip, and its plugin has no "
          "enqueue_host_task slot (ABI 1.3) to run modules built for the CPU";
    return {};
}

std::shared_ptr<const LoadedModule> load_module(const Device& device, const std::string& name) {
    Backend& backend = backend_of(device, kLoad);
    const int index = Access::index(device);
    const auto fail = [&](ErrorCode code, const std::string& cause) -> Error {
        return Error(code, kLoad, backend.name(), index, cause);
    };
    if (!valid_module_name(name)) {
        throw fail(ErrorCode::invalid_argument,
                   "invalid module name '" + name + "' (want 1-128 characters of [A-Za-z0-9_.-])");
    }
    std::string why;
    const std::string kind = module_kind_of(device, why);
    if (kind.empty()) throw fail(ErrorCode::not_supported, why);
    const std::string architecture = backend.properties(index).architecture;
    const std::string file_name = name + ".gpucore-" + kind + ".so";

    std::vector<std::string> attempts;
    const auto folders = module_folders(attempts);
    bool any_no_code = false;
    bool any_refused = false;
    for (const auto& [folder, origin] : folders) {
        const fs::path path = folder / file_name;
        std::error_code ec;
        if (!fs::exists(fs::symlink_status(path, ec))) {
            attempts.push_back(path.string() + " (" + origin + "): not found");
            continue;
        }
        std::string reason;
        bool no_code = false;
        if (auto module = try_file(path, name, kind, architecture, reason, no_code)) return module;
        any_no_code = any_no_code || no_code;
        any_refused = any_refused || !no_code;
        attempts.push_back(path.string() + " (" + origin + "): " + reason);
    }
    std::string cause = "no usable module '" + name + "' for the " + kind + " backend; looked for " + file_name + ":";
    for (const auto& attempt : attempts) cause += "\n  " + attempt;
    if (any_refused) throw fail(ErrorCode::plugin_error, cause);
    if (any_no_code) throw fail(ErrorCode::not_supported, cause);
    throw fail(ErrorCode::backend_unavailable, cause);
}

} // namespace gpucore::detail

// SPDX-License-Identifier: Apache-2.0
// Kernel modules: Module, Kernel, and the checks of every launch before anything is enqueued.
#include "gpucore/module.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

#include "access.hpp"
#include "backend.hpp"
#include "memory_range_checks.hpp"
#include "module_files.hpp"

namespace gpucore {
namespace {

constexpr const char* kLaunch = "Kernel::launch";
// The largest block any vendor runs, and the CUDA/HIP grid limits.
constexpr std::uint64_t kMaxBlockThreads = 1024;
constexpr std::uint32_t kMaxBlockZ = 64;
constexpr std::uint32_t kMaxGridX = 0x7FFFFFFFu;
constexpr std::uint32_t kMaxGridYZ = 65535;
// HIP also runs fewer than 2^32 work-items (grid x block) along each dimension: AMD's dispatch
// packet holds them in 32 bits, and past that some ROCm releases refuse the launch while others
// run a truncated grid.
constexpr std::uint64_t kMaxHipWorkItems = 0xFFFFFFFFu;
// Dynamic shared memory per block on CPU-executed devices: the most a GPU allows (H100/H200).
constexpr std::size_t kCpuMaxSharedBytes = 227 * 1024;
// Bytes each argument occupies in a launch's argument block.
constexpr std::size_t kArgumentSlot = 16;

const char* param_type_name(gpucore_param_type type) {
    switch (type) {
    case GPUCORE_PARAM_F32: return "f32";
    case GPUCORE_PARAM_F64: return "f64";
    case GPUCORE_PARAM_I32: return "i32";
    case GPUCORE_PARAM_U32: return "u32";
    case GPUCORE_PARAM_F16: return "f16";
    case GPUCORE_PARAM_BF16: return "bf16";
    case GPUCORE_PARAM_I64: return "i64";
    case GPUCORE_PARAM_U64: return "u64";
    case GPUCORE_PARAM_I8: return "i8";
    case GPUCORE_PARAM_U8: return "u8";
    case GPUCORE_PARAM_I16: return "i16";
    case GPUCORE_PARAM_U16: return "u16";
    default: return "raw";
    }
}

std::string describe_param(const gpucore_kernel_param& p) {
    const std::string type = param_type_name(p.type);
    switch (p.kind) {
    case GPUCORE_PARAM_BUFFER: return "a buffer of " + type + " that the kernel writes";
    case GPUCORE_PARAM_CONST_BUFFER: return "a read-only buffer of " + type;
    default: return p.type == GPUCORE_PARAM_RAW ? "a value of " + std::to_string(p.size) + " bytes" : "a scalar " + type;
    }
}

bool is_integer(gpucore_param_type t) {
    return t == GPUCORE_PARAM_I32 || t == GPUCORE_PARAM_U32 || t == GPUCORE_PARAM_I64 || t == GPUCORE_PARAM_U64 ||
           t == GPUCORE_PARAM_I8 || t == GPUCORE_PARAM_U8 || t == GPUCORE_PARAM_I16 || t == GPUCORE_PARAM_U16;
}
bool is_signed_integer(gpucore_param_type t) {
    return t == GPUCORE_PARAM_I32 || t == GPUCORE_PARAM_I64 || t == GPUCORE_PARAM_I8 || t == GPUCORE_PARAM_I16;
}

// The floating type a scalar argument of `size` bytes is (float, double, half or bfloat16).
bool same_float(const detail::KernelArgument& a, gpucore_param_type t) {
    const std::string name = a.type_name;
    return (t == GPUCORE_PARAM_F32 && name == "float") || (t == GPUCORE_PARAM_F64 && name == "double") ||
           (t == GPUCORE_PARAM_F16 && name == "half") || (t == GPUCORE_PARAM_BF16 && name == "bfloat16");
}

// The integer argument's value converted to the parameter's integer type, when it holds it.
bool convert_integer(const detail::KernelArgument& a, const gpucore_kernel_param& p, unsigned char* out) {
    const bool from_signed = a.scalar == detail::KernelArgument::Scalar::signed_integer;
    // The value as a sign flag and a magnitude that fits 64 bits.
    bool negative = false;
    std::uint64_t magnitude = 0;
    if (from_signed) {
        std::int64_t v = 0;
        switch (a.size) {
        case 1: { std::int8_t x; std::memcpy(&x, a.bytes, 1); v = x; break; }
        case 2: { std::int16_t x; std::memcpy(&x, a.bytes, 2); v = x; break; }
        case 4: { std::int32_t x; std::memcpy(&x, a.bytes, 4); v = x; break; }
        case 8: { std::memcpy(&v, a.bytes, 8); break; }
        default: return false;
        }
        negative = v < 0;
        magnitude = negative ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    } else {
        switch (a.size) {
        case 1: { std::uint8_t x; std::memcpy(&x, a.bytes, 1); magnitude = x; break; }
        case 2: { std::uint16_t x; std::memcpy(&x, a.bytes, 2); magnitude = x; break; }
        case 4: { std::uint32_t x; std::memcpy(&x, a.bytes, 4); magnitude = x; break; }
        case 8: { std::memcpy(&magnitude, a.bytes, 8); break; }
        default: return false;
        }
    }
    const unsigned bits = p.size * 8;
    const bool to_signed = is_signed_integer(p.type);
    if (to_signed) {
        const std::uint64_t max_positive = (std::uint64_t{1} << (bits - 1)) - 1;
        if (negative ? magnitude > max_positive + 1 : magnitude > max_positive) return false;
    } else {
        if (negative && magnitude != 0) return false;
        if (bits < 64 && magnitude > ((std::uint64_t{1} << bits) - 1)) return false;
    }
    const std::uint64_t value = negative ? 0 - magnitude : magnitude; // two's complement
    std::memcpy(out, &value, p.size); // little-endian: the low bytes
    return true;
}

// What a cpu module's launch carries from the enqueue to the host task.
struct HostLaunch {
    std::shared_ptr<const detail::LoadedModule> module;
    std::uint32_t kernel = 0;
    gpucore_launch_config config{};
    int device = 0;
    std::vector<unsigned char> storage;
    std::vector<void*> pointers;
};

gpucore_status run_host_launch(void* user, const gpucore_host_parallel* parallel, gpucore_message* msg) {
    auto* launch = static_cast<HostLaunch*>(user);
    const gpucore_launch_target target{launch->device, nullptr, parallel};
    gpucore_status status = GPUCORE_ERROR_PLUGIN;
    try {
        status = launch->module->api->launch(launch->kernel, &launch->config, &target, launch->pointers.data(), msg);
    } catch (...) {
        std::snprintf(msg->text, sizeof msg->text, "the module's launch threw an exception");
        return GPUCORE_ERROR_PLUGIN;
    }
    if (status != GPUCORE_OK) {
        // Name the kernel and module in the failure the stream reports.
        const std::string cause(msg->text, strnlen(msg->text, sizeof msg->text));
        std::snprintf(msg->text, sizeof msg->text, "kernel '%s' of module '%s': %s",
                      launch->module->kernels[launch->kernel].name.c_str(), launch->module->name.c_str(), cause.c_str());
    }
    return status;
}

void release_host_launch(void* user) { delete static_cast<HostLaunch*>(user); }

} // namespace

// ---- Module ---------------------------------------------------------------------------------------

Module Module::load(const Device& device, const std::string& name) {
    return Module(detail::load_module(device, name), device);
}

Kernel Module::kernel(const std::string& kernel_name) const {
    for (std::size_t k = 0; k < module_->kernels.size(); ++k) {
        if (module_->kernels[k].name == kernel_name) return Kernel(module_, static_cast<std::uint32_t>(k), device_);
    }
    std::string list;
    for (const auto& k : module_->kernels) list += (list.empty() ? "" : ", ") + k.name;
    throw Error(ErrorCode::invalid_argument, "Module::kernel", device_.properties().backend, device_.index(),
                "module '" + module_->name + "' (" + module_->file.string() + ") has no kernel '" + kernel_name +
                    "'; its kernels: " + (list.empty() ? "none" : list));
}

std::vector<std::string> Module::kernel_names() const {
    std::vector<std::string> names;
    for (const auto& k : module_->kernels) names.push_back(k.name);
    return names;
}
const std::string& Module::name() const noexcept { return module_->name; }
const std::string& Module::kind() const noexcept { return module_->kind; }
const std::filesystem::path& Module::file() const noexcept { return module_->file; }
const std::vector<std::string>& Module::targets() const noexcept { return module_->targets; }

// ---- Kernel ---------------------------------------------------------------------------------------

const std::string& Kernel::name() const noexcept { return module_->kernels[index_].name; }
const std::string& Kernel::module_name() const noexcept { return module_->name; }
std::size_t Kernel::parameter_count() const noexcept { return module_->kernels[index_].params.size(); }

std::vector<KernelParameter> Kernel::parameters() const {
    std::vector<KernelParameter> out;
    for (const gpucore_kernel_param& p : module_->kernels[index_].params) {
        KernelParameter parameter;
        parameter.kind = p.kind == GPUCORE_PARAM_BUFFER         ? KernelParameter::Kind::buffer
                         : p.kind == GPUCORE_PARAM_CONST_BUFFER ? KernelParameter::Kind::const_buffer
                                                                : KernelParameter::Kind::scalar;
        parameter.type = param_type_name(p.type);
        parameter.size = p.size;
        out.push_back(std::move(parameter));
    }
    return out;
}

void Kernel::launch_checked(Stream& stream, const LaunchConfig& config, const gpucore::KernelArgument* args,
                            std::size_t count) const {
    using detail::Access;
    using detail::KernelArgument;
    detail::require_valid(stream, kLaunch);
    const Device& device = Access::device(stream);
    detail::Backend* backend = Access::backend(device);
    const int index = Access::index(device);
    const detail::KernelInfo& info = module_->kernels[index_];
    const auto fail = [&](const std::string& cause) {
        throw Error(ErrorCode::invalid_argument, kLaunch, backend->name(), index,
                    "kernel '" + info.name + "' of module '" + module_->name + "': " + cause);
    };
    if (device != device_) {
        fail("the stream is on " + device.to_string() + " but the module was loaded for " + device_.to_string() +
             " (load it for each device)");
    }
    if (count != info.params.size()) {
        fail("takes " + std::to_string(info.params.size()) + " argument(s), " + std::to_string(count) + " given");
    }

    // Shape.
    const Dim3& g = config.grid;
    const Dim3& b = config.block;
    if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0) {
        fail("the grid and the block need at least 1 in each dimension (grid " + std::to_string(g.x) + "x" +
             std::to_string(g.y) + "x" + std::to_string(g.z) + ", block " + std::to_string(b.x) + "x" +
             std::to_string(b.y) + "x" + std::to_string(b.z) + ")");
    }
    const std::uint64_t threads = std::uint64_t{b.x} * b.y * b.z;
    if (threads > kMaxBlockThreads || b.z > kMaxBlockZ) {
        fail("a block of " + std::to_string(b.x) + "x" + std::to_string(b.y) + "x" + std::to_string(b.z) +
             " threads is larger than devices run (at most " + std::to_string(kMaxBlockThreads) +
             " threads, z at most " + std::to_string(kMaxBlockZ) + ")");
    }
    if (g.x > kMaxGridX || g.y > kMaxGridYZ || g.z > kMaxGridYZ) {
        fail("a grid of " + std::to_string(g.x) + "x" + std::to_string(g.y) + "x" + std::to_string(g.z) +
             " blocks is larger than devices run (x below 2^31, y and z at most 65535)");
    }
    if (module_->kind == "hip") {
        const std::uint64_t most = std::max({std::uint64_t{g.x} * b.x, std::uint64_t{g.y} * b.y, std::uint64_t{g.z} * b.z});
        if (most > kMaxHipWorkItems) {
            fail("a grid of " + std::to_string(g.x) + "x" + std::to_string(g.y) + "x" + std::to_string(g.z) +
                 " blocks of " + std::to_string(b.x) + "x" + std::to_string(b.y) + "x" + std::to_string(b.z) +
                 " threads has " + std::to_string(most) +
                 " work-items along one dimension; HIP runs fewer than 2^32 (give each thread several elements)");
        }
    }
    if (config.shared_bytes > std::numeric_limits<std::uint32_t>::max() ||
        (module_->kind == "cpu" && config.shared_bytes > kCpuMaxSharedBytes)) {
        fail(std::to_string(config.shared_bytes) + " bytes of dynamic shared memory are more than a block may use (" +
             std::to_string(kCpuMaxSharedBytes) + " on this device)");
    }

    // Arguments, into one block of slots the plugin reads during the launch (cuda, hip) or the
    // host task reads when it runs (cpu).
    // Most launches have few arguments: their slots live on the stack; a cpu launch copies them.
    constexpr std::size_t kInlineArguments = 16;
    alignas(16) unsigned char inline_storage[kInlineArguments * kArgumentSlot];
    void* inline_pointers[kInlineArguments];
    std::vector<unsigned char> heap_storage;
    std::vector<void*> heap_pointers;
    unsigned char* storage = inline_storage;
    void** pointers = inline_pointers;
    if (count > kInlineArguments) {
        heap_storage.assign(count * kArgumentSlot, 0);
        heap_pointers.resize(count);
        storage = heap_storage.data();
        pointers = heap_pointers.data();
    }
    for (std::size_t i = 0; i < count; ++i) {
        const KernelArgument& a = args[i].value_;
        const gpucore_kernel_param& p = info.params[i];
        const auto argument = [&] { return "argument " + std::to_string(i + 1) + " (" + describe_param(p) + ")"; };
        unsigned char* slot = storage + i * kArgumentSlot;
        std::memset(slot, 0, kArgumentSlot);
        const bool wants_buffer = p.kind == GPUCORE_PARAM_BUFFER || p.kind == GPUCORE_PARAM_CONST_BUFFER;
        if (wants_buffer != (a.kind == KernelArgument::Kind::buffer)) {
            fail(argument() + " is given " + (wants_buffer ? std::string("a scalar") : std::string("a buffer")));
        }
        if (wants_buffer) {
            if (static_cast<int>(a.element) != static_cast<int>(p.type)) {
                fail(argument() + " is given a buffer of " + to_string(a.element));
            }
            if (p.kind == GPUCORE_PARAM_BUFFER && !a.writable) {
                fail(argument() + " is given a read-only BufferView<const T> or const Buffer");
            }
            if (!a.range.valid() && !a.range.released()) fail(argument() + " is a null Buffer or view");
            detail::require_usable(a.range, argument, kLaunch);
            if (a.range.device() != device) {
                fail(argument() + " is on " + a.range.device().to_string() + " but the stream is on " + device.to_string());
            }
            detail::require_plugin_takes(a.range, kLaunch);
            void* pointer = a.range.data();
            std::memcpy(slot, &pointer, sizeof pointer);
        } else if (p.type == GPUCORE_PARAM_RAW) {
            if (a.size != p.size) {
                fail(argument() + " is given " + std::to_string(a.size) + " bytes");
            }
            if (p.size > kArgumentSlot) fail(argument() + " is larger than the " + std::to_string(kArgumentSlot) + " bytes a launch passes");
            std::memcpy(slot, a.bytes, a.size);
        } else if (is_integer(p.type)) {
            const bool integer = a.scalar == KernelArgument::Scalar::signed_integer ||
                                 a.scalar == KernelArgument::Scalar::unsigned_integer;
            if (!integer) fail(argument() + " is given " + std::string(a.type_name) + " (pass an integer)");
            if (!convert_integer(a, p, slot)) fail(argument() + " is given an integer outside its range");
        } else {
            if (!same_float(a, p.type)) {
                fail(argument() + " is given " + std::string(a.type_name) + " (pass exactly " + param_type_name(p.type) +
                     ": floating values are never converted implicitly)");
            }
            std::memcpy(slot, a.bytes, a.size);
        }
        pointers[i] = slot;
    }
    gpucore_launch_config shape{};
    shape.grid[0] = g.x;
    shape.grid[1] = g.y;
    shape.grid[2] = g.z;
    shape.block[0] = b.x;
    shape.block[1] = b.y;
    shape.block[2] = b.z;
    shape.shared_bytes = static_cast<std::uint32_t>(config.shared_bytes);

    const detail::EnqueueNote note(stream);
    if (module_->kind == "cpu") {
        const auto slot = backend->optional_slot(&gpucore_plugin_api::enqueue_host_task, kLaunch, index);
        auto launch = std::make_unique<HostLaunch>();
        launch->module = module_;
        launch->kernel = index_;
        launch->config = shape;
        launch->device = index;
        launch->storage.assign(storage, storage + count * kArgumentSlot);
        launch->pointers.resize(count);
        for (std::size_t i = 0; i < count; ++i) launch->pointers[i] = launch->storage.data() + i * kArgumentSlot;
        HostLaunch* owned = launch.release(); // released by release_host_launch, whatever happens
        backend->call(kLaunch, index, slot, Access::handle(stream), &run_host_launch, static_cast<void*>(owned),
                      &release_host_launch);
        return;
    }
    void* native = nullptr;
    const auto native_slot = backend->optional_slot(&gpucore_plugin_api::stream_native_handle, kLaunch, index);
    backend->call(kLaunch, index, native_slot, Access::handle(stream), &native);
    const gpucore_launch_target target{index, native, nullptr};
    gpucore_message message;
    message.text[0] = '\0';
    gpucore_status status = GPUCORE_ERROR_PLUGIN;
    try {
        status = module_->api->launch(index_, &shape, &target, pointers, &message);
    } catch (...) {
        std::snprintf(message.text, sizeof message.text, "the module's launch threw an exception");
    }
    if (status != GPUCORE_OK) {
        const std::string cause(message.text, strnlen(message.text, sizeof message.text));
        std::snprintf(message.text, sizeof message.text, "kernel '%s' of module '%s': %s", info.name.c_str(),
                      module_->name.c_str(), cause.c_str());
        throw detail::error_from_status(status, message, kLaunch, backend->name(), index);
    }
}

} // namespace gpucore

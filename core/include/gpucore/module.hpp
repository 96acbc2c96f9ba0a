// SPDX-License-Identifier: Apache-2.0
// Your own kernels on any backend: kernel modules.
//
// A module is built ahead of time from kernels written once in gpucore's kernel dialect
// (gpucore/kernel.hpp) by the CMake function gpucore_add_kernel_module(NAME SOURCES...), which
// makes one file per kind of backend the build machine can compile for: NAME.gpucore-cuda.so
// (nvcc), NAME.gpucore-hip.so (hipcc), NAME.gpucore-cpu.so (always). At run time
// Module::load(device, "NAME") picks the file made for the device's backend, so one application
// binary runs the same kernels on NVIDIA, AMD or the CPU with only GPU_BACKEND changed:
//
//   gpucore::Device device = gpucore::default_device();
//   gpucore::Module module = gpucore::Module::load(device, "saxpy");
//   gpucore::Kernel saxpy = module.kernel("saxpy");
//   saxpy.launch(stream, {gpucore::Dim3(blocks), gpucore::Dim3(256)}, 2.0f, x, y, n);
//
// Where modules are looked for, in order: the folder of the running program, each folder in
// GPUCORE_MODULE_PATH (colon-separated), and the installed folder (<libdir>/gpucore/modules).
// Never the current directory. A module file is code: it is loaded under the same rules as
// plugins (docs/errors.md): the trust rule on the file and its folders, its ELF structure, entry
// symbol and ABI major, and its manifest (kind and device targets) are all checked before it is
// loaded, so a file that does not fit the device never runs any code. A file is loaded once per
// process and stays loaded.
//
// Errors (gpucore::Error, operation "Module::load", "Module::kernel" or "Kernel::launch"):
//  - backend_unavailable: no module file of that name for the device's backend (the message
//    lists every file looked for and why each was not taken);
//  - not_supported: the module has no code for the device (the message lists its targets), or
//    the backend runs no modules;
//  - plugin_error: a module file that is not a valid module (corrupt, truncated, untrusted,
//    another ABI major, a broken table);
//  - invalid_argument: a kernel name the module lacks (the message lists its kernels), and every
//    launch misuse, named by argument: count, kind (buffer or scalar), element type, size, a
//    read-only view where the kernel writes, a buffer of another device, a released view, a
//    block or grid shape the device does not run, shared memory over the limit.
// A failure while the kernel runs surfaces at the next synchronizing call on the stream, like any
// queued work, and blocking calls see module launches like built-in operations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "gpucore/buffer.hpp"
#include "gpucore/buffer_view.hpp"
#include "gpucore/device.hpp"
#include "gpucore/export.hpp"
#include "gpucore/stream.hpp"
#include "gpucore/types.hpp"

namespace gpucore {

// A grid or block shape; unset dimensions are 1.
struct Dim3 {
    std::uint32_t x = 1, y = 1, z = 1;
    constexpr Dim3(std::uint32_t vx = 1, std::uint32_t vy = 1, std::uint32_t vz = 1) noexcept : x(vx), y(vy), z(vz) {}
};

// The shape of one launch: grid (blocks), block (threads per block) and dynamic shared memory
// per block in bytes.
struct LaunchConfig {
    Dim3 grid;
    Dim3 block;
    std::size_t shared_bytes = 0;
};

namespace detail {
struct LoadedModule;

// One launch argument as the core checks it.
struct KernelArgument {
    enum class Kind { buffer, scalar };
    Kind kind = Kind::scalar;
    // buffer
    MemoryRange range;
    DType element = DType::f32;
    bool writable = false;
    // scalar: its bytes and what they hold
    enum class Scalar { floating, signed_integer, unsigned_integer, other };
    Scalar scalar = Scalar::other;
    std::uint32_t size = 0;
    alignas(16) unsigned char bytes[16] = {};
    const char* type_name = "";
};

template <class T>
constexpr const char* scalar_type_name() {
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, double>) return "double";
    else if constexpr (std::is_same_v<T, half>) return "half";
    else if constexpr (std::is_same_v<T, bfloat16>) return "bfloat16";
    else if constexpr (std::is_integral_v<T>) return std::is_signed_v<T> ? "a signed integer" : "an unsigned integer";
    else return "a value";
}

// `Named` is the argument's type as the caller named it (a const Buffer is read-only).
template <class Named, class A>
KernelArgument kernel_argument(const A& argument) {
    KernelArgument out;
    if constexpr (is_operand_v<A>) {
        out.kind = KernelArgument::Kind::buffer;
        out.range = operand_range(argument);
        out.element = dtype_of<operand_element_t<A>>();
        out.writable = is_writable_operand_v<Named>;
        out.size = static_cast<std::uint32_t>(sizeof(void*));
    } else {
        static_assert(!std::is_pointer_v<A>,
                      "pass buffers to a kernel as gpucore::Buffer<T> or BufferView<T>, not as raw pointers "
                      "(the launch checks their device, size and lifetime)");
        static_assert(std::is_trivially_copyable_v<A> && sizeof(A) <= sizeof(out.bytes),
                      "kernel scalars are trivially copyable values of at most 16 bytes");
        out.kind = KernelArgument::Kind::scalar;
        out.size = static_cast<std::uint32_t>(sizeof(A));
        std::memcpy(out.bytes, &argument, sizeof(A));
        out.type_name = scalar_type_name<A>();
        if constexpr (std::is_same_v<A, bool>) out.scalar = KernelArgument::Scalar::other;
        else if constexpr (std::is_floating_point_v<A>) out.scalar = KernelArgument::Scalar::floating;
        else if constexpr (std::is_integral_v<A>)
            out.scalar = std::is_signed_v<A> ? KernelArgument::Scalar::signed_integer : KernelArgument::Scalar::unsigned_integer;
        else if constexpr (std::is_same_v<A, half> || std::is_same_v<A, bfloat16>) out.scalar = KernelArgument::Scalar::floating;
    }
    return out;
}
} // namespace detail

// What one parameter of a kernel takes, as the module describes it.
struct KernelParameter {
    enum class Kind {
        buffer,       // a buffer the kernel writes (T*)
        const_buffer, // a buffer the kernel only reads (const T*)
        scalar,       // a value
    };
    Kind kind = Kind::scalar;
    // The buffer's element type or the scalar's type: "f32", "f64", "f16", "bf16", "i8", "i16",
    // "i32", "i64", "u8", "u16", "u32", "u64", or "raw" for a value described only by its size.
    std::string type;
    // Bytes the argument occupies when passed: a pointer's size for buffers, the value's size for scalars.
    std::size_t size = 0;
};

// One launch argument whose type is known only at run time, for callers that build a launch's
// arguments as data (language bindings, launchers driven by a description). Kernel::launch with a
// list of these makes the same checks, with the same errors, as the typed launch.
class KernelArgument {
public:
    KernelArgument() noexcept { value_.type_name = "no value"; } // refused by every parameter

    // A buffer: Buffer<T> or BufferView<T>. A const Buffer or a BufferView<const T> is read-only
    // (refused where the kernel writes).
    template <class B, std::enable_if_t<detail::is_operand_v<B>, int> = 0>
    static KernelArgument buffer(B&& operand) {
        return KernelArgument(detail::kernel_argument<B&&>(operand));
    }
    // A buffer of any element type: `range` holds elements of `element`; `writable` false makes
    // it read-only.
    static KernelArgument buffer(const detail::MemoryRange& range, DType element, bool writable) {
        detail::KernelArgument a;
        a.kind = detail::KernelArgument::Kind::buffer;
        a.range = range;
        a.element = element;
        a.writable = writable;
        a.size = static_cast<std::uint32_t>(sizeof(void*));
        return KernelArgument(a);
    }
    // A scalar of an arithmetic type, half or bfloat16. An integer is taken by any integer
    // parameter whose type holds its value; a floating value only by a parameter of its own type.
    template <class T>
    static KernelArgument scalar(T value) {
        static_assert(std::is_arithmetic_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>,
                      "KernelArgument::scalar takes an arithmetic value, half or bfloat16");
        return KernelArgument(detail::kernel_argument<T>(value));
    }

private:
    friend class Kernel;
    explicit KernelArgument(const detail::KernelArgument& value) noexcept : value_(value) {}
    detail::KernelArgument value_;
};

class Module;

namespace detail {
// True for a launch's argument list given as one std::vector<KernelArgument>.
template <class... Args>
struct is_argument_list : std::false_type {};
template <class A>
struct is_argument_list<A> : std::is_same<std::remove_cv_t<std::remove_reference_t<A>>, std::vector<gpucore::KernelArgument>> {};
} // namespace detail

// One kernel of a loaded module. Cheap to copy; valid as long as the process runs.
class GPUCORE_API Kernel {
public:
    const std::string& name() const noexcept;
    const std::string& module_name() const noexcept;
    const Device& device() const noexcept { return device_; }
    std::size_t parameter_count() const noexcept;
    // Each parameter in order, as the module describes it.
    std::vector<KernelParameter> parameters() const;

    // Enqueues the kernel on `stream` with `config`, after checking every argument against the
    // kernel's parameters and the shape against the device (nothing is enqueued when a check
    // fails). Arguments: Buffer<T> or BufferView<T> for pointer parameters (T matching the element
    // type; a writable buffer where the kernel writes), and scalars for value parameters: the same
    // type, or any integer whose value the parameter's integer type holds.
    template <class... Args, std::enable_if_t<!detail::is_argument_list<Args...>::value, int> = 0>
    void launch(Stream& stream, const LaunchConfig& config, Args&&... args) const {
        const KernelArgument list[] = {KernelArgument(detail::kernel_argument<Args&&>(args))..., KernelArgument{}};
        launch_checked(stream, config, list, sizeof...(Args));
    }
    // The same launch with arguments built at run time (KernelArgument::buffer and ::scalar): the
    // same checks and errors.
    void launch(Stream& stream, const LaunchConfig& config, const std::vector<KernelArgument>& args) const {
        launch_checked(stream, config, args.data(), args.size());
    }

private:
    friend class Module;
    Kernel(std::shared_ptr<const detail::LoadedModule> module, std::uint32_t index, Device device)
        : module_(std::move(module)), index_(index), device_(std::move(device)) {}
    void launch_checked(Stream& stream, const LaunchConfig& config, const KernelArgument* args,
                        std::size_t count) const;

    std::shared_ptr<const detail::LoadedModule> module_;
    std::uint32_t index_ = 0;
    Device device_;
};

// A kernel module loaded for one device.
class GPUCORE_API Module {
public:
    // Finds, checks and loads the module `name` built for `device`'s backend (see above).
    static Module load(const Device& device, const std::string& name);

    // The kernel `kernel_name`; Error(invalid_argument) listing the module's kernels when absent.
    Kernel kernel(const std::string& kernel_name) const;
    std::vector<std::string> kernel_names() const;
    const std::string& name() const noexcept;
    const std::string& kind() const noexcept;         // "cuda", "hip" or "cpu"
    const std::filesystem::path& file() const noexcept; // the loaded file (symlinks resolved)
    const std::vector<std::string>& targets() const noexcept; // device code it holds: "sm_90", ...
    const Device& device() const noexcept { return device_; }

private:
    Module(std::shared_ptr<const detail::LoadedModule> module, Device device)
        : module_(std::move(module)), device_(std::move(device)) {}
    std::shared_ptr<const detail::LoadedModule> module_;
    Device device_;
};

} // namespace gpucore

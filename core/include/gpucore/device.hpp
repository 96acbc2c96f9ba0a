// SPDX-License-Identifier: Apache-2.0
// Devices, backends and plugin discovery: the runtime's view of what this machine offers.
//
// Thread safety: every function here may be called from any thread at any time. The runtime is
// initialised once, on first use, under a lock (plugin discovery runs exactly once per process).
// Device is an immutable value; copies may be used concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpucore/export.hpp"

namespace gpucore {

namespace detail {
class Backend;
struct Access;
} // namespace detail

struct DeviceProperties {
    std::string backend;            // "cpu", "cuda", "hip", or a plugin's name
    int index = -1;                 // index within its backend
    std::string name;               // "NVIDIA H100 80GB HBM3", "AMD EPYC 7B13 (2 threads)"
    std::string vendor;             // "NVIDIA", "AMD", "GenuineIntel", ...
    std::string architecture;       // "sm_90", "gfx90a", "x86_64"
    std::uint64_t total_memory_bytes = 0;
    unsigned compute_units = 0;     // SMs, CUs, or CPU hardware threads used
    unsigned warp_size = 0;         // warp/wavefront width; 1 on the CPU backend
    std::uint64_t l2_cache_bytes = 0;       // 0 when unknown
    double peak_memory_bandwidth_gbps = 0;  // theoretical, 1e9 B/s; 0 when unknown
    bool supports_pinned_host = false;
    bool supports_managed = false;
};

// A device of some backend. Cheap to copy. A default-constructed Device is null: every use of it
// other than valid()/to_string() throws Error(invalid_argument).
class GPUCORE_API Device {
public:
    Device() = default;

    bool valid() const noexcept { return backend_ != nullptr; }
    const std::string& backend_name() const;      // "cuda": which vendor API a native handle belongs to
    // The device's index within its backend: for cuda and hip the vendor runtime's device ordinal
    // (what cudaSetDevice / hipSetDevice take, as CUDA_VISIBLE_DEVICES numbers them); 0 on cpu.
    int index() const;
    const DeviceProperties& properties() const;   // read once at discovery
    std::string to_string() const;                // "cuda:0" ("<null device>" when null)

    friend bool operator==(const Device& a, const Device& b) noexcept {
        return a.backend_ == b.backend_ && a.index_ == b.index_;
    }
    friend bool operator!=(const Device& a, const Device& b) noexcept { return !(a == b); }

private:
    friend struct detail::Access;
    Device(detail::Backend* backend, int index) noexcept : backend_(backend), index_(index) {}
    detail::Backend* backend_ = nullptr; // owned by the runtime, lives until process end
    int index_ = -1;
};

struct MemoryInfo {
    std::uint64_t free_bytes = 0;
    std::uint64_t total_bytes = 0;
};

// Free and total memory of `device` as its runtime reports them now (the cpu backend: available
// and total physical memory). Error(not_supported) for a backend whose plugin lacks the slot
// (plugins built against ABI 1.0); Error(invalid_argument) for a null device.
GPUCORE_API MemoryInfo memory_info(const Device& device);

// Every device of every usable backend, in selection order: cuda, hip, other plugins, cpu.
GPUCORE_API std::vector<Device> devices();

// The device GPU_BACKEND selects (see select_device); "auto" when the variable is unset or empty.
// Throws Error(backend_unavailable / invalid_argument) with the reason when the selection fails.
GPUCORE_API Device default_device();

// Parses and applies a selection: "auto", "cpu", "cuda", "hip", any plugin name, each optionally
// followed by ":N" for the N-th device of that backend ("cuda:1"). "auto" takes device 0 of the
// first backend, in the order above, that reports a device, never a test-only backend (a name
// starting with "test-", e.g. test-wave64: selected by name only). A backend named explicitly that did
// not load, or has no devices, is an error that says why (file tried, loader message, missing
// dependency, ABI mismatch); an unknown name lists the available ones. Never falls back silently.
GPUCORE_API Device select_device(const std::string& selection);

struct BackendInfo {
    std::string name;       // "cuda"
    std::string source;     // "built-in" or the plugin file's path
    std::string version;    // what the backend reported
    bool usable = false;    // initialised and reports at least one device
    int device_count = 0;
    std::string reason;     // why it is not usable, or why it has 0 devices (empty when usable)
};

// Every backend the runtime knows, usable or not (the built-in cpu backend is always listed).
GPUCORE_API std::vector<BackendInfo> backends();

struct PluginCandidate {
    enum class Outcome { loaded, skipped };
    std::string path;      // file considered (as found; symlinks are reported in reason)
    Outcome outcome = Outcome::skipped;
    std::string backend;   // backend name: the table's when it was read, else guessed from a
                           // "libgpucore-<name>.so" file name (so GPU_BACKEND=<name> can report
                           // this file's reason), else empty
    std::string reason;    // why skipped; for loaded files, notes such as "0 devices: ..."
};

// Every file the discovery considered, in the order considered, with its outcome.
GPUCORE_API std::vector<PluginCandidate> plugin_candidates();

GPUCORE_API const char* to_string(PluginCandidate::Outcome outcome) noexcept; // "loaded" / "skipped"

} // namespace gpucore

// SPDX-License-Identifier: Apache-2.0
#include "backend.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "logging.hpp"
#include "plugin_boundary.hpp"
#include "process_fork.hpp"

namespace gpucore::detail {

namespace {

ErrorCode code_of(gpucore_status status, bool& known) {
    known = true;
    switch (status) {
    case GPUCORE_ERROR_INVALID_ARGUMENT: return ErrorCode::invalid_argument;
    case GPUCORE_ERROR_OUT_OF_MEMORY: return ErrorCode::out_of_memory;
    case GPUCORE_ERROR_BACKEND_UNAVAILABLE: return ErrorCode::backend_unavailable;
    case GPUCORE_ERROR_PLUGIN: return ErrorCode::plugin_error;
    case GPUCORE_ERROR_DEVICE: return ErrorCode::device_error;
    case GPUCORE_ERROR_NOT_SUPPORTED: return ErrorCode::not_supported;
    default: known = false; return ErrorCode::plugin_error;
    }
}

// The plugin's text, bounded even when the plugin forgot the terminating NUL.
std::string message_text(const gpucore_message& message) {
    const char* end = static_cast<const char*>(std::memchr(message.text, '\0', sizeof message.text));
    return std::string(message.text, end ? end : message.text + sizeof message.text);
}

// Copies a fixed-size C string field that may lack its NUL.
std::string bounded(const char* text, std::size_t capacity) {
    const char* end = static_cast<const char*>(std::memchr(text, '\0', capacity));
    return std::string(text, end ? end : text + capacity);
}

} // namespace

Error error_from_status(gpucore_status status, const gpucore_message& message,
                        const std::string& operation, const std::string& backend, int device) {
    bool known = false;
    const ErrorCode code = code_of(status, known);
    std::string cause = message_text(message);
    if (cause.empty()) cause = "the backend reported failure without a message";
    if (!known) cause += " (unknown status " + std::to_string(static_cast<int>(status)) + ")";
    return Error(code, operation, backend, device, std::move(cause));
}

Backend::Backend(const gpucore_plugin_api* table, std::string source)
    : table_(&full_table_), name_(table->name), source_(std::move(source)),
      version_(table->version ? std::string(table->version, strnlen(table->version, max_version_length)) : "") {
    // A table of an older minor is shorter: copy what the plugin has, leave the rest NULL, so no
    // read ever goes beyond the plugin's struct.
    plugin_struct_size_ = std::min<std::size_t>(table->struct_size, sizeof full_table_);
    std::memcpy(&full_table_, table, plugin_struct_size_);
    track_backend_for_fork(this);
}

void Backend::plugin_threw(const char* operation, gpucore_message& message) const noexcept {
    try {
        const std::string what = describe_current_exception();
        std::snprintf(message.text, sizeof message.text, "%s: the plugin %s %s across its C boundary", operation,
                      source_.c_str(), what.c_str());
        std::lock_guard<std::mutex> lock(broken_mutex_);
        if (broken_.load(std::memory_order_relaxed)) return;
        broken_reason_ = "unusable since " + std::string(operation) + " of " + source_ + " " + what +
                         " (a plugin must report failure by its status)";
        broken_.store(true, std::memory_order_release);
        logger().warn("backend {}: {}", name_, broken_reason_);
    } catch (...) {
        // Out of memory while describing it: the backend is unusable all the same.
        std::snprintf(message.text, sizeof message.text, "%s: the plugin threw a C++ exception", operation);
        broken_.store(true, std::memory_order_release);
    }
}

Error Backend::unusable_error(const char* operation, int device) const {
    return Error(ErrorCode::plugin_error, operation, name_, device,
                 "backend " + name_ + " (" + source_ + ") is " + broken_reason_);
}

void Backend::throw_missing_slot(const char* operation, int device, bool beyond_table) const {
    const std::string why =
        beyond_table ? "its plugin was built against ABI " + std::to_string(full_table_.abi_major) + "." +
                           std::to_string(full_table_.abi_minor) + ", whose table has no " + operation + " slot"
                     : std::string("its plugin leaves the ") + operation + " slot empty (NULL)";
    throw Error(ErrorCode::not_supported, operation, name_, device,
                std::string("the backend does not implement ") + operation + ": " + why);
}

void Backend::initialise() {
    const gpucore_host_services host = host_services(name_.c_str());
    gpucore_message message;
    message.text[0] = '\0';
    gpucore_status status = invoke("init", message, table_->init, &host);
    if (status != GPUCORE_OK) {
        reason_ = "init failed: " + error_from_status(status, message, "init", name_, -1).cause();
        logger().info("backend {} ({}): {}", name_, source_, reason_);
        return;
    }
    initialised_ = true;

    int count = 0;
    message.text[0] = '\0';
    status = invoke("device_count", message, table_->device_count, &count);
    if (status != GPUCORE_OK) {
        reason_ = "device_count failed: " +
                  error_from_status(status, message, "device_count", name_, -1).cause();
        initialised_ = false;
        logger().info("backend {} ({}): {}", name_, source_, reason_);
        return;
    }
    if (count < 0 || count > max_devices_per_backend) {
        reason_ = "device_count returned " + std::to_string(count) + " devices, outside 0.." +
                  std::to_string(max_devices_per_backend) + " (the most gpucore accepts from one backend)";
        initialised_ = false;
        logger().info("backend {} ({}): {}", name_, source_, reason_);
        return;
    }
    if (count == 0) {
        const std::string why = message_text(message);
        reason_ = "0 devices" + (why.empty() ? std::string() : ": " + why);
        logger().info("backend {} ({}): {}", name_, source_, reason_);
        return;
    }

    for (int device = 0; device < count; ++device) {
        gpucore_device_properties raw{};
        raw.struct_size = sizeof raw;
        message.text[0] = '\0';
        status = invoke("device_properties", message, table_->device_properties, device, &raw);
        if (status != GPUCORE_OK) {
            // A device whose properties cannot be read is not offered: later indices would shift,
            // so stop here and keep the devices before it.
            reason_ = "device_properties(" + std::to_string(device) + ") failed: " +
                      error_from_status(status, message, "device_properties", name_, device).cause();
            logger().warn("backend {} ({}): {}", name_, source_, reason_);
            break;
        }
        DeviceProperties props;
        props.backend = name_;
        props.index = device;
        props.name = bounded(raw.name, sizeof raw.name);
        props.vendor = bounded(raw.vendor, sizeof raw.vendor);
        props.architecture = bounded(raw.architecture, sizeof raw.architecture);
        props.total_memory_bytes = raw.total_memory_bytes;
        props.compute_units = raw.compute_units;
        props.warp_size = raw.warp_size;
        props.l2_cache_bytes = raw.l2_cache_bytes;
        props.peak_memory_bandwidth_gbps = raw.peak_memory_bandwidth_gbps;
        props.supports_pinned_host = raw.supports_pinned_host != 0;
        props.supports_managed = raw.supports_managed != 0;
        properties_.push_back(std::move(props));
    }
    if (!properties_.empty() && properties_.size() == static_cast<std::size_t>(count)) reason_.clear();
    streams_.set_device_count(properties_.size());
    logger().debug("backend {} ({}): {} device(s)", name_, source_, properties_.size());
}

} // namespace gpucore::detail

// SPDX-License-Identifier: Apache-2.0
// MemoryRange (a whole allocation or a part of one) and the checks of ranges shared by copies and
// operations.
#include <cstdint>
#include <string>

#include "access.hpp"
#include "memory_range_checks.hpp"
#include "process_fork.hpp"

namespace gpucore::detail {

namespace {

[[noreturn]] void fail_bounds(const Device& device, const char* operation, std::size_t offset,
                              std::size_t bytes, std::size_t available) {
    const Backend* backend = Access::backend(device);
    const bool overflows = bytes > static_cast<std::size_t>(-1) - offset;
    throw Error(ErrorCode::invalid_argument, operation, backend ? backend->name() : "",
                backend ? Access::index(device) : -1,
                "the view of " + std::to_string(bytes) + " bytes at byte offset " + std::to_string(offset) +
                    (overflows ? " overflows size_t" : " is past the end") + " (it must lie inside " +
                    std::to_string(available) + " bytes)");
}

} // namespace

MemoryRange::MemoryRange(const Allocation& whole) noexcept
    : device_(whole.device()), kind_(whole.kind()), generation_(whole.generation()),
      base_(whole.data()), bytes_(whole.bytes()), allocation_bytes_(whole.bytes()),
      owned_(whole.owns_memory()), lifetime_(whole.lifetime()) {}

MemoryRange::MemoryRange(const Allocation& allocation, std::size_t offset_bytes, std::size_t bytes,
                         const char* operation)
    : MemoryRange(allocation) {
    if (!allocation.valid()) {
        throw Error(ErrorCode::invalid_argument, operation, "", -1,
                    "the buffer is a null (default-constructed or moved-from) Buffer");
    }
    if (offset_bytes > allocation_bytes_ || bytes > allocation_bytes_ - offset_bytes) {
        fail_bounds(device_, operation, offset_bytes, bytes, allocation_bytes_);
    }
    offset_ = offset_bytes;
    bytes_ = bytes;
    is_part_ = true;
}

MemoryRange MemoryRange::part(std::size_t offset_bytes, std::size_t bytes, const char* operation) const {
    if (!device_.valid()) {
        throw Error(ErrorCode::invalid_argument, operation, "", -1, "the view is a null view");
    }
    if (lifetime_.expired()) {
        throw Error(ErrorCode::invalid_argument, operation, Access::backend(device_)->name(),
                    Access::index(device_),
                    "the view's memory was released (its buffer was destroyed or assigned to; a view does not own memory)");
    }
    if (offset_bytes > bytes_ || bytes > bytes_ - offset_bytes) {
        fail_bounds(device_, operation, offset_bytes, bytes, bytes_);
    }
    MemoryRange result(*this);
    result.offset_ = offset_ + offset_bytes;
    result.bytes_ = bytes;
    result.is_part_ = true;
    return result;
}

bool is_usable(const MemoryRange& range) noexcept {
    return range.valid() && range.generation() == process_generation();
}

void throw_if_unusable(const MemoryRange& range, const std::string& which, const char* operation) {
    if (range.released()) {
        throw Error(ErrorCode::invalid_argument, operation, Access::backend(range.device())->name(),
                    Access::index(range.device()),
                    which + " is a view whose memory was released (its buffer was destroyed or assigned to; a view does not own memory)");
    }
    if (!range.valid()) {
        throw Error(ErrorCode::invalid_argument, operation, "", -1,
                    which + " is a null (default-constructed or moved-from) Buffer or a null view");
    }
    require_this_process(range.generation(), which.c_str(), operation);
}

void require_plugin_takes(const MemoryRange& range, const char* operation) {
    const Backend& backend = *Access::backend(range.device());
    if (backend.abi_minor() >= 2 || range.at_allocation_start()) return;
    throw Error(ErrorCode::not_supported, operation, backend.name(), Access::index(range.device()),
                "a view at an offset needs a plugin built against ABI 1.2 or later (this one: 1." +
                    std::to_string(backend.abi_minor()) +
                    "); older plugins may rely on the alignment of whole allocations");
}

bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) noexcept {
    if (a_bytes == 0 || b_bytes == 0) return false;
    const auto a0 = reinterpret_cast<std::uintptr_t>(a);
    const auto b0 = reinterpret_cast<std::uintptr_t>(b);
    return a0 < b0 ? b0 - a0 < a_bytes : a0 - b0 < b_bytes;
}

bool overlap(const MemoryRange& a, const MemoryRange& b) noexcept {
    return a.device() == b.device() && overlap(a.data(), a.bytes(), b.data(), b.bytes());
}

bool identical(const MemoryRange& a, const MemoryRange& b) noexcept {
    return a.device() == b.device() && a.data() == b.data() && a.bytes() == b.bytes();
}

} // namespace gpucore::detail

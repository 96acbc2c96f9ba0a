// SPDX-License-Identifier: Apache-2.0
// The checks every copy and operation makes of the memory ranges it receives (buffers, views and
// wrapped memory), in one place so that every call names the same causes.
#pragma once

#include <string>

#include "gpucore/buffer.hpp"

namespace gpucore::detail {

// True when `range` may be used here: neither null nor released, and made by this process.
bool is_usable(const MemoryRange& range) noexcept;

// Error(invalid_argument) naming `operation` when `range` is null (a default-constructed or
// moved-from buffer, a null view), was released (a view that outlived its buffer's memory), or
// was made by the parent process before fork(). `which` names the argument ("the source", "a").
void throw_if_unusable(const MemoryRange& range, const std::string& which, const char* operation);

// The same, with the argument's name from `name()`, called only for the error: building it on
// every call would cost each operation's host time.
template <class Name>
void require_usable(const MemoryRange& range, Name&& name, const char* operation) {
    if (!is_usable(range)) throw_if_unusable(range, name(), operation);
}

// Error(not_supported) naming `operation` when the device's plugin was built against an ABI
// older than 1.2 and `range` does not start where the plugin's allocate put it (a view at an
// offset): older plugins may rely on the 256-byte alignment of whole allocations.
void require_plugin_takes(const MemoryRange& range, const char* operation);

// True when the two byte ranges share at least one byte.
bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) noexcept;
bool overlap(const MemoryRange& a, const MemoryRange& b) noexcept;
// True when the two ranges are the same bytes.
bool identical(const MemoryRange& a, const MemoryRange& b) noexcept;

} // namespace gpucore::detail

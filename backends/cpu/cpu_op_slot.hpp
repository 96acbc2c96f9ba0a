// SPDX-License-Identifier: Apache-2.0
// What every slot of the CPU backend shares: the stream behind a handle and the checks of the enum
// values the core cannot make. Each operation's
// slot lives beside its kernel (cpu_elementwise.cpp, cpu_transpose.cpp, cpu_reduce.cpp), which
// also writes it into the table (fill_*_slots in cpu_kernels.hpp).
#pragma once

#include <cstring>
#include <string>

#include "cpu_kernels.hpp"
#include "cpu_status.hpp"
#include "cpu_stream.hpp"
#include "gpucore/plugin.h"

namespace gpucore::cpu {

// Handles are our own objects behind the contract's opaque pointer types.
inline Stream* to_stream(gpucore_stream handle) noexcept { return reinterpret_cast<Stream*>(handle); }

// The integer a caller passed for one of the contract's C enums. A C caller may pass any int; in
// C++, loading an enum object whose value lies outside its enumerators' range is undefined (and
// reported by UBSan), so the checks below read the bits instead of the enum.
template <class Enum>
int raw_enum_value(const Enum& value) noexcept {
    static_assert(sizeof(Enum) == sizeof(int), "the contract's enums are int-sized");
    int raw = 0;
    std::memcpy(&raw, &value, sizeof raw);
    return raw;
}

inline void require_dtype(const gpucore_dtype& dtype) {
    const int raw = raw_enum_value(dtype);
    if (!is_known_dtype(dtype)) {
        throw BackendError(GPUCORE_ERROR_NOT_SUPPORTED, "unknown dtype " + std::to_string(raw));
    }
}

inline void require_reduce_op(const gpucore_reduce_op& op) {
    const int raw = raw_enum_value(op);
    if (raw < GPUCORE_REDUCE_SUM || raw > GPUCORE_REDUCE_PROD || !is_known_reduce_op(op)) {
        throw BackendError(GPUCORE_ERROR_NOT_SUPPORTED, "unknown reduce op " + std::to_string(raw));
    }
}

} // namespace gpucore::cpu

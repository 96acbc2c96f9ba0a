// SPDX-License-Identifier: Apache-2.0
#include "gpucore/types.hpp"


namespace gpucore {

const char* to_string(DType dtype) noexcept {
    switch (dtype) {
#define GPUCORE_DTYPE_NAME_(ID, value, name, ctype, bytes, minor) \
    case DType::name: return #name;
        GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_NAME_)
#undef GPUCORE_DTYPE_NAME_
    }
    return "unknown_dtype";
}

const char* to_string(ReduceOp op) noexcept {
    switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    case ReduceOp::prod: return "prod";
    }
    return "unknown_op";
}

const char* to_string(MemoryKind kind) noexcept {
    switch (kind) {
    case MemoryKind::device: return "device";
    case MemoryKind::pinned_host: return "pinned_host";
    case MemoryKind::managed: return "managed";
    }
    return "unknown_memory_kind";
}

std::size_t size_of(DType dtype) noexcept {
    switch (dtype) {
#define GPUCORE_DTYPE_SIZE_(ID, value, name, ctype, bytes, minor) \
    case DType::name: return bytes;
        GPUCORE_DTYPE_LIST(GPUCORE_DTYPE_SIZE_)
#undef GPUCORE_DTYPE_SIZE_
    }
    return 0;
}

} // namespace gpucore

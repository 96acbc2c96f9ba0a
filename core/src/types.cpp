#include "gpucore/types.hpp"

#include <cstdint>

namespace gpucore {

const char* to_string(DType dtype) noexcept {
    switch (dtype) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::i32: return "i32";
    case DType::u32: return "u32";
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
    case DType::f32: return sizeof(float);
    case DType::f64: return sizeof(double);
    case DType::i32: return sizeof(std::int32_t);
    case DType::u32: return sizeof(std::uint32_t);
    }
    return 0;
}

} // namespace gpucore

// Calls a generic lambda with a tag for the C++ type of a run-time gpucore::DType, so one test body
// (a template) serves every dtype of a value-parameterized case.
#pragma once

#include <cstdint>

#include "gpucore/types.hpp"

namespace conformance {

template <class T>
struct TypeTag {
    using type = T;
};

template <class F>
void with_dtype(gpucore::DType dtype, F&& body) {
    switch (dtype) {
    case gpucore::DType::f32: body(TypeTag<float>{}); return;
    case gpucore::DType::f64: body(TypeTag<double>{}); return;
    case gpucore::DType::i32: body(TypeTag<std::int32_t>{}); return;
    case gpucore::DType::u32: body(TypeTag<std::uint32_t>{}); return;
    }
}

inline constexpr gpucore::DType kAllDtypes[] = {gpucore::DType::f32, gpucore::DType::f64,
                                                gpucore::DType::i32, gpucore::DType::u32};
inline constexpr gpucore::ReduceOp kAllReduceOps[] = {gpucore::ReduceOp::sum, gpucore::ReduceOp::min,
                                                      gpucore::ReduceOp::max, gpucore::ReduceOp::prod};

} // namespace conformance

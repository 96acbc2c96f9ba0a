// Calls a generic lambda with a tag for the C++ type of a run-time gpucore::DType, so one test body
// (a template) serves every dtype of a value-parameterized case.
#pragma once

#include "gpucore/types.hpp"

namespace conformance {

template <class T>
using TypeTag = gpucore::type_tag<T>;

// body(TypeTag<T>{}) for the element type T of dtype (gpucore::visit over the contract's list).
template <class F>
void with_dtype(gpucore::DType dtype, F&& body) {
    gpucore::visit(dtype, body);
}

// Every dtype of the contract's list.
inline constexpr auto& kAllDtypes = gpucore::all_dtypes;
inline constexpr gpucore::ReduceOp kAllReduceOps[] = {gpucore::ReduceOp::sum, gpucore::ReduceOp::min,
                                                      gpucore::ReduceOp::max, gpucore::ReduceOp::prod};

} // namespace conformance

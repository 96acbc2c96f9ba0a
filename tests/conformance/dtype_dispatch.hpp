// SPDX-License-Identifier: Apache-2.0
// Calls a generic lambda with a tag for the C++ type of a run-time gpucore::DType, so one test body
// (a template) serves every dtype of a value-parameterized case.
#pragma once

#include <vector>

#include <gtest/gtest.h>

#include "gpucore/types.hpp"

namespace conformance {

template <class T>
using TypeTag = gpucore::type_tag<T>;

// body(TypeTag<T>{}) for the element type T of dtype (gpucore::visit over the contract's list).
template <class F>
void with_dtype(gpucore::DType dtype, F&& body) {
    gpucore::visit(dtype, [&](auto tag) {
        if constexpr (sizeof(typename decltype(tag)::type) >= 4) {
            body(tag);
        } else {
            ADD_FAILURE() << "the generic suites run 4- and 8-byte dtypes; 16-bit floats: float16_test.cpp";
        }
    });
}

// The dtypes of the contract's list whose element is a 4- or 8-byte type: the generic suites run
// these. half and bfloat16 (2 bytes, accumulated in float) have their own suite with tolerances
// from their epsilon: float16_test.cpp, over kFloat16Dtypes.
inline std::vector<gpucore::DType> dtypes_where(bool (*keep)(gpucore::DType)) {
    std::vector<gpucore::DType> kept;
    for (gpucore::DType dtype : gpucore::all_dtypes)
        if (keep(dtype)) kept.push_back(dtype);
    return kept;
}
inline const std::vector<gpucore::DType> kAllDtypes =
    dtypes_where([](gpucore::DType d) { return gpucore::size_of(d) >= 4; });
inline const std::vector<gpucore::DType> kFloat16Dtypes =
    dtypes_where([](gpucore::DType d) { return gpucore::size_of(d) == 2; });
inline constexpr gpucore::ReduceOp kAllReduceOps[] = {gpucore::ReduceOp::sum, gpucore::ReduceOp::min,
                                                      gpucore::ReduceOp::max, gpucore::ReduceOp::prod};

} // namespace conformance

// SPDX-License-Identifier: Apache-2.0
// Calls a generic lambda with the C++ element type that a runtime DType names: gpucore::visit,
// which expands the contract's one dtype list.
#pragma once

#include <utility>

#include "gpucore/types.hpp"

namespace gpucore::cli {

template <class T>
using TypeTag = gpucore::type_tag<T>;

// f(TypeTag<float>{}) for DType::f32, and so on; f's return type must not depend on T.
template <class F>
decltype(auto) dispatch_dtype(DType dtype, F&& f) {
    return gpucore::visit(dtype, std::forward<F>(f));
}

} // namespace gpucore::cli

// Calls a generic lambda with the C++ element type that a runtime DType names.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "gpucore/types.hpp"

namespace gpucore::cli {

template <class T>
struct TypeTag {
    using type = T;
};

// f(TypeTag<float>{}) for DType::f32, and so on; f's return type must not depend on T.
template <class F>
decltype(auto) dispatch_dtype(DType dtype, F&& f) {
    switch (dtype) {
    case DType::f32: return f(TypeTag<float>{});
    case DType::f64: return f(TypeTag<double>{});
    case DType::i32: return f(TypeTag<std::int32_t>{});
    case DType::u32: return f(TypeTag<std::uint32_t>{});
    }
    throw std::logic_error("dispatch_dtype: unknown DType");
}

} // namespace gpucore::cli

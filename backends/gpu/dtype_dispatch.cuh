// SPDX-License-Identifier: Apache-2.0
// Run-time dtype / reduce-op values to compile-time kernel types. Integer sums and products run
// in uint32_t for both i32 and u32: wrap-around is defined, and the bits are the same. f16 and
// bf16 run as half_t / bfloat16_t (gpu_vendor.hpp), computed in float (element_math.cuh).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "gpu_error.hpp"
#include "gpucore/element_types.hpp"
#include "gpucore/plugin.h"
#include "kernels/element_math.cuh"
#include "kernels/reduce_ops.cuh"

namespace gpucore::gpu {

template <class T>
struct TypeTag {
    using type = T;
};

// The type kernels use for a host element type of the contract's list.
template <class T>
struct DeviceElement {
    using type = T;
};
template <>
struct DeviceElement<half> {
    using type = half_t;
};
template <>
struct DeviceElement<bfloat16> {
    using type = bfloat16_t;
};
template <class T>
using device_element_t = typename DeviceElement<T>::type;

// Calls f(TypeTag<T>{}) with T the kernels' element type of dtype (from the contract's list).
template <class F>
void dispatch_dtype(gpucore_dtype dtype, F&& f) {
    const bool known = visit_dtype(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        static_assert(sizeof(device_element_t<T>) == sizeof(T), "device and host elements agree");
        f(TypeTag<device_element_t<T>>{});
    });
    if (!known) throw GpuError(GPUCORE_ERROR_INVALID_ARGUMENT, "unknown dtype " + std::to_string(dtype));
}

// Calls f(TypeTag<T>{}, Op{}) with the computation type and functor for (dtype, op).
template <class F>
void dispatch_reduce(gpucore_dtype dtype, gpucore_reduce_op op, F&& f) {
    auto with_op = [&](auto type) {
        using T = typename decltype(type)::type;
        switch (op) {
        case GPUCORE_REDUCE_MIN: f(type, MinOp{}); return;
        case GPUCORE_REDUCE_MAX: f(type, MaxOp{}); return;
        case GPUCORE_REDUCE_SUM:
        case GPUCORE_REDUCE_PROD:
            // i32 sums and products never get here (they run as uint32_t): no i32 kernels.
            if constexpr (!std::is_same_v<T, std::int32_t>) {
                if (op == GPUCORE_REDUCE_SUM) f(type, SumOp{});
                else f(type, ProdOp{});
                return;
            }
            break;
        }
        throw GpuError(GPUCORE_ERROR_INVALID_ARGUMENT, "unknown reduce op " + std::to_string(op));
    };
    const bool wraps = op == GPUCORE_REDUCE_SUM || op == GPUCORE_REDUCE_PROD;
    if (dtype == GPUCORE_DTYPE_I32 && wraps) {
        with_op(TypeTag<std::uint32_t>{});
        return;
    }
    dispatch_dtype(dtype, with_op);
}

} // namespace gpucore::gpu

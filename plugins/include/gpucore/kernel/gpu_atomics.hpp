// SPDX-License-Identifier: Apache-2.0
// The atomics and fences of the kernel dialect on GPUs: CUDA and HIP spell them alike. Included
// by gpucore/kernel/cuda.hpp and gpucore/kernel/hip.hpp after their runtime headers; do not
// include it directly.
#pragma once

#include <type_traits>

namespace gpucore::kernel::vendor {

// CUDA's and HIP's atomics take int, unsigned, unsigned long long and long long; 64-bit integers of other
// spellings (std::int64_t is long on LP64) go through those of the same width.
template <class T>
__device__ __forceinline__ auto native(T* p) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) return p;
    else if constexpr (sizeof(T) == 4 && std::is_signed_v<T>) return reinterpret_cast<int*>(p);
    else if constexpr (sizeof(T) == 4) return reinterpret_cast<unsigned*>(p);
    else if constexpr (std::is_signed_v<T>) return reinterpret_cast<long long*>(p);
    else return reinterpret_cast<unsigned long long*>(p);
}
template <class T>
__device__ __forceinline__ T atomic_add(T* p, T v) {
    if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
        return static_cast<T>(atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)));
    } else {
        using N = std::remove_pointer_t<decltype(native(p))>;
        return static_cast<T>(atomicAdd(native(p), static_cast<N>(v)));
    }
}
// The minimum or maximum of a signed 64-bit word by compare-and-swap, where the runtime has no
// native one (kSigned64MinMax in the vendor header): returns the old value, as atomicMin does.
template <class T, class Better>
__device__ __forceinline__ T atomic_pick_by_cas(T* p, T v, Better better) {
    using U = unsigned long long;
    U* word = reinterpret_cast<U*>(p);
    U seen = *reinterpret_cast<volatile U*>(word);
    while (better(v, static_cast<T>(seen))) {
        const U prior = atomicCAS(word, seen, static_cast<U>(v));
        if (prior == seen) break;
        seen = prior;
    }
    return static_cast<T>(seen);
}
template <class T>
__device__ __forceinline__ T atomic_min(T* p, T v) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) == 8 && !kSigned64MinMax) {
        return atomic_pick_by_cas(p, v, [](T a, T b) { return a < b; });
    } else {
        using N = std::remove_pointer_t<decltype(native(p))>;
        return static_cast<T>(atomicMin(native(p), static_cast<N>(v)));
    }
}
template <class T>
__device__ __forceinline__ T atomic_max(T* p, T v) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) == 8 && !kSigned64MinMax) {
        return atomic_pick_by_cas(p, v, [](T a, T b) { return a > b; });
    } else {
        using N = std::remove_pointer_t<decltype(native(p))>;
        return static_cast<T>(atomicMax(native(p), static_cast<N>(v)));
    }
}
template <class T>
__device__ __forceinline__ T atomic_exchange(T* p, T v) {
    if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
        return static_cast<T>(atomicExch(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)));
    } else {
        using N = std::remove_pointer_t<decltype(native(p))>;
        return static_cast<T>(atomicExch(native(p), static_cast<N>(v)));
    }
}
template <class T>
__device__ __forceinline__ T atomic_cas(T* p, T expected, T desired) {
    if constexpr (sizeof(T) == 8) {
        using U = unsigned long long;
        return static_cast<T>(atomicCAS(reinterpret_cast<U*>(p), static_cast<U>(expected), static_cast<U>(desired)));
    } else {
        using N = std::remove_pointer_t<decltype(native(p))>;
        return static_cast<T>(atomicCAS(native(p), static_cast<N>(expected), static_cast<N>(desired)));
    }
}

__device__ __forceinline__ void fence_block() { __threadfence_block(); }
__device__ __forceinline__ void fence_device() { __threadfence(); }
__device__ __forceinline__ void fence_system() { __threadfence_system(); }

} // namespace gpucore::kernel::vendor

// SPDX-License-Identifier: Apache-2.0
// 16-byte vector access: a Pack is TuningPolicy::kPackBytes of consecutive elements, loaded and
// stored with one 128-bit instruction when its address is 16-byte aligned.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../gpu_vendor.hpp"
#include "../tuning_policy.hpp"

namespace gpucore::gpu {

template <class T>
struct alignas(TuningPolicy::kPackBytes) Pack {
    static constexpr int kCount = TuningPolicy::kPackBytes / static_cast<int>(sizeof(T));
    T v[kCount];
};

template <class T>
__device__ __forceinline__ Pack<T> load_pack(const T* aligned_base, std::size_t pack_index) {
    return reinterpret_cast<const Pack<T>*>(aligned_base)[pack_index];
}

// For inputs the kernel never writes (reductions, transpose): the read-only data path.
template <class T>
__device__ __forceinline__ Pack<T> load_pack_readonly(const T* aligned_base, std::size_t pack_index) {
    static_assert(sizeof(Pack<T>) == sizeof(uint4), "a pack is 16 bytes");
    const uint4 raw = load_readonly_16(reinterpret_cast<const Pack<T>*>(aligned_base) + pack_index);
    Pack<T> pack;
    memcpy(static_cast<void*>(&pack), &raw, sizeof pack); // void*: T may have member initializers
    return pack;
}

template <class T>
__device__ __forceinline__ void store_pack(T* aligned_base, std::size_t pack_index,
                                           const Pack<T>& pack) {
    reinterpret_cast<Pack<T>*>(aligned_base)[pack_index] = pack;
}

// Elements before `p` reaches a 16-byte boundary (0 when already aligned), at most `n`.
template <class T>
__host__ __device__ __forceinline__ std::size_t elements_to_alignment(const T* p, std::size_t n) {
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    const std::size_t misalign = addr % TuningPolicy::kPackBytes;
    std::size_t head = misalign == 0 ? 0 : (TuningPolicy::kPackBytes - misalign) / sizeof(T);
    return head < n ? head : n;
}

// Store of a pack no thread of this kernel reads again (evict-first where the vendor has it).
template <class T>
__device__ __forceinline__ void store_pack_streaming(T* aligned_base, std::size_t pack_index,
                                                     const Pack<T>& pack) {
    uint4 raw;
    memcpy(&raw, &pack, sizeof raw);
    store_streaming_16(reinterpret_cast<Pack<T>*>(aligned_base) + pack_index, raw);
}

} // namespace gpucore::gpu

// SPDX-License-Identifier: Apache-2.0
// The per-thread stage of every reduction: `workers` threads cooperatively reduce one contiguous
// range, each returning its own partial. Scalar head until 16-byte alignment, then 16-byte packs
// (kPacksInFlight independent loads per thread before they are combined), then a scalar tail.
// Consecutive workers read consecutive packs, so every load instruction is coalesced. Elements are
// widened to their accumulator type (element_math.cuh: float for the 16-bit floats, T otherwise)
// before they are combined; the partial is an accumulator.
#pragma once

#include <cstddef>

#include "element_math.cuh"
#include "packed_access.cuh"

namespace gpucore::gpu {

template <int kPacksInFlight, class T, class Op>
__device__ __forceinline__ accumulator_of_t<T> reduce_range_partial(const T* data, std::size_t n, std::size_t worker,
                                                  std::size_t workers, Op op) {
    constexpr int kLanes = Pack<T>::kCount;
    constexpr int kAccumulators = kPacksInFlight * kLanes; // a power of two
    const std::size_t head = elements_to_alignment(data, n);
    // One accumulator per loaded value: short independent chains (accuracy and ILP), folded as a
    // tree at the end.
    using Acc = accumulator_of_t<T>;
    Acc acc[kAccumulators];
#pragma unroll
    for (int a = 0; a < kAccumulators; ++a) acc[a] = Op::template identity<Acc>();

    if (worker < head) acc[0] = widen(data[worker]);

    const T* body = data + head;
    const std::size_t packs = (n - head) / kLanes;
    std::size_t p = worker;
    // Full rounds: every one of the kPacksInFlight loads is in range.
    const std::size_t round = workers * kPacksInFlight;
    if (packs >= round) {
        for (; p <= packs - round; p += round) {
            Pack<T> loaded[kPacksInFlight];
#pragma unroll
            for (int j = 0; j < kPacksInFlight; ++j) {
                loaded[j] = load_pack_readonly(body, p + j * workers);
            }
#pragma unroll
            for (int j = 0; j < kPacksInFlight; ++j) {
#pragma unroll
                for (int l = 0; l < kLanes; ++l) {
                    acc[j * kLanes + l] = op(acc[j * kLanes + l], widen(loaded[j].v[l]));
                }
            }
        }
    }
    for (; p < packs; p += workers) { // fewer than kPacksInFlight remain
        const Pack<T> loaded = load_pack_readonly(body, p);
#pragma unroll
        for (int l = 0; l < kLanes; ++l) acc[l] = op(acc[l], widen(loaded.v[l]));
    }

    const std::size_t tail_start = head + packs * kLanes;
    if (worker < n - tail_start) {
        acc[kAccumulators - 1] = op(acc[kAccumulators - 1], widen(data[tail_start + worker]));
    }

    // Fold the accumulators pairwise (a small tree, not a chain).
#pragma unroll
    for (int width = kAccumulators / 2; width > 0; width /= 2) {
#pragma unroll
        for (int a = 0; a < width; ++a) acc[a] = op(acc[a], acc[a + width]);
    }
    return acc[0];
}

} // namespace gpucore::gpu

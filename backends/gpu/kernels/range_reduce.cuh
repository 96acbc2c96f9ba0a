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

// Folds acc[0..kCount) pairwise into acc[0] (a small tree, not a chain). Each level is a loop of
// constant trip count, so every index is a compile-time constant and the array stays in registers:
// a fold whose inner bound changes from level to level was left partly rolled by nvcc for 16
// accumulators (the 16-bit types' 8 lanes x 2 packs), which put the whole array in local memory.
template <int kCount, class Acc, class Op>
__device__ __forceinline__ void fold_tree(Acc* acc, Op op) {
    if constexpr (kCount > 1) {
        constexpr int kHalf = kCount / 2;
#pragma unroll
        for (int a = 0; a < kHalf; ++a) acc[a] = op(acc[a], acc[a + kHalf]);
        fold_tree<kHalf>(acc, op);
    }
}

// kAccumulatorPacks (a power of two dividing kPacksInFlight) packs of accumulators: as many as the
// packs in flight gives one accumulator per loaded value (short independent chains: accuracy and
// ILP); fewer leave registers for more loads in flight (pack j folds into accumulator pack
// j % kAccumulatorPacks). They are folded as a tree at the end.
template <int kPacksInFlight, int kAccumulatorPacks = kPacksInFlight, class T, class Op>
__device__ __forceinline__ accumulator_of_t<T> reduce_range_partial(const T* data, std::size_t n, std::size_t worker,
                                                  std::size_t workers, Op op) {
    static_assert(kPacksInFlight % kAccumulatorPacks == 0, "accumulator packs divide the packs in flight");
    constexpr int kLanes = Pack<T>::kCount;
    constexpr int kAccumulators = kAccumulatorPacks * kLanes; // a power of two
    const std::size_t head = elements_to_alignment(data, n);
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
                    Acc& into = acc[(j % kAccumulatorPacks) * kLanes + l];
                    into = op(into, widen(loaded[j].v[l]));
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

    fold_tree<kAccumulators>(acc, op);
    return acc[0];
}

} // namespace gpucore::gpu

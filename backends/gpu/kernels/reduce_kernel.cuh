// SPDX-License-Identifier: Apache-2.0
// reduce: one launch for any n. Each block reduces its share of the input (grid-stride over 16-byte
// packs), block 0..G-1 publish partials, the last block to finish combines them and writes out[0].
// With one block there are no partials and no ticket at all. Partials and the block's combine are
// in the accumulator type (float for the 16-bit floats); out[0] is rounded to T once.
#pragma once

#include <cstddef>

#include "block_reduce.cuh"
#include "last_block.cuh"
#include "range_reduce.cuh"

namespace gpucore::gpu {

// Launch bounds with a minimum of kMinBlocksPerSm blocks per SM: a register budget chosen per
// element size (TuningPolicy::Reduce) so that every one of the kPacksInFlight loads stays in flight
// and enough blocks stay resident. Without a minimum the compiler may trade registers for loads
// issued one after another, and loses bandwidth. The launcher sizes the grid to the
// resulting occupancy (resident_blocks_of).
template <class T, class Op, int kThreads, int kPacksInFlight, int kMinBlocksPerSm>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm)
    reduce_single_pass_kernel(const T* in, std::size_t n, T* out, accumulator_of_t<T>* partials,
                              unsigned int* ticket) {
    using Acc = accumulator_of_t<T>;
    __shared__ BlockReduceStorage<Acc, kThreads> storage;
    __shared__ bool is_last;
    const Op op;
    const std::size_t workers = static_cast<std::size_t>(gridDim.x) * kThreads;
    const std::size_t worker = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;

    Acc value = reduce_range_partial<kPacksInFlight>(in, n, worker, workers, op);
    value = block_reduce<kThreads>(value, op, storage);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) out[0] = narrow<T>(value);
        return;
    }
    if (!publish_partial(value, partials + blockIdx.x, ticket, gridDim.x, &is_last)) return;

    value = combine_partials<kThreads>(partials, gridDim.x, op);
    sync_block(); // storage is reused
    value = block_reduce<kThreads>(value, op, storage);
    if (threadIdx.x == 0) {
        out[0] = narrow<T>(value);
        *ticket = 0; // ready for the next launch on this stream
    }
}

// Small inputs, one block: the per-thread stage of reduce_range_partial with 32-bit positions and
// every round's kPacksInFlight loads issued at once (the last round's predicated). One block is
// bound by latency, and the general stage's 64-bit position arithmetic adds to every thread's
// instructions. The launcher uses it for at most kThreads * kPacksInFlight packs (one round).
template <class T, class Op, int kThreads, int kPacksInFlight>
__global__ void __launch_bounds__(kThreads)
    reduce_one_block_kernel(const T* in, unsigned int n, T* out) {
    using Acc = accumulator_of_t<T>;
    constexpr int kLanes = Pack<T>::kCount;
    constexpr int kAccumulators = kPacksInFlight * kLanes;
    __shared__ BlockReduceStorage<Acc, kThreads> storage;
    const Op op;
    Acc acc[kAccumulators];
#pragma unroll
    for (int a = 0; a < kAccumulators; ++a) acc[a] = Op::template identity<Acc>();
    const unsigned int t = threadIdx.x;
    const auto head = static_cast<unsigned int>(elements_to_alignment(in, n));
    if (t < head) acc[0] = widen(in[t]);
    const T* body = in + head;
    const unsigned int packs = (n - head) / kLanes;
    for (unsigned int base = t; base < packs; base += kThreads * kPacksInFlight) {
        Pack<T> loaded[kPacksInFlight] = {};
        bool valid[kPacksInFlight];
#pragma unroll
        for (int j = 0; j < kPacksInFlight; ++j) {
            const unsigned int p = base + static_cast<unsigned int>(j) * kThreads;
            valid[j] = p < packs;
            if (valid[j]) loaded[j] = load_pack_readonly(body, p);
        }
#pragma unroll
        for (int j = 0; j < kPacksInFlight; ++j) {
            if (!valid[j]) continue;
#pragma unroll
            for (int l = 0; l < kLanes; ++l) acc[j * kLanes + l] = op(acc[j * kLanes + l], widen(loaded[j].v[l]));
        }
    }
    const unsigned int tail = head + packs * kLanes;
    if (t < n - tail) acc[kAccumulators - 1] = op(acc[kAccumulators - 1], widen(in[tail + t]));
    fold_tree<kAccumulators>(acc, op);
    const Acc total = block_reduce<kThreads>(acc[0], op, storage);
    if (t == 0) out[0] = narrow<T>(total);
}

} // namespace gpucore::gpu

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

} // namespace gpucore::gpu

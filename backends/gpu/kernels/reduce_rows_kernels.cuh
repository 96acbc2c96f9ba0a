// SPDX-License-Identifier: Apache-2.0
// reduce_rows: out[r] = op over row r of a rows x cols row-major matrix. Three kernels; the host
// (reduce_rows_plan.hpp) picks one by the shape:
//   sub-warp   short rows: a logical sub-warp of Width lanes per row, each lane reading kPerLane
//              elements strided by Width (Width * kPerLane >= cols), several rows per hardware
//              warp (cooperative-groups tiled-partition style);
//   warp-row   medium rows: one warp per row;
//   block-row  long rows: one block per row, or `split` blocks per row that combine their
//              partials with a per-row ticket (the last block of the row writes it) so that few
//              long rows still fill the GPU in one launch;
//   lean       long rows, many of them: one small block per row with deep loads;
//   tile       long rows of whole 16-byte packs from a 16-byte boundary: one block per row, few
//              registers, 32-bit positions within the row.
// Every kernel combines in the element's accumulator type (float for the 16-bit floats:
// element_math.cuh) and rounds each row's result to T once.
#pragma once

#include <cstddef>

#include "block_reduce.cuh"
#include "last_block.cuh"
#include "range_reduce.cuh"
#include "warp_reduce.cuh"

namespace gpucore::gpu {

// Sub-warp rows. Each logical group of Width lanes owns rows group, group + G, ... (G groups in
// the grid); lane l of a group reads columns l, l + Width, ..., l + (kPerLane - 1) * Width of its
// row, so each load instruction of a group covers Width consecutive elements (with Width elements
// spanning a 32-byte sector, every sector fetched is used whole) and a row costs log2(Width)
// shuffles, not log2(cols). A group loads kRowsInFlight rows before reducing them. Loop bounds are
// warp-uniform, so every lane of a warp takes part in every shuffle.
template <class T, class Op, int Width, int kPerLane, int kThreads, int kRowsInFlight>
__global__ void __launch_bounds__(kThreads)
    reduce_rows_subwarp_kernel(const T* in, std::size_t rows, std::size_t cols, T* out) {
    const Op op;
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
    const std::size_t groups = static_cast<std::size_t>(gridDim.x) * (kThreads / Width);
    const std::size_t group = thread / Width;
    const std::size_t lane = thread % Width;
    // The first group of this lane's hardware warp: the warp iterates while it has work.
    const std::size_t warp_first_group =
        (thread - static_cast<std::size_t>(threadIdx.x % kWarpSize)) / Width;

    using Acc = accumulator_of_t<T>;
    for (std::size_t base = 0; warp_first_group + base < rows; base += groups * kRowsInFlight) {
        Acc values[kRowsInFlight];
#pragma unroll
        for (int u = 0; u < kRowsInFlight; ++u) {
            const std::size_t row = base + group + u * groups;
            const T* row_start = in + row * cols;
            // The first column alone: a row of one element is that element, bit for bit.
            values[u] = (row < rows && lane < cols) ? widen(row_start[lane]) : Op::template identity<Acc>();
#pragma unroll
            for (int k = 1; k < kPerLane; ++k) {
                const std::size_t col = lane + static_cast<std::size_t>(k) * Width;
                if (row < rows && col < cols) values[u] = op(values[u], widen(row_start[col]));
            }
        }
#pragma unroll
        for (int u = 0; u < kRowsInFlight; ++u) {
            const Acc total = warp_reduce<Width>(values[u], op);
            const std::size_t row = base + group + u * groups;
            if (lane == 0 && row < rows) out[row] = narrow<T>(total);
        }
    }
}

// One warp per row; warps stride over the rows.
template <class T, class Op, int kThreads, int kPacksInFlight>
__global__ void __launch_bounds__(kThreads)
    reduce_rows_warp_kernel(const T* in, std::size_t rows, std::size_t cols, T* out) {
    const Op op;
    constexpr int kWarpsPerBlock = kThreads / kWarpSize;
    const std::size_t warps = static_cast<std::size_t>(gridDim.x) * kWarpsPerBlock;
    const std::size_t lane = threadIdx.x % kWarpSize;
    for (std::size_t row = static_cast<std::size_t>(blockIdx.x) * kWarpsPerBlock +
                           threadIdx.x / kWarpSize;
         row < rows; row += warps) {
        accumulator_of_t<T> value = reduce_range_partial<kPacksInFlight>(
            in + row * cols, cols, lane, static_cast<std::size_t>(kWarpSize), op);
        value = warp_reduce<kWarpSize>(value, op);
        if (lane == 0) out[row] = narrow<T>(value);
    }
}

// `split` blocks per row (split >= 1). Work item w = row * split + part; blocks stride over the
// rows * split items. With split > 1 the parts of a row publish partials in
// partials[w] and take tickets in tickets[row].
// kMinBlocksPerSm: 1 for the split launch, as reduce_single_pass_kernel (registers for every load
// in flight; the split plan sizes its grid to the resulting occupancy: rows_split_wave_blocks).
template <class T, class Op, int kThreads, int kPacksInFlight, int kMinBlocksPerSm>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm)
    reduce_rows_block_kernel(const T* in, std::size_t rows, std::size_t cols, std::size_t split,
                             T* out, accumulator_of_t<T>* partials, unsigned int* tickets) {
    using Acc = accumulator_of_t<T>;
    __shared__ BlockReduceStorage<Acc, kThreads> storage;
    __shared__ bool is_last;
    const Op op;
    const std::size_t items = rows * split;
    for (std::size_t item = blockIdx.x; item < items; item += gridDim.x) {
        const std::size_t row = item / split;
        const std::size_t part = item % split;
        Acc value = reduce_range_partial<kPacksInFlight>(
            in + row * cols, cols, part * kThreads + threadIdx.x, split * kThreads, op);
        value = block_reduce<kThreads>(value, op, storage);
        if (split == 1) {
            if (threadIdx.x == 0) out[row] = narrow<T>(value);
        } else if (publish_partial(value, partials + item, tickets + row,
                                   static_cast<unsigned int>(split), &is_last)) {
            value = combine_partials<kThreads>(partials + row * split, split, op);
            sync_block();
            value = block_reduce<kThreads>(value, op, storage);
            if (threadIdx.x == 0) {
                out[row] = narrow<T>(value);
                tickets[row] = 0;
            }
        }
        sync_block(); // storage and is_last are reused by the next item
    }
}

// The lean blocks: one block of kThreads per row (blocks stride over the rows), each thread keeping
// kPacksInFlight packs in flight into one pack of accumulators, with a launch bound of
// kMinBlocksPerSm blocks per SM: many small resident blocks with deep loads. The thread count is
// the worker count, a compile-time constant, so each thread's positions advance by constants (a
// run-time worker count, as in the split kernel, costs 64-bit arithmetic per load).
template <class T, class Op, int kThreads, int kPacksInFlight, int kMinBlocksPerSm>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm)
    reduce_rows_lean_kernel(const T* in, std::size_t rows, std::size_t cols, T* out) {
    using Acc = accumulator_of_t<T>;
    __shared__ BlockReduceStorage<Acc, kThreads> storage;
    const Op op;
    for (std::size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        Acc value = reduce_range_partial<kPacksInFlight, 1>(in + row * cols, cols, threadIdx.x,
                                                            static_cast<std::size_t>(kThreads), op);
        value = block_reduce<kThreads>(value, op, storage);
        if (threadIdx.x == 0) out[row] = narrow<T>(value);
        sync_block(); // storage is reused by the next row
    }
}

// One pack's lanes, widened and folded as a tree into one accumulator.
template <class T, class Op>
__device__ __forceinline__ accumulator_of_t<T> fold_pack(const Pack<T>& pack, Op op) {
    constexpr int kLanes = Pack<T>::kCount;
    accumulator_of_t<T> lanes[kLanes];
#pragma unroll
    for (int l = 0; l < kLanes; ++l) lanes[l] = widen(pack.v[l]);
    fold_tree<kLanes>(lanes, op);
    return lanes[0];
}

// The tile blocks: one block of kThreads per row (blocks stride over the rows), for rows of whole
// 16-byte packs that start on 16-byte boundaries, of fewer than 2^31 packs. A tile is kThreads x
// kPacks packs: each thread loads its kPacks packs of a tile, then folds them into one
// accumulator. Positions within a row are 32-bit and there is no head or tail to align, so a
// thread needs few registers and an SM holds the most threads; where that is the faster choice is
// TuningPolicy::ReduceRows's to say. The row's last, partial tile: with kTailInFlight, each thread
// issues all its loads of it at once, each guarded (rows of a tile or less keep as many loads in
// flight as whole tiles do, for 1.5 to 2 times the registers at kPacks 8); without, a pack at a
// time.
template <class T, class Op, int kThreads, int kPacks, bool kTailInFlight>
__global__ void __launch_bounds__(kThreads)
    reduce_rows_tile_kernel(const T* in, std::size_t rows, std::size_t cols, T* out) {
    using Acc = accumulator_of_t<T>;
    constexpr int kLanes = Pack<T>::kCount;
    constexpr unsigned int kTilePacks = static_cast<unsigned int>(kThreads) * kPacks;
    __shared__ BlockReduceStorage<Acc, kThreads> storage;
    const Op op;
    const auto packs = static_cast<unsigned int>(cols / kLanes);
    for (std::size_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* data = in + row * cols;
        Acc value = Op::template identity<Acc>();
        unsigned int p = threadIdx.x;
        for (; p + (kTilePacks - kThreads) < packs; p += kTilePacks) {
            Pack<T> loaded[kPacks];
#pragma unroll
            for (int j = 0; j < kPacks; ++j) loaded[j] = load_pack_readonly(data, p + j * kThreads);
#pragma unroll
            for (int j = 0; j < kPacks; ++j) value = op(value, fold_pack(loaded[j], op));
        }
        if constexpr (kTailInFlight) {
            if (p < packs) {
                Pack<T> loaded[kPacks];
#pragma unroll
                for (int j = 0; j < kPacks; ++j) {
                    if (p + j * kThreads < packs) loaded[j] = load_pack_readonly(data, p + j * kThreads);
                }
#pragma unroll
                for (int j = 0; j < kPacks; ++j) {
                    if (p + j * kThreads < packs) value = op(value, fold_pack(loaded[j], op));
                }
            }
        } else {
            for (; p < packs; p += kThreads) value = op(value, fold_pack(load_pack_readonly(data, p), op));
        }
        value = block_reduce<kThreads>(value, op, storage);
        if (threadIdx.x == 0) out[row] = narrow<T>(value);
        sync_block(); // storage is reused by the next row
    }
}

} // namespace gpucore::gpu

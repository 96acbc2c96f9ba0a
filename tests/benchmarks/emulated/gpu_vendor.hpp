// SPDX-License-Identifier: Apache-2.0
// A host emulation of the few device features the ladder's kernels use, so the test suite runs
// those kernels on machines without a GPU (tests/benchmarks/ladder_kernels_test.cpp). It stands in
// for backends/gpu/gpu_vendor.hpp: blocks run one after another, each thread of a block on its own
// std::thread; __syncthreads is a barrier of the block, a shuffle a barrier of its lane group;
// __shared__ variables are function statics (one block at a time shares them). Not a model of
// timing or of memory ordering between blocks: only of indexing and of the lane exchanges.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

namespace emulated {

class Barrier {
public:
    explicit Barrier(unsigned count) : count_(count) {}
    void wait() {
        std::unique_lock<std::mutex> lock(mutex_);
        const unsigned long generation = generation_;
        if (++arrived_ == count_) {
            arrived_ = 0;
            ++generation_;
            released_.notify_all();
            return;
        }
        released_.wait(lock, [&] { return generation_ != generation; });
    }

private:
    std::mutex mutex_;
    std::condition_variable released_;
    unsigned count_, arrived_ = 0;
    unsigned long generation_ = 0;
};

constexpr int kMaxLog2Width = 6; // lane groups of 1 to 64
struct Block {
    std::unique_ptr<Barrier> all;
    std::vector<std::unique_ptr<Barrier>> groups[kMaxLog2Width + 1]; // [log2 width][group]
    std::vector<double> lanes;                                       // one slot per thread
};
inline Block block;
inline std::mutex atomics;

inline unsigned thread_in_block() { return threadIdx.y * blockDim.x + threadIdx.x; }

// Every lane of the group of `width` publishes `value`, then reads lane `source(lane in group)`.
template <class T, class Source>
T exchange(T value, int width, Source source) {
    int log2_width = 0;
    while ((1 << log2_width) < width) ++log2_width;
    const unsigned t = thread_in_block(), w = static_cast<unsigned>(width);
    Barrier& group = *block.groups[log2_width][t / w];
    block.lanes[t] = static_cast<double>(value);
    group.wait();
    const T got = static_cast<T>(block.lanes[t / w * w + source(t % w)]);
    group.wait();
    return got;
}

// Runs body() as the kernel, block after block, with one std::thread per thread of a block.
inline void launch(dim3 grid, dim3 threads, const std::function<void()>& body) {
    gridDim = grid;
    blockDim = threads;
    const unsigned count = threads.x * threads.y;
    block.all = std::make_unique<Barrier>(count);
    for (int lg = 0; lg <= kMaxLog2Width; ++lg) {
        block.groups[lg].clear();
        for (unsigned g = 0; g < (count >> lg); ++g) block.groups[lg].push_back(std::make_unique<Barrier>(1u << lg));
    }
    block.lanes.assign(count, 0.0);
    for (unsigned by = 0; by < grid.y; ++by) {
        for (unsigned bx = 0; bx < grid.x; ++bx) {
            std::vector<std::thread> team;
            for (unsigned ty = 0; ty < threads.y; ++ty) {
                for (unsigned tx = 0; tx < threads.x; ++tx) {
                    team.emplace_back([=, &body] {
                        blockIdx = dim3(bx, by);
                        threadIdx = dim3(tx, ty);
                        body();
                    });
                }
            }
            for (std::thread& t : team) t.join();
        }
    }
}

} // namespace emulated

inline void __syncthreads() { emulated::block.all->wait(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline unsigned atomicAdd(unsigned* p, unsigned v) {
    std::lock_guard<std::mutex> lock(emulated::atomics);
    const unsigned old = *p;
    *p += v;
    return old;
}

namespace gpucore::gpu {
#ifndef GPUCORE_EMULATED_WARP_SIZE
#define GPUCORE_EMULATED_WARP_SIZE 32
#endif
inline constexpr int kWarpSize = GPUCORE_EMULATED_WARP_SIZE;

template <class T>
T shfl_xor(T value, int lane_mask, int width) {
    return emulated::exchange(value, width, [=](unsigned lane) { return lane ^ static_cast<unsigned>(lane_mask); });
}
template <class T>
T load_coherent(const T* p) {
    return *p;
}
} // namespace gpucore::gpu

// SPDX-License-Identifier: Apache-2.0
// Launchers of vector_add and fill.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "dtype_dispatch.cuh"
#include "grid_limits.hpp"
#include "kernels/elementwise_kernels.cuh"
#include "launch.hpp"
#include "op_slot.hpp"
#include "tuning_policy.hpp"

namespace gpucore::gpu {
namespace {

// Blocks of `block_threads` threads for `units` of work at `work_per_block_units` each, capped at
// `blocks_per_sm_cap` per SM (0: no cap) and at the launch limit (grid_limits.hpp).
unsigned int grid_for(int block_threads, std::size_t work_per_block_units, std::size_t units, const DeviceShape& device,
                      int blocks_per_sm_cap) {
    std::size_t blocks = units / work_per_block_units + (units % work_per_block_units != 0);
    if (blocks_per_sm_cap > 0) {
        blocks = std::min(blocks, static_cast<std::size_t>(device.sm_count) * blocks_per_sm_cap);
    }
    return capped_grid(blocks, static_cast<std::size_t>(block_threads));
}

template <class Word>
void fill_words(void* dst, const void* value, std::size_t count, const LaunchContext& ctx) {
    using Policy = TuningPolicy::Fill;
    Word word;
    std::memcpy(&word, value, sizeof(Word));
    const unsigned int grid = grid_for(Policy::kThreads, static_cast<std::size_t>(Policy::kThreads) * Pack<Word>::kCount,
                                       count, ctx.device, Policy::kBlocksPerSmCap);
    launch_kernel(fill_kernel<Word, Policy::kThreads>, grid, Policy::kThreads, 0, ctx.stream,
                  static_cast<Word*>(dst), word, count);
    GPUCORE_GPU_CHECK(last_launch_error());
}

} // namespace

void launch_vector_add(gpucore_dtype dtype, const void* a, const void* b, void* c, std::size_t n,
                       const LaunchContext& ctx) {
    if (n == 0) return;
    using Policy = TuningPolicy::VectorAdd;
    dispatch_dtype(dtype, [&](auto type) {
        using T = typename decltype(type)::type;
        const auto offset = [](const void* p) {
            return reinterpret_cast<std::uintptr_t>(p) % TuningPolicy::kPackBytes;
        };
        // Packs need the three arrays equally placed relative to 16-byte boundaries (always so
        // for whole allocations; views at element offsets may differ) and on element boundaries
        // (the kernel counts its scalar head in elements); otherwise every access is a scalar.
        const bool packed = offset(a) == offset(b) && offset(a) == offset(c) &&
                            offset(a) % sizeof(T) == 0;
        const std::size_t per_block =
            static_cast<std::size_t>(Policy::kThreads) * Policy::kPacksPerThread *
            (packed ? Pack<T>::kCount : 1);
        const unsigned int grid = grid_for(Policy::kThreads, per_block, n, ctx.device, Policy::kBlocksPerSmCap);
        const T* ta = static_cast<const T*>(a);
        const T* tb = static_cast<const T*>(b);
        T* tc = static_cast<T*>(c);
        if (packed) {
            launch_kernel(vector_add_kernel<T, Policy::kThreads, Policy::kPacksPerThread, true>,
                          grid, Policy::kThreads, 0, ctx.stream, ta, tb, tc, n);
        } else {
            launch_kernel(vector_add_kernel<T, Policy::kThreads, Policy::kPacksPerThread, false>,
                          grid, Policy::kThreads, 0, ctx.stream, ta, tb, tc, n);
        }
        GPUCORE_GPU_CHECK(last_launch_error());
    });
}

void launch_fill(void* dst, const void* value, std::size_t element_size, std::size_t count,
                 const LaunchContext& ctx) {
    if (count == 0) return;
    switch (element_size) {
    case 1: {
        unsigned char byte;
        std::memcpy(&byte, value, 1);
        GPUCORE_GPU_CHECK(gpuMemsetAsync(dst, byte, count, ctx.stream));
        return;
    }
    case 2: fill_words<std::uint16_t>(dst, value, count, ctx); return;
    case 4: fill_words<std::uint32_t>(dst, value, count, ctx); return;
    case 8: fill_words<std::uint64_t>(dst, value, count, ctx); return;
    default:
        throw GpuError(GPUCORE_ERROR_INVALID_ARGUMENT,
                       "fill: element size " + std::to_string(element_size) +
                           " is not 1, 2, 4 or 8");
    }
}

// ---- slots: each enqueues one kernel on the stream ----------------------------------------------

namespace {

gpucore_status vector_add_slot(gpucore_dtype dtype, const void* a, const void* b, void* c, size_t n,
                               gpucore_stream stream, gpucore_message* msg) {
    return enqueue_op(stream, msg, [&](const LaunchContext& ctx) {
        launch_vector_add(dtype, a, b, c, n, ctx);
    });
}

} // namespace

void fill_elementwise_slots(gpucore_plugin_api& table) noexcept { table.vector_add = vector_add_slot; }

} // namespace gpucore::gpu

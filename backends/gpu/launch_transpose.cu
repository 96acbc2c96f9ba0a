// Launcher of transpose: kernels move raw 4- or 8-byte words, so f32/i32/u32 share one kernel.
#include <algorithm>
#include <climits>
#include <cstdint>

#include "gpu_error.hpp"
#include "kernels/transpose_kernel.cuh"
#include "launch.hpp"
#include "tuning_policy.hpp"

namespace gpucore::gpu {
namespace {

unsigned int tile_grid(std::size_t rows, std::size_t cols, std::size_t tile) {
    const std::size_t tiles = ((rows + tile - 1) / tile) * ((cols + tile - 1) / tile);
    return static_cast<unsigned int>(std::min<std::size_t>(tiles, INT_MAX));
}

template <class Word>
void transpose_words(const void* in, void* out, std::size_t rows, std::size_t cols,
                     const LaunchContext& ctx) {
    using Policy = TuningPolicy::Transpose;
    constexpr std::size_t kVec = Pack<Word>::kCount;
    const auto aligned = [](const void* p) {
        return reinterpret_cast<std::uintptr_t>(p) % TuningPolicy::kPackBytes == 0;
    };
    if (rows % kVec == 0 && cols % kVec == 0 && aligned(in) && aligned(out)) {
        const dim3 block(Policy::kVectorThreadsX, Policy::kVectorThreadsY);
        transpose_vector_kernel<Word, Policy::kVectorThreadsX, Policy::kVectorThreadsY>
            <<<tile_grid(rows, cols, Policy::kVectorThreadsX * kVec), block, 0, ctx.stream>>>(
                static_cast<const Word*>(in), static_cast<Word*>(out), rows, cols);
    } else {
        const dim3 block(Policy::kTile, Policy::kBlockRows);
        transpose_kernel<Word, Policy::kTile, Policy::kBlockRows>
            <<<tile_grid(rows, cols, Policy::kTile), block, 0, ctx.stream>>>(
                static_cast<const Word*>(in), static_cast<Word*>(out), rows, cols);
    }
    GPUCORE_GPU_CHECK(last_launch_error());
}

} // namespace

void launch_transpose(gpucore_dtype dtype, const void* in, void* out, std::size_t rows,
                      std::size_t cols, const LaunchContext& ctx) {
    const std::size_t word = dtype == GPUCORE_DTYPE_F64 ? 8 : 4;
    if (rows == 0 || cols == 0) return;
    if (rows == 1 || cols == 1) {
        // A single row or column has the same layout transposed: a plain copy.
        GPUCORE_GPU_CHECK(
            gpuMemcpyAsync(out, in, rows * cols * word, gpuMemcpyDefault, ctx.stream));
        return;
    }
    if (word == 8) transpose_words<std::uint64_t>(in, out, rows, cols, ctx);
    else transpose_words<std::uint32_t>(in, out, rows, cols, ctx);
}

} // namespace gpucore::gpu

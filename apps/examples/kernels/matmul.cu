// SPDX-License-Identifier: Apache-2.0
// Kernel module "matmul": C = A * B (row-major, f32), tiled through dynamic shared memory with
// block barriers. The tile is the block's width: blockDim.x == blockDim.y == tile, and the launch
// passes 2 * tile * tile floats of dynamic shared memory.
#include <gpucore/kernel_module.hpp>

using namespace gpucore::kernel;

// A: m x k, B: k x n, C: m x n. Any sizes (edge tiles are padded with zeros).
GPUCORE_KERNEL matmul_tiled(const float* a, const float* b, float* c, std::uint32_t m, std::uint32_t n,
                            std::uint32_t k) {
    const unsigned tile = blockDim.x;
    float* a_tile = dynamic_shared<float>();
    float* b_tile = a_tile + tile * tile;
    const unsigned tx = threadIdx.x;
    const unsigned ty = threadIdx.y;
    const std::size_t row = static_cast<std::size_t>(blockIdx.y) * tile + ty;
    const std::size_t col = static_cast<std::size_t>(blockIdx.x) * tile + tx;
    float sum = 0.0f;
    for (std::size_t t0 = 0; t0 < k; t0 += tile) {
        const std::size_t a_col = t0 + tx;
        const std::size_t b_row = t0 + ty;
        a_tile[ty * tile + tx] = row < m && a_col < k ? a[row * k + a_col] : 0.0f;
        b_tile[ty * tile + tx] = b_row < k && col < n ? b[b_row * n + col] : 0.0f;
        sync_block();
        for (unsigned i = 0; i < tile; ++i) sum += a_tile[ty * tile + i] * b_tile[i * tile + tx];
        sync_block();
    }
    if (row < m && col < n) c[row * n + col] = sum;
}
GPUCORE_MODULE_KERNEL(matmul_tiled);

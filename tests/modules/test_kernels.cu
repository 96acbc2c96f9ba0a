// SPDX-License-Identifier: Apache-2.0
// Kernels of the module tests: one of each dialect feature, written once for every backend.
#include <gpucore/kernel_module.hpp>

using namespace gpucore::kernel;

GPUCORE_KERNEL saxpy(float a, const float* x, float* y, std::size_t n) {
    for (std::size_t i = global_thread_index(); i < n; i += global_thread_count()) y[i] = a * x[i] + y[i];
}
GPUCORE_MODULE_KERNEL(saxpy);

// Reverses each block's slice through static shared memory and a barrier.
GPUCORE_KERNEL reverse_blocks(const std::int32_t* in, std::int32_t* out, std::size_t n) {
    GPUCORE_SHARED std::int32_t slice[1024];
    const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x;
    const std::size_t i = first + threadIdx.x;
    slice[threadIdx.x] = i < n ? in[i] : -1;
    sync_block();
    const std::size_t count = n - first < blockDim.x ? n - first : blockDim.x;
    if (threadIdx.x < count) out[first + threadIdx.x] = slice[count - 1 - threadIdx.x];
}
GPUCORE_MODULE_KERNEL(reverse_blocks);

// Per warp: the sum of lane ids by shfl_xor, the ballot of odd lanes, and a broadcast of lane 1.
GPUCORE_KERNEL warp_facts(std::uint32_t* out) {
    const unsigned t = threadIdx.x;
    int sum = lane_id();
    for (int offset = warp_size() / 2; offset > 0; offset /= 2) sum += shfl_xor(sum, offset);
    const lane_mask_t odd = warp_ballot(lane_id() % 2 == 1);
    const int from_one = shfl(lane_id() * 10, 1);
    const int up = shfl_up(lane_id(), 1u);
    const std::size_t base = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + t) * 6;
    out[base] = static_cast<std::uint32_t>(warp_size());
    out[base + 1] = static_cast<std::uint32_t>(sum);
    out[base + 2] = static_cast<std::uint32_t>(odd);
    out[base + 3] = static_cast<std::uint32_t>(odd >> 32);
    out[base + 4] = static_cast<std::uint32_t>(from_one);
    out[base + 5] = static_cast<std::uint32_t>(up) + (warp_all(true) ? 1000 : 0) + (warp_any(lane_id() == 3) ? 10000 : 0);
}
GPUCORE_MODULE_KERNEL(warp_facts);

// Each warp operation with a segment `width` and one operand: out[4 * i + k] is thread i's
// shfl_xor, shfl, shfl_down and shfl_up of in[i].
GPUCORE_KERNEL segmented_shuffles(const std::uint32_t* in, std::uint32_t* out, int width, int operand) {
    const std::size_t i = global_thread_index();
    const std::uint32_t v = in[i];
    out[4 * i] = shfl_xor(v, operand, width);
    out[4 * i + 1] = shfl(v, operand, width);
    out[4 * i + 2] = shfl_down(v, static_cast<unsigned>(operand), width);
    out[4 * i + 3] = shfl_up(v, static_cast<unsigned>(operand), width);
}
GPUCORE_MODULE_KERNEL(segmented_shuffles);

// Atomics: a count, the minimum and maximum, the float sum of ones, and exchange / compare-and-swap
// (the last thread to swap in leaves a value the host can check). The 64-bit forms are used on
// scratch words of the same buffers' memory, so every width compiles and runs on every vendor.
GPUCORE_KERNEL atomics(const std::int32_t* in, std::size_t n, std::uint32_t* count, std::int32_t* min_max,
                       float* sum, std::uint32_t* scratch) {
    for (std::size_t i = global_thread_index(); i < n; i += global_thread_count()) {
        atomic_add(count, std::uint32_t{1});
        atomic_min(&min_max[0], in[i]);
        atomic_max(&min_max[1], in[i]);
        atomic_add(sum, 1.0f);
        auto* wide = reinterpret_cast<std::uint64_t*>(scratch);
        atomic_add(&wide[0], std::uint64_t{1} << 32);
        atomic_max(&wide[1], static_cast<std::uint64_t>(i));
        atomic_min(reinterpret_cast<std::int64_t*>(&wide[2]), -static_cast<std::int64_t>(i));
        std::uint32_t seen = atomic_cas(&scratch[6], std::uint32_t{0}, std::uint32_t{7});
        (void)atomic_exchange(&scratch[7], seen == 0 || seen == 7 ? std::uint32_t{7} : std::uint32_t{1});
    }
}
GPUCORE_MODULE_KERNEL(atomics);

// Dynamic shared memory of `count` ints per block, written and read back after a barrier.
GPUCORE_KERNEL dynamic_rotate(const std::int32_t* in, std::int32_t* out, std::uint32_t count) {
    std::int32_t* shared = dynamic_shared<std::int32_t>();
    const std::size_t base = static_cast<std::size_t>(blockIdx.x) * count;
    for (std::uint32_t i = threadIdx.x; i < count; i += blockDim.x) shared[i] = in[base + i];
    sync_block();
    for (std::uint32_t i = threadIdx.x; i < count; i += blockDim.x) out[base + i] = shared[(i + 1) % count];
}
GPUCORE_MODULE_KERNEL(dynamic_rotate);

// 16-bit floats: widened, added in float, rounded once.
GPUCORE_KERNEL add_half(const half_t* a, const half_t* b, half_t* c, std::size_t n) {
    const std::size_t i = global_thread_index();
    if (i < n) c[i] = round_to<half_t>(to_float(a[i]) + to_float(b[i]));
}
GPUCORE_MODULE_KERNEL(add_half);

// A barrier only some threads reach: a GPU hangs or faults; the CPU execution reports a fault.
GPUCORE_KERNEL divergent_barrier(std::int32_t* out) {
    if (threadIdx.x == 0) return;
    sync_block();
    out[threadIdx.x] = 1;
}
GPUCORE_MODULE_KERNEL(divergent_barrier);

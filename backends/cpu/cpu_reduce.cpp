// SPDX-License-Identifier: Apache-2.0
// reduce and reduce_rows.
//
// Structure (the CPU analogue of warp -> block -> grid):
//  - leaf: up to kLeaf elements folded into kLanes independent accumulators (kVectors SIMD
//    vectors), combined as a tree into one vector;
//  - span: up to kChunk elements, as leaves whose vectors are combined as a balanced tree, then
//    the lanes of the result as a tree;
//  - row: longer rows are cut into chunks whose partials are again combined as a tree.
// So a float sum is blocked pairwise: each value passes through at most kLeaf / kLanes serial
// additions plus logarithmic trees, never one long chain.
// Rows of at most kChunk are work items of their own (parallel over rows); longer rows give one
// work item per chunk (parallel within rows), so the shape picks the parallelism. Chunk boundaries
// do not depend on the thread count, so results are the same on any machine size.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "cpu_kernels.hpp"
#include "cpu_parallel.hpp"
#include "cpu_status.hpp"
#include "gpucore/float16.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

// combine() returns 32-byte vectors; it is inlined, so the compilers' warning that such a return
// changes the ABI without AVX does not apply (GCC and clang both read this pragma).
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#include "gpucore/reduce_rules.hpp" // after the pragma: its combine() returns those vectors

namespace gpucore::cpu {
namespace {

// ---- the operations ----------------------------------------------------------------------------
// Identities, combine steps and the NaN rule come from the one host copy (gpucore/reduce_rules.hpp).

template <class T>
using SumOp = reduce_rules::Sum<T>;
template <class T>
using ProdOp = reduce_rules::Prod<T>;
template <class T>
using MinOp = reduce_rules::Min<T>;
template <class T>
using MaxOp = reduce_rules::Max<T>;

// ---- tuning ------------------------------------------------------------------------------------
// The leaf works on vectors of kVectorBytes (GCC vector extensions: AVX registers in the AVX2
// clone, pairs of SSE registers in the baseline), kVectors of them as independent accumulators:
// 128 bytes, enough to hide the latency of the combine.
inline constexpr std::size_t kVectorBytes = 32;
inline constexpr std::size_t kVectors = 4;
template <class T>
inline constexpr std::size_t kLanes = kVectors * kVectorBytes / sizeof(T);
// Elements per leaf: each accumulator lane combines kLeaf / kLanes (32 for f32) values serially.
inline constexpr std::size_t kLeaf = 1024;
// Elements per work item: 256 KiB of f32, long enough to amortise scheduling, short enough to
// spread one long row over the team.
inline constexpr std::size_t kChunk = std::size_t{1} << 16;

// ---- leaf, span, tree --------------------------------------------------------------------------

#define GPUCORE_CPU_INLINE inline __attribute__((always_inline))

// One vector of kVectorBytes (GCC vector extensions: an AVX register in the AVX2 clone, a pair of
// SSE registers in the baseline). Explicit vectors rather than hoping the vectoriser finds the
// pattern: it did not for the NaN-aware f64 min/max, which ran scalar.
template <class T>
struct VectorOf {
    typedef T type __attribute__((vector_size(kVectorBytes)));
    static constexpr std::size_t width = kVectorBytes / sizeof(T);
};

template <class T, class Op>
GPUCORE_CPU_INLINE typename VectorOf<T>::type identity_vector() {
    typename VectorOf<T>::type v{};
    for (std::size_t l = 0; l < VectorOf<T>::width; ++l) v[l] = Op::identity();
    return v;
}

template <class T>
GPUCORE_CPU_INLINE typename VectorOf<T>::type load_vector(const T* x) {
    typename VectorOf<T>::type v;
    std::memcpy(&v, x, sizeof(v)); // an unaligned vector load
    return v;
}

// Combines the lanes of one vector as a tree.
template <class T, class Op>
GPUCORE_CPU_INLINE T combine_lanes(const typename VectorOf<T>::type& v) {
    T lanes[VectorOf<T>::width];
    std::memcpy(lanes, &v, sizeof(v));
    for (std::size_t width = VectorOf<T>::width / 2; width > 0; width /= 2) {
        for (std::size_t l = 0; l < width; ++l) lanes[l] = Op::combine(lanes[l], lanes[l + width]);
    }
    return lanes[0];
}

// A leaf: `blocks` blocks of kLanes elements folded into kVectors independent vector accumulators,
// which are then combined as a tree into one vector (its lanes stay separate until the span ends).
template <class T, class Op>
GPUCORE_CPU_INLINE typename VectorOf<T>::type reduce_leaf(const T* x, std::size_t blocks) {
    using Vec = typename VectorOf<T>::type;
    constexpr std::size_t kWidth = VectorOf<T>::width;
    Vec acc[kVectors];
    for (Vec& a : acc) a = identity_vector<T, Op>();
    for (std::size_t b = 0; b < blocks; ++b) {
        const T* block = x + b * kLanes<T>;
        for (std::size_t k = 0; k < kVectors; ++k) acc[k] = Op::combine(acc[k], load_vector(block + k * kWidth));
    }
    for (std::size_t width = kVectors / 2; width > 0; width /= 2) {
        for (std::size_t k = 0; k < width; ++k) acc[k] = Op::combine(acc[k], acc[k + width]);
    }
    return acc[0];
}

// Combines values[0..count) (count >= 1; scalars or vectors) as a balanced binary tree, in place.
template <class Op, class V>
GPUCORE_CPU_INLINE V combine_tree(V* values, std::size_t count) {
    for (std::size_t width = 1; width < count; width *= 2) {
        for (std::size_t i = 0; i + width < count; i += 2 * width) {
            values[i] = Op::combine(values[i], values[i + width]);
        }
    }
    return values[0];
}

// Fewer than kLanes elements (short rows, e.g. reduce_rows 2^20 x 16): one vector accumulator
// when there is at least one vector of input, else scalars.
template <class T, class Op>
GPUCORE_CPU_INLINE T reduce_short(const T* x, std::size_t n) {
    constexpr std::size_t kWidth = VectorOf<T>::width;
    std::size_t i = 0;
    T result = Op::identity();
    if (n >= kWidth) {
        typename VectorOf<T>::type acc = load_vector(x);
        for (i = kWidth; i + kWidth <= n; i += kWidth) acc = Op::combine(acc, load_vector(x + i));
        result = combine_lanes<T, Op>(acc);
    }
    for (; i < n; ++i) result = Op::combine(result, x[i]);
    return result;
}

// Up to kChunk elements: leaves left to right, a tree over their vectors, then over the lanes;
// the last n % kLanes elements are added at the end.
template <class T, class Op>
GPUCORE_CPU_INLINE T reduce_span(const T* x, std::size_t n) {
    static_assert(kLeaf % kLanes<T> == 0, "leaves hold whole blocks");
    if (n < kLanes<T>) return reduce_short<T, Op>(x, n);
    const std::size_t whole = n / kLanes<T> * kLanes<T>;
    typename VectorOf<T>::type leaves[kChunk / kLeaf];
    std::size_t count = 0;
    for (std::size_t first = 0; first < whole; first += kLeaf) {
        leaves[count++] = reduce_leaf<T, Op>(x + first, std::min(kLeaf, whole - first) / kLanes<T>);
    }
    T result = combine_lanes<T, Op>(combine_tree<Op>(leaves, count));
    for (std::size_t i = whole; i < n; ++i) result = Op::combine(result, x[i]);
    return result;
}

// The two entry points the pool threads call, compiled for AVX2 and the baseline (see cpu_parallel.hpp).
template <class T, class Op>
GPUCORE_CPU_SIMD_CLONES T reduce_chunk(const T* x, std::size_t n) {
    return reduce_span<T, Op>(x, n);
}

template <class T, class Op>
GPUCORE_CPU_SIMD_CLONES void reduce_short_rows(const T* in, std::size_t cols, T* out,
                                               std::size_t first_row, std::size_t end_row) {
    for (std::size_t r = first_row; r < end_row; ++r) out[r] = reduce_span<T, Op>(in + r * cols, cols);
}

// ---- rows --------------------------------------------------------------------------------------

template <class T, class Op>
void reduce_rows_typed(const T* in, std::size_t rows, std::size_t cols, T* out) {
    if (rows == 0) return;
    const int threads = threads_for(rows * cols * sizeof(T));
    if (cols <= kChunk) {
        // Rows are the work items, grabbed in groups of about one chunk of elements.
        const std::size_t group = std::max<std::size_t>(1, kChunk / std::max<std::size_t>(cols, 1));
        const std::size_t groups = (rows + group - 1) / group;
        parallel_for(groups, 1, threads, [&](std::size_t first, std::size_t last) {
            for (std::size_t g = first; g < last; ++g) {
                reduce_short_rows<T, Op>(in, cols, out, g * group, std::min(rows, (g + 1) * group));
            }
        });
        return;
    }
    // Long rows: every (row, chunk) pair is a work item; then each row combines its partials.
    const std::size_t chunks_per_row = (cols + kChunk - 1) / kChunk;
    const std::size_t items = rows * chunks_per_row;
    std::unique_ptr<T[]> partials(new T[items]);
    parallel_for(items, 1, threads, [&](std::size_t begin, std::size_t end) {
        for (std::size_t item = begin; item < end; ++item) {
            const std::size_t r = item / chunks_per_row;
            const std::size_t first = item % chunks_per_row * kChunk;
            partials[item] = reduce_chunk<T, Op>(in + r * cols + first, std::min(kChunk, cols - first));
        }
    });
    // Combining is a small fraction of the work: rows in grabs sized to share it evenly.
    const std::size_t row_grain = std::max<std::size_t>(1, rows / static_cast<std::size_t>(threads));
    parallel_for(rows, row_grain, rows * chunks_per_row * sizeof(T) < kParallelThresholdBytes ? 1 : threads,
                 [&](std::size_t begin, std::size_t end) {
                     for (std::size_t r = begin; r < end; ++r) {
                         out[r] = combine_tree<Op>(partials.get() + r * chunks_per_row, chunks_per_row);
                     }
                 });
}

// ---- 16-bit floats ------------------------------------------------------------------------------
// half and bfloat16 accumulate in float: each work item widens its piece of a row into a float
// buffer (a branch-free, vectorized loop) and reduces it with the float kernels above; a row's
// partials combine in float, and the result is rounded once to T (nearest even).

// The element types that accumulate in a wider type (accumulator_t): half and bfloat16.
template <class T>
inline constexpr bool is_float16_v = !std::is_same_v<accumulator_t<T>, T>;

template <class T>
GPUCORE_CPU_SIMD_CLONES void widen(const T* in, float* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) // clang 14 lacks the "f16c" feature test
// half -> float with the F16C conversion instruction (8 per step), where the processor has it.
__attribute__((target("avx,f16c"))) void widen_half_f16c(const half* in, float* out, std::size_t n) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(packed));
    }
    for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
}
#endif

template <class T>
void widen_to_float(const T* in, float* out, std::size_t n) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    if constexpr (std::is_same_v<T, half>) {
        static const bool has_f16c = __builtin_cpu_supports("f16c");
        if (has_f16c) return widen_half_f16c(in, out, n);
    }
#endif
    widen(in, out, n);
}

template <class T, class Op>
void reduce_rows_widened(const T* in, std::size_t rows, std::size_t cols, T* out) {
    if (rows == 0) return;
    const std::size_t chunks_per_row = std::max<std::size_t>(1, (cols + kChunk - 1) / kChunk);
    const std::size_t items = rows * chunks_per_row;
    const std::size_t width = std::max<std::size_t>(1, std::min(cols, kChunk));
    const int threads = threads_for(rows * cols * sizeof(T));
    std::unique_ptr<float[]> partials(new float[items]);
    // Short rows are grabbed in groups of about one chunk of elements.
    const std::size_t group = std::max<std::size_t>(1, kChunk / std::max<std::size_t>(cols, 1));
    parallel_for(items, group, items > 1 ? threads : 1, [&](std::size_t begin, std::size_t end) {
        // One widening buffer per range handed out: each range is at least a chunk of work.
        std::unique_ptr<float[]> buffer(new float[width]);
        for (std::size_t item = begin; item < end; ++item) {
            const std::size_t r = item / chunks_per_row;
            const std::size_t first = item % chunks_per_row * kChunk;
            const std::size_t n = std::min(kChunk, cols - std::min(cols, first));
            widen_to_float(in + r * cols + first, buffer.get(), n);
            partials[item] = reduce_chunk<float, Op>(buffer.get(), n);
        }
    });
    const std::size_t row_grain = std::max<std::size_t>(1, rows / static_cast<std::size_t>(threads));
    parallel_for(rows, row_grain, rows * chunks_per_row * sizeof(float) < kParallelThresholdBytes ? 1 : threads,
                 [&](std::size_t begin, std::size_t end) {
                     for (std::size_t r = begin; r < end; ++r) {
                         out[r] = T(combine_tree<Op>(partials.get() + r * chunks_per_row, chunks_per_row));
                     }
                 });
}

template <class T>
void reduce_rows_op_native(gpucore_reduce_op op, const void* in, std::size_t rows, std::size_t cols,
                           void* out) {
    using W = typename Wrapping<T>::type;
    const T* x = static_cast<const T*>(in);
    T* y = static_cast<T*>(out);
    const W* xw = static_cast<const W*>(in);
    W* yw = static_cast<W*>(out);
    switch (op) {
    case GPUCORE_REDUCE_SUM: return reduce_rows_typed<W, SumOp<W>>(xw, rows, cols, yw);
    case GPUCORE_REDUCE_PROD: return reduce_rows_typed<W, ProdOp<W>>(xw, rows, cols, yw);
    case GPUCORE_REDUCE_MIN: return reduce_rows_typed<T, MinOp<T>>(x, rows, cols, y);
    case GPUCORE_REDUCE_MAX: return reduce_rows_typed<T, MaxOp<T>>(x, rows, cols, y);
    }
    throw BackendError(GPUCORE_ERROR_NOT_SUPPORTED, "reduce: unknown reduce op");
}

template <class T>
void reduce_rows_op(gpucore_reduce_op op, const void* in, std::size_t rows, std::size_t cols,
                    void* out) {
    if constexpr (is_float16_v<T>) {
        const T* x = static_cast<const T*>(in);
        T* y = static_cast<T*>(out);
        switch (op) {
        case GPUCORE_REDUCE_SUM: return reduce_rows_widened<T, SumOp<float>>(x, rows, cols, y);
        case GPUCORE_REDUCE_PROD: return reduce_rows_widened<T, ProdOp<float>>(x, rows, cols, y);
        case GPUCORE_REDUCE_MIN: return reduce_rows_widened<T, MinOp<float>>(x, rows, cols, y);
        case GPUCORE_REDUCE_MAX: return reduce_rows_widened<T, MaxOp<float>>(x, rows, cols, y);
        }
        throw BackendError(GPUCORE_ERROR_NOT_SUPPORTED, "reduce: unknown reduce op");
    } else {
        reduce_rows_op_native<T>(op, in, rows, cols, out);
    }
}

} // namespace

void reduce_rows(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, std::size_t rows,
                 std::size_t cols, void* out) {
    const bool known = visit_dtype(dtype, [&](auto tag) {
        reduce_rows_op<typename decltype(tag)::type>(op, in, rows, cols, out);
    });
    if (!known) throw BackendError(GPUCORE_ERROR_NOT_SUPPORTED, "reduce: unknown dtype");
}

} // namespace gpucore::cpu

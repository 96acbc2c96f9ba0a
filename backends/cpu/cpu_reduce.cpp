// SPDX-License-Identifier: Apache-2.0
// reduce and reduce_rows.
//
// Structure (the CPU analogue of warp -> block -> grid):
//  - leaf: up to kLeaf elements (16-bit inputs: kWidening times as many, the same bytes) folded
//    into kLanes independent accumulators (kVectors SIMD vectors), combined as a tree into one
//    vector;
//  - span: up to kChunk elements (16-bit: kWidening times as many), as leaves whose vectors are
//    combined as a balanced tree, then the lanes of the result as a tree;
//  - row: longer rows are cut into chunks whose partials are again combined as a tree.
// So a float sum is blocked pairwise: each value passes through at most kLeaf / kLanes (16-bit:
// twice as many) serial additions plus logarithmic trees, never one long chain.
// Rows of at most a chunk are work items of their own (parallel over rows); longer rows give one
// work item per chunk (parallel within rows), so the shape picks the parallelism. Chunk boundaries
// do not depend on the thread count, so results are the same on any machine size.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "cpu_kernels.hpp"
#include "cpu_op_slot.hpp"
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
// How far ahead of the block being read a leaf asks for data (prefetch). The 16-bit loaders spend
// about three times the instructions per byte that float's do, so the out-of-order window alone
// keeps fewer cache misses in flight; asking 4 KiB ahead raises every type, f32 too (timings in
// BENCHMARKS.md, "The reduce's launch policy per element size, and the cpu reduce's prefetch").
inline constexpr std::size_t kPrefetchBytes = 4096;
inline constexpr std::size_t kCacheLineBytes = 64;
// Elements per work item: 256 KiB of f32, long enough to amortise scheduling, short enough to
// spread one long row over the team.
inline constexpr std::size_t kChunk = std::size_t{1} << 16;
// Input elements per accumulator element's bytes: 1, or 2 for 16-bit inputs summed in float.
// Their leaves and chunks hold kWidening times the elements, the bytes of float's: with half the
// bytes per leaf and per work item, the fixed costs of each (a leaf's combine, a grab from the
// pool, the prefetches' start in a new chunk) cost 16-bit reductions a few per cent of their
// speed out of the cache (BENCHMARKS.md: the cpu 16-bit reductions with AVX-512).
template <class Accumulator, class Input>
inline constexpr std::size_t kWidening = sizeof(Accumulator) / sizeof(Input);

// ---- loading -----------------------------------------------------------------------------------

#define GPUCORE_CPU_INLINE inline __attribute__((always_inline))

// One vector of kVectorBytes (GCC vector extensions: an AVX register in the AVX2 clone, a pair of
// SSE registers in the baseline). Explicit vectors rather than hoping the vectoriser finds the
// pattern: it did not for the NaN-aware f64 min/max, which ran scalar.
template <class T>
struct VectorOf {
    typedef T type __attribute__((vector_size(kVectorBytes)));
    static constexpr std::size_t width = kVectorBytes / sizeof(T);
};

// A vector (of any width) with Op's identity in every lane.
template <class Vec, class Op>
GPUCORE_CPU_INLINE Vec identity_vector() {
    Vec v{};
    for (std::size_t l = 0; l < sizeof(Vec) / sizeof(v[0]); ++l) v[l] = Op::identity();
    return v;
}

template <class T>
GPUCORE_CPU_INLINE typename VectorOf<T>::type load_vector(const T* x) {
    typename VectorOf<T>::type v;
    std::memcpy(&v, x, sizeof(v)); // an unaligned vector load
    return v;
}

// A loader reads elements of `input` and gives vectors (and scalars) of the accumulator type T.
// The kernels below are written once over a loader: T itself, or 16-bit floats widened to float
// in registers as they are read, so a 16-bit input is read once, at its own width.
//   load(x): VectorOf<T>::width consecutive elements;
//   load_block(x, v): the kLanes<T> elements of one leaf block as block_count vectors of type
//     block_vector, in an order of the loader's choosing (each element in exactly one lane; the
//     order is fixed, so results do not depend on anything but the input);
//   to_accumulators(v, acc): the leaf's block_vector accumulators as the kVectors accumulators of
//     VectorOf<T> that the rest of the reduction combines. A loader of wider vectors lays its
//     lanes out so that every accumulator lane adds the same elements in the same order as with
//     narrow vectors: the results do not depend on the vector width either.
// NarrowBlocks: blocks of kVectors vectors of VectorOf<T>, the accumulators themselves.
template <class T>
struct NarrowBlocks {
    using block_vector = typename VectorOf<T>::type;
    static constexpr std::size_t block_count = kVectors;
    static GPUCORE_CPU_INLINE void to_accumulators(const block_vector (&v)[kVectors], block_vector (&acc)[kVectors]) {
        for (std::size_t k = 0; k < kVectors; ++k) acc[k] = v[k];
    }
};

template <class T>
struct Native : NarrowBlocks<T> {
    using input = T;
    static GPUCORE_CPU_INLINE typename VectorOf<T>::type load(const T* x) { return load_vector(x); }
    static GPUCORE_CPU_INLINE void load_block(const T* x, typename VectorOf<T>::type (&v)[kVectors]) {
        for (std::size_t k = 0; k < kVectors; ++k) v[k] = load(x + k * VectorOf<T>::width);
    }
};

// Loads VectorOf<float>::width 16-bit values as unsigned 32-bit lanes (zero-extended).
using Float16Lanes = VectorOf<std::uint32_t>::type;
template <class In>
GPUCORE_CPU_INLINE Float16Lanes load_float16_lanes(const In* x) {
    typedef std::uint16_t Bits __attribute__((vector_size(VectorOf<float>::width * 2)));
    Bits bits;
    std::memcpy(&bits, x, sizeof(bits));
    return __builtin_convertvector(bits, Float16Lanes);
}

GPUCORE_CPU_INLINE VectorOf<float>::type float_vector_of(const Float16Lanes& bits) {
    VectorOf<float>::type v;
    std::memcpy(&v, &bits, sizeof(v));
    return v;
}

// bfloat16 is the upper half of a float: a shift. A leaf block is read as 32-bit words of two
// elements each: the even elements are the words shifted up, the odd ones the words with their
// low half cleared (two operations per 16 elements).
struct BFloat16ToFloat : NarrowBlocks<float> {
    using input = bfloat16;
    static GPUCORE_CPU_INLINE VectorOf<float>::type load(const bfloat16* x) {
        return float_vector_of(load_float16_lanes(x) << 16);
    }
    static GPUCORE_CPU_INLINE void load_block(const bfloat16* x, VectorOf<float>::type (&v)[kVectors]) {
        static_assert(kVectors % 2 == 0, "pairs of vectors");
        for (std::size_t k = 0; k < kVectors; k += 2) {
            Float16Lanes words;
            std::memcpy(&words, x + k * VectorOf<float>::width, sizeof(words));
            v[k] = float_vector_of(words << 16);
            v[k + 1] = float_vector_of(words & 0xFFFF0000u);
        }
    }
};

// half: detail::half_bits_to_float of float16.hpp, lane-wise (exact; the same branch-free steps).
struct HalfToFloat : NarrowBlocks<float> {
    using input = half;
    static GPUCORE_CPU_INLINE VectorOf<float>::type load(const half* x) {
        const Float16Lanes h = load_float16_lanes(x);
        const Float16Lanes sign = (h & 0x8000u) << 16;
        const Float16Lanes magnitude = (h & 0x7FFFu) << 13;
        const Float16Lanes exponent = magnitude & 0x0F800000u;
        const Float16Lanes normal = magnitude + (112u << 23);
        const Float16Lanes special = magnitude + (224u << 23);
        // The mantissa converted exactly, times 2^-24: an exact product, so no rounding mode applies.
        const auto mantissa = reinterpret_cast<VectorOf<std::int32_t>::type>(h & 0x03FFu);
        const VectorOf<float>::type subnormal = __builtin_convertvector(mantissa, VectorOf<float>::type) * 0x1p-24f;
        Float16Lanes subnormal_bits;
        std::memcpy(&subnormal_bits, &subnormal, sizeof(subnormal_bits));
        const Float16Lanes result = exponent == 0x0F800000u ? special : exponent == 0u ? subnormal_bits : normal;
        return float_vector_of(result | sign);
    }
    static GPUCORE_CPU_INLINE void load_block(const half* x, VectorOf<float>::type (&v)[kVectors]) {
        for (std::size_t k = 0; k < kVectors; ++k) v[k] = load(x + k * VectorOf<float>::width);
    }
};

// Asks for the cache lines kPrefetchBytes past the `bytes` starting at `block`. A prefetch never
// faults, so lines past the end of the input are harmless (the address is formed as an integer).
GPUCORE_CPU_INLINE void prefetch_ahead(const void* block, std::size_t bytes) {
    const std::uintptr_t ahead = reinterpret_cast<std::uintptr_t>(block) + kPrefetchBytes;
    for (std::size_t line = 0; line < bytes; line += kCacheLineBytes) {
        __builtin_prefetch(reinterpret_cast<const void*>(ahead + line), 0, 3);
    }
}

// ---- leaf, span, tree --------------------------------------------------------------------------

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
template <class T, class Op, class L>
GPUCORE_CPU_INLINE typename VectorOf<T>::type reduce_leaf(const typename L::input* x, std::size_t blocks) {
    using Wide = typename L::block_vector;
    Wide wide[L::block_count];
    for (Wide& a : wide) a = identity_vector<Wide, Op>();
    for (std::size_t b = 0; b < blocks; ++b) {
        Wide block[L::block_count];
        prefetch_ahead(x + b * kLanes<T>, kLanes<T> * sizeof(typename L::input));
        L::load_block(x + b * kLanes<T>, block);
        for (std::size_t k = 0; k < L::block_count; ++k) wide[k] = Op::combine(wide[k], block[k]);
    }
    typename VectorOf<T>::type acc[kVectors];
    L::to_accumulators(wide, acc);
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
template <class T, class Op, class L>
GPUCORE_CPU_INLINE T reduce_short(const typename L::input* x, std::size_t n) {
    constexpr std::size_t kWidth = VectorOf<T>::width;
    std::size_t i = 0;
    T result = Op::identity();
    if (n >= kWidth) {
        typename VectorOf<T>::type acc = L::load(x);
        for (i = kWidth; i + kWidth <= n; i += kWidth) acc = Op::combine(acc, L::load(x + i));
        result = combine_lanes<T, Op>(acc);
    }
    for (; i < n; ++i) result = Op::combine(result, static_cast<T>(x[i]));
    return result;
}

// Up to a chunk of elements: leaves left to right, a tree over their vectors, then over the
// lanes; the last n % kLanes elements are added at the end.
template <class T, class Op, class L>
GPUCORE_CPU_INLINE T reduce_span(const typename L::input* x, std::size_t n) {
    constexpr std::size_t leaf = kLeaf * kWidening<T, typename L::input>;
    static_assert(leaf % kLanes<T> == 0, "leaves hold whole blocks");
    if (n < kLanes<T>) return reduce_short<T, Op, L>(x, n);
    const std::size_t whole = n / kLanes<T> * kLanes<T>;
    typename VectorOf<T>::type leaves[kChunk / kLeaf];
    std::size_t count = 0;
    for (std::size_t first = 0; first < whole; first += leaf) {
        leaves[count++] = reduce_leaf<T, Op, L>(x + first, std::min(leaf, whole - first) / kLanes<T>);
    }
    T result = combine_lanes<T, Op>(combine_tree<Op>(leaves, count));
    for (std::size_t i = whole; i < n; ++i) result = Op::combine(result, static_cast<T>(x[i]));
    return result;
}

// The two entry points the pool threads call, compiled for AVX2 and the baseline (see cpu_parallel.hpp).
template <class T, class Op, class L = Native<T>>
GPUCORE_CPU_SIMD_CLONES T reduce_chunk(const typename L::input* x, std::size_t n) {
    return reduce_span<T, Op, L>(x, n);
}

template <class T, class Op>
GPUCORE_CPU_SIMD_CLONES void reduce_short_rows(const T* in, std::size_t cols, T* out,
                                               std::size_t first_row, std::size_t end_row) {
    for (std::size_t r = first_row; r < end_row; ++r) out[r] = reduce_span<T, Op, Native<T>>(in + r * cols, cols);
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
// half and bfloat16 accumulate in float, widened in registers as the leaves read them (the loaders
// above), so the input is read once at its own width: blocked pairwise trees like the float
// kernels', over leaves and chunks of the same bytes (kWidening), a row's chunks and partials
// combine in float, and the result is rounded once to T (nearest even). Every loader of a type
// (portable, F16C, AVX-512) puts each element in the same lane: the results do not depend on the
// processor.

// The element types that accumulate in a wider type (accumulator_t): half and bfloat16.
template <class T>
inline constexpr bool is_float16_v = !std::is_same_v<accumulator_t<T>, T>;

// T's loader of a pair of loaders, one for half and one for bfloat16.
template <class T, class ForHalf, class ForBFloat16>
using LoaderOf = std::conditional_t<std::is_same_v<T, half>, ForHalf, ForBFloat16>;

// A piece of a row of T, reduced in float; the signature of the chunk kernels.
template <class T>
using WidenedChunk = float (*)(const T*, std::size_t);

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) // clang 14 lacks the "f16c" feature test
// half -> float with the F16C conversion instruction, where the processor has it (with AVX2).
struct HalfToFloatF16c : NarrowBlocks<float> {
    using input = half;
    __attribute__((target("avx2,f16c"))) static VectorOf<float>::type load(const half* x) {
        const __m256 wide = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x)));
        VectorOf<float>::type v;
        std::memcpy(&v, &wide, sizeof(v));
        return v;
    }
    __attribute__((target("avx2,f16c"))) static void load_block(const half* x, VectorOf<float>::type (&v)[kVectors]) {
        for (std::size_t k = 0; k < kVectors; ++k) v[k] = load(x + k * VectorOf<float>::width);
    }
};

// flatten: the kernels' templates and the target-specific load are all inlined into this one
// function, which is compiled for AVX2 + F16C.
template <class Op>
__attribute__((target("avx2,f16c"), flatten)) float reduce_chunk_half_f16c(const half* x, std::size_t n) {
    return reduce_span<float, Op, HalfToFloatF16c>(x, n);
}

// 16-bit floats -> float 16 lanes at a time, where the processor has AVX-512: half the
// conversion and add instructions per byte of the AVX2 loaders (a few per cent faster out of the
// cache on a 16-core Xeon; BENCHMARKS.md: the cpu 16-bit reductions with AVX-512). A leaf block
// (32 elements) is two 16-lane vectors, each holding two of the narrow loaders' accumulators side
// by side, so every lane sums the same elements in the same order.
#define GPUCORE_CPU_AVX512 __attribute__((target("avx512f,avx2,f16c")))
typedef float WideFloats __attribute__((vector_size(64)));
typedef std::uint32_t WideWords __attribute__((vector_size(64)));
static_assert(2 * sizeof(WideFloats) == kVectors * sizeof(VectorOf<float>::type), "a block is two wide vectors");

// The narrow accumulators `first` and `second` are the low and high halves of `v`.
GPUCORE_CPU_INLINE void split_wide(const WideFloats& v, VectorOf<float>::type& first, VectorOf<float>::type& second) {
    std::memcpy(&first, &v, sizeof(first));
    std::memcpy(&second, reinterpret_cast<const char*>(&v) + sizeof(first), sizeof(second));
}

// Blocks of two 16-lane vectors; each loader says which narrow accumulators each one holds.
struct WideBlocks {
    using block_vector = WideFloats;
    static constexpr std::size_t block_count = 2;
};

// half: v[k] holds the elements 16k..16k+15, the narrow accumulators 2k and 2k + 1.
struct HalfToFloatAvx512 : WideBlocks {
    using input = half;
    GPUCORE_CPU_AVX512 static VectorOf<float>::type load(const half* x) { return HalfToFloatF16c::load(x); }
    GPUCORE_CPU_AVX512 static void load_block(const half* x, WideFloats (&v)[2]) {
        for (std::size_t k = 0; k < 2; ++k) {
            // The zero-masked form with every lane selected: the plain _mm512_cvtph_ps of GCC 12
            // reads an undefined vector, which -Wmaybe-uninitialized reports.
            const __m512 wide = _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + 16 * k)));
            std::memcpy(&v[k], &wide, sizeof(wide));
        }
    }
    static GPUCORE_CPU_INLINE void to_accumulators(const WideFloats (&v)[2], VectorOf<float>::type (&acc)[kVectors]) {
        split_wide(v[0], acc[0], acc[1]);
        split_wide(v[1], acc[2], acc[3]);
    }
};

// bfloat16: the block's 16 words, shifted (even elements) and masked (odd ones), as in
// BFloat16ToFloat: v[0] holds the narrow accumulators 0 and 2, v[1] the accumulators 1 and 3.
struct BFloat16ToFloatAvx512 : WideBlocks {
    using input = bfloat16;
    static GPUCORE_CPU_INLINE VectorOf<float>::type load(const bfloat16* x) { return BFloat16ToFloat::load(x); }
    static GPUCORE_CPU_INLINE void load_block(const bfloat16* x, WideFloats (&v)[2]) {
        WideWords words;
        std::memcpy(&words, x, sizeof(words));
        const WideWords even = words << 16, odd = words & 0xFFFF0000u;
        std::memcpy(&v[0], &even, sizeof(even));
        std::memcpy(&v[1], &odd, sizeof(odd));
    }
    static GPUCORE_CPU_INLINE void to_accumulators(const WideFloats (&v)[2], VectorOf<float>::type (&acc)[kVectors]) {
        split_wide(v[0], acc[0], acc[2]);
        split_wide(v[1], acc[1], acc[3]);
    }
};

template <class Op, class L>
GPUCORE_CPU_AVX512 __attribute__((flatten)) float reduce_chunk_avx512(const typename L::input* x, std::size_t n) {
    return reduce_span<float, Op, L>(x, n);
}
#endif

// The fastest chunk kernel this processor runs: AVX-512, else (half) F16C, else the AVX2 and
// baseline clones. A test may turn F16C off for the portable half conversion.
template <class T, class Op>
WidenedChunk<T> widened_chunk_kernel() {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    constexpr bool is_half = std::is_same_v<T, half>;
    if (avx512_enabled() && (!is_half || f16c_enabled())) return &reduce_chunk_avx512<Op, LoaderOf<T, HalfToFloatAvx512, BFloat16ToFloatAvx512>>;
    if constexpr (is_half) {
        if (f16c_enabled()) return &reduce_chunk_half_f16c<Op>;
    }
#endif
    return &reduce_chunk<float, Op, LoaderOf<T, HalfToFloat, BFloat16ToFloat>>;
}

template <class T, class Op>
void reduce_rows_widened(const T* in, std::size_t rows, std::size_t cols, T* out) {
    if (rows == 0) return;
    const WidenedChunk<T> reduce_piece = widened_chunk_kernel<T, Op>();
    constexpr std::size_t chunk = kChunk * kWidening<float, T>;
    const std::size_t chunks_per_row = std::max<std::size_t>(1, (cols + chunk - 1) / chunk);
    const std::size_t items = rows * chunks_per_row;
    const int threads = threads_for(rows * cols * sizeof(T));
    std::unique_ptr<float[]> partials(new float[items]);
    // Short rows are grabbed in groups of about one chunk of elements.
    const std::size_t group = std::max<std::size_t>(1, chunk / std::max<std::size_t>(cols, 1));
    parallel_for(items, group, items > 1 ? threads : 1, [&](std::size_t begin, std::size_t end) {
        for (std::size_t item = begin; item < end; ++item) {
            const std::size_t r = item / chunks_per_row;
            const std::size_t first = item % chunks_per_row * chunk;
            const std::size_t n = std::min(chunk, cols - std::min(cols, first));
            partials[item] = reduce_piece(in + r * cols + first, n);
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

// ---- slots -------------------------------------------------------------------------------------

namespace {

gpucore_status reduce_slot(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, std::size_t n,
                           void* out, gpucore_stream stream, gpucore_message* msg) {
    return guarded(msg, [&] {
        require_dtype(dtype);
        require_reduce_op(op);
        to_stream(stream)->enqueue([=] { reduce_rows(dtype, op, in, 1, n, out); }, "reduce");
    });
}

gpucore_status reduce_rows_slot(gpucore_dtype dtype, gpucore_reduce_op op, const void* in,
                                std::size_t rows, std::size_t cols, void* out,
                                gpucore_stream stream, gpucore_message* msg) {
    return guarded(msg, [&] {
        require_dtype(dtype);
        require_reduce_op(op);
        if (rows == 0) return;
        to_stream(stream)->enqueue([=] { reduce_rows(dtype, op, in, rows, cols, out); }, "reduce_rows");
    });
}

} // namespace

void fill_reduce_slots(gpucore_plugin_api& table) noexcept {
    table.reduce = reduce_slot;
    table.reduce_rows = reduce_rows_slot;
}

} // namespace gpucore::cpu

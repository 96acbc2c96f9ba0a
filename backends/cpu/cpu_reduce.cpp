// reduce and reduce_rows.
//
// Structure (the CPU analogue of warp -> block -> grid):
//  - leaf: a block of up to kLeaf elements folded into kLanes independent accumulators (the inner
//    loop vectorises: each accumulator is one SIMD lane), then the lanes combined as a tree;
//  - chunk: up to kChunk elements summed pairwise (recursive halving down to leaves);
//  - row: its chunks' partials combined pairwise.
// Work items are (row, chunk) pairs spread over the OpenMP team, so the same code is parallel over
// rows when there are many rows and within each row when there are few long ones. Chunk boundaries
// do not depend on the thread count, so results are reproducible on any machine size.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>

#include "cpu_kernels.hpp"
#include "cpu_parallel.hpp"
#include "cpu_status.hpp"

namespace gpucore::cpu {
namespace {

// ---- the operations ----------------------------------------------------------------------------
// combine(acc, x) must be written without branches so the leaf loop vectorises.

template <class T>
struct SumOp {
    static constexpr T identity() { return T(0); }
    static T combine(T acc, T x) { return static_cast<T>(acc + x); }
};

template <class T>
struct ProdOp {
    static constexpr T identity() { return T(1); }
    static T combine(T acc, T x) { return static_cast<T>(acc * x); }
};

template <class T>
struct MinOp {
    static constexpr T identity() {
        return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::max();
    }
    static T combine(T acc, T x) {
        if constexpr (std::is_floating_point_v<T>) {
            // Take x when it is smaller or NaN; once acc is NaN no comparison replaces it, so a
            // NaN anywhere propagates. Bitwise | keeps it branch-free.
            return ((x < acc) | (x != x)) ? x : acc;
        } else {
            return x < acc ? x : acc;
        }
    }
};

template <class T>
struct MaxOp {
    static constexpr T identity() {
        return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::lowest();
    }
    static T combine(T acc, T x) {
        if constexpr (std::is_floating_point_v<T>) {
            return ((x > acc) | (x != x)) ? x : acc;
        } else {
            return x > acc ? x : acc;
        }
    }
};

// ---- tuning ------------------------------------------------------------------------------------
// Independent accumulators per leaf: 128 bytes of them, i.e. two AVX-512 or four AVX or eight SSE
// registers, enough to hide the add latency.
template <class T>
inline constexpr std::size_t kLanes = 128 / sizeof(T);
// Elements per leaf: each accumulator then adds only kLeaf / kLanes values serially.
inline constexpr std::size_t kLeaf = 1024;
// Elements per work item: 256 KiB of f32, big enough to amortise scheduling, small enough to
// spread a single long row over the team.
inline constexpr std::size_t kChunk = std::size_t{1} << 16;

// ---- leaf, chunk, row --------------------------------------------------------------------------

template <class T, class Op>
T reduce_leaf(const T* x, std::size_t n) {
    T result = Op::identity();
    if (n < kLanes<T>) { // short rows: a short serial loop beats setting up the lanes
        for (std::size_t i = 0; i < n; ++i) result = Op::combine(result, x[i]);
        return result;
    }
    T acc[kLanes<T>];
    for (std::size_t j = 0; j < kLanes<T>; ++j) acc[j] = Op::identity();
    std::size_t i = 0;
    for (; i + kLanes<T> <= n; i += kLanes<T>) {
        for (std::size_t j = 0; j < kLanes<T>; ++j) acc[j] = Op::combine(acc[j], x[i + j]);
    }
    for (std::size_t width = kLanes<T> / 2; width > 0; width /= 2) {
        for (std::size_t j = 0; j < width; ++j) acc[j] = Op::combine(acc[j], acc[j + width]);
    }
    result = acc[0];
    for (; i < n; ++i) result = Op::combine(result, x[i]); // fewer than kLanes left
    return result;
}

// Pairwise: split in halves (at a multiple of kLanes) down to leaves, combine the halves.
template <class T, class Op>
T reduce_pairwise(const T* x, std::size_t n) {
    if (n <= kLeaf) return reduce_leaf<T, Op>(x, n);
    const std::size_t half = n / 2 / kLanes<T> * kLanes<T>;
    // Left half first, explicitly: as two arguments of one call the compiler may evaluate the
    // right half first, walking memory backwards leaf by leaf and defeating the prefetchers.
    const T left = reduce_pairwise<T, Op>(x, half);
    const T right = reduce_pairwise<T, Op>(x + half, n - half);
    return Op::combine(left, right);
}

template <class T, class Op>
void reduce_rows_typed(const T* in, std::size_t rows, std::size_t cols, T* out) {
    if (rows == 0) return;
    const int threads = threads_for(rows * cols * sizeof(T));
    if (cols <= kChunk) {
        // One work item per row: parallel over rows (dynamic in groups of rows of about one chunk,
        // see kBlockBytes for why dynamic).
        const int rows_per_grab = static_cast<int>(std::max<std::size_t>(1, kChunk / std::max<std::size_t>(cols, 1)));
#pragma omp parallel for num_threads(threads) schedule(dynamic, rows_per_grab) if (threads > 1)
        for (std::size_t r = 0; r < rows; ++r) out[r] = reduce_pairwise<T, Op>(in + r * cols, cols);
        return;
    }
    // Long rows: every (row, chunk) pair is a work item; then each row combines its partials.
    const std::size_t chunks_per_row = (cols + kChunk - 1) / kChunk;
    const std::size_t items = rows * chunks_per_row;
    std::unique_ptr<T[]> partials(new T[items]);
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
#pragma omp for schedule(dynamic)
        for (std::size_t item = 0; item < items; ++item) {
            const std::size_t r = item / chunks_per_row;
            const std::size_t first = item % chunks_per_row * kChunk;
            const std::size_t length = std::min(kChunk, cols - first);
            partials[item] = reduce_pairwise<T, Op>(in + r * cols + first, length);
        }
#pragma omp for schedule(static)
        for (std::size_t r = 0; r < rows; ++r) {
            out[r] = reduce_pairwise<T, Op>(partials.get() + r * chunks_per_row, chunks_per_row);
        }
    }
}

// The type integer sums and products are computed in: the unsigned type of the same width.
template <class T, bool = std::is_integral_v<T>>
struct Wrapping {
    using type = T;
};
template <class T>
struct Wrapping<T, true> {
    using type = std::make_unsigned_t<T>;
};

template <class T>
void reduce_rows_op(gpucore_reduce_op op, const void* in, std::size_t rows, std::size_t cols,
                    void* out) {
    const T* x = static_cast<const T*>(in);
    T* y = static_cast<T*>(out);
    // Integer sums and products wrap as unsigned arithmetic does: do them in uint32 on the same
    // bits (no signed-overflow UB for i32).
    using W = typename Wrapping<T>::type;
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

} // namespace

void reduce_rows(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, std::size_t rows,
                 std::size_t cols, void* out) {
    switch (dtype) {
    case GPUCORE_DTYPE_F32: return reduce_rows_op<float>(op, in, rows, cols, out);
    case GPUCORE_DTYPE_F64: return reduce_rows_op<double>(op, in, rows, cols, out);
    case GPUCORE_DTYPE_I32: return reduce_rows_op<std::int32_t>(op, in, rows, cols, out);
    case GPUCORE_DTYPE_U32: return reduce_rows_op<std::uint32_t>(op, in, rows, cols, out);
    }
    throw BackendError(GPUCORE_ERROR_NOT_SUPPORTED, "reduce: unknown dtype");
}

} // namespace gpucore::cpu

// SPDX-License-Identifier: Apache-2.0
// transpose: out (cols x rows) = in (rows x cols)^T, both row-major.
//
// Cache-blocked: the matrix is cut into square tiles (256 bytes of elements a side), the team
// shares the tiles. A full tile is transposed through a small thread-local buffer that stays in L1:
// 4x4 (or 2x2) register transposes read the input tile row by row and write the buffer; the buffer
// is then written out as whole output row segments (full cache lines, streamed past the cache when
// the matrix is larger than the LLC). This keeps every strided access inside L1 even for
// power-of-two widths, where direct strided stores would fight over the same cache sets. While a
// tile is moved, the input of the next tile to the right is prefetched.
// Partial tiles at the right and bottom edges use a plain loop. The code only moves bits, so it is
// the same for every dtype of one size.

#include <cstdint>
#include <cstring>

#include "cpu_kernels.hpp"
#include "cpu_op_slot.hpp"
#include "cpu_parallel.hpp"
#include "cpu_status.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpucore::cpu {
namespace {

template <class E>
inline constexpr std::size_t kTile = 256 / sizeof(E); // 128 x 128 for 2 bytes, 64 x 64 for 4, 32 x 32 for 8

struct Shape {
    std::size_t rows;
    std::size_t cols;
};

// Any tile, element by element: walks the output contiguously.
template <class E>
void transpose_tile_plain(const E* in, E* out, Shape s, std::size_t r0, std::size_t c0,
                          std::size_t height, std::size_t width) {
    for (std::size_t c = c0; c < c0 + width; ++c) {
        E* dst = out + c * s.rows;
        for (std::size_t r = r0; r < r0 + height; ++r) dst[r] = in[r * s.cols + c];
    }
}

#if defined(__SSE2__)
// Loads a B x B block (B = one SSE register of elements) at rows [r, r+B) x cols [c, c+B) of the
// input tile and stores it transposed into the buffer, whose rows are kTile elements long.
template <class E>
inline void transpose_block(const E* src, std::size_t stride, E* buf, std::size_t r,
                            std::size_t c) {
    constexpr std::size_t T = kTile<E>;
    const E* p = src + r * stride + c;
    E* q = buf + c * T + r;
    const auto load = [](const E* at) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at)); };
    const auto store = [](E* at, __m128i v) { _mm_store_si128(reinterpret_cast<__m128i*>(at), v); };
    if constexpr (sizeof(E) == 2) {
        __m128i a[8];
        for (std::size_t k = 0; k < 8; ++k) a[k] = load(p + k * stride);
        __m128i b[8]; // pairs of rows interleaved by element
        for (std::size_t k = 0; k < 8; k += 2) {
            b[k / 2 * 2] = _mm_unpacklo_epi16(a[k], a[k + 1]);
            b[k / 2 * 2 + 1] = _mm_unpackhi_epi16(a[k], a[k + 1]);
        }
        // b0 = a00 a10 a01 a11 .. a03 a13, b1 = a04 a14 .. a07 a17, b2/b3 rows 2-3, b4-b7 rows 4-7.
        const __m128i c0 = _mm_unpacklo_epi32(b[0], b[2]), c1 = _mm_unpackhi_epi32(b[0], b[2]);
        const __m128i c2 = _mm_unpacklo_epi32(b[1], b[3]), c3 = _mm_unpackhi_epi32(b[1], b[3]);
        const __m128i c4 = _mm_unpacklo_epi32(b[4], b[6]), c5 = _mm_unpackhi_epi32(b[4], b[6]);
        const __m128i c6 = _mm_unpacklo_epi32(b[5], b[7]), c7 = _mm_unpackhi_epi32(b[5], b[7]);
        // c0 = a00 a10 a20 a30 a01 a11 a21 a31; c4 the same for rows 4-7.
        store(q, _mm_unpacklo_epi64(c0, c4));
        store(q + T, _mm_unpackhi_epi64(c0, c4));
        store(q + 2 * T, _mm_unpacklo_epi64(c1, c5));
        store(q + 3 * T, _mm_unpackhi_epi64(c1, c5));
        store(q + 4 * T, _mm_unpacklo_epi64(c2, c6));
        store(q + 5 * T, _mm_unpackhi_epi64(c2, c6));
        store(q + 6 * T, _mm_unpacklo_epi64(c3, c7));
        store(q + 7 * T, _mm_unpackhi_epi64(c3, c7));
    } else if constexpr (sizeof(E) == 4) {
        const __m128i a0 = load(p);
        const __m128i a1 = load(p + stride);
        const __m128i a2 = load(p + 2 * stride);
        const __m128i a3 = load(p + 3 * stride);
        const __m128i t0 = _mm_unpacklo_epi32(a0, a1); // a00 a10 a01 a11
        const __m128i t1 = _mm_unpacklo_epi32(a2, a3); // a20 a30 a21 a31
        const __m128i t2 = _mm_unpackhi_epi32(a0, a1); // a02 a12 a03 a13
        const __m128i t3 = _mm_unpackhi_epi32(a2, a3); // a22 a32 a23 a33
        store(q, _mm_unpacklo_epi64(t0, t1));
        store(q + T, _mm_unpackhi_epi64(t0, t1));
        store(q + 2 * T, _mm_unpacklo_epi64(t2, t3));
        store(q + 3 * T, _mm_unpackhi_epi64(t2, t3));
    } else {
        static_assert(sizeof(E) == 8, "transpose moves 2-, 4- or 8-byte elements");
        const __m128i a0 = load(p);
        const __m128i a1 = load(p + stride);
        store(q, _mm_unpacklo_epi64(a0, a1));
        store(q + T, _mm_unpackhi_epi64(a0, a1));
    }
}

// Writes one buffer row (kTile elements) to the output. When streaming, the part of it that is
// 16-byte aligned goes out with non-temporal stores and the few elements before and after it with
// plain ones: output rows of an odd width (5003 x 3001) start anywhere, and would otherwise all
// fall back to cached stores.
template <class E>
inline void write_segment(E* dst, const E* src, bool streaming) {
    constexpr std::size_t T = kTile<E>;
    constexpr std::size_t kStep = 16 / sizeof(E);
    const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(dst);
    if (!streaming || address % sizeof(E) != 0) {
        std::memcpy(dst, src, T * sizeof(E));
        return;
    }
    std::size_t i = (16 - address % 16) % 16 / sizeof(E);
    for (std::size_t h = 0; h < i; ++h) dst[h] = src[h];
    for (; i + kStep <= T; i += kStep) {
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    }
    for (; i < T; ++i) dst[i] = src[i];
}

template <class E>
void transpose_tile_full(const E* in, E* out, Shape s, std::size_t r0, std::size_t c0, E* buf,
                         bool streaming) {
    constexpr std::size_t T = kTile<E>;
    constexpr std::size_t B = 16 / sizeof(E); // block side: one SSE register of elements
    const E* src = in + r0 * s.cols + c0;
    // The next tile to the right continues these rows. Its 64 short row pieces are too many
    // streams for the hardware prefetchers, so ask for them while this tile is being moved.
    const bool prefetch_next = c0 + 2 * T <= s.cols;
    for (std::size_t r = 0; r < T; r += B) {
        for (std::size_t c = 0; c < T; c += B) transpose_block(src, s.cols, buf, r, c);
        if (prefetch_next) {
            for (std::size_t k = 0; k < B; ++k) {
                const E* next = src + (r + k) * s.cols + T;
                for (std::size_t e = 0; e < T; e += 64 / sizeof(E)) __builtin_prefetch(next + e);
            }
        }
    }
    for (std::size_t c = 0; c < T; ++c) write_segment(out + (c0 + c) * s.rows + r0, buf + c * T, streaming);
}
#else
template <class E>
void transpose_tile_full(const E* in, E* out, Shape s, std::size_t r0, std::size_t c0, E*, bool) {
    transpose_tile_plain(in, out, s, r0, c0, kTile<E>, kTile<E>);
}
#endif

template <class E>
void transpose_typed(const E* in, E* out, Shape s) {
    constexpr std::size_t T = kTile<E>;
    const std::size_t tile_rows = (s.rows + T - 1) / T;
    const std::size_t tile_cols = (s.cols + T - 1) / T;
    const std::size_t bytes = s.rows * s.cols * sizeof(E);
    const bool streaming = 2 * bytes >= streaming_threshold_bytes();
    const int threads = threads_for(2 * bytes);
    // Tile columns innermost: consecutive tiles continue the same input rows. Handed out in grabs of
    // a few tiles: see kBlockBytes in cpu_parallel.hpp.
    parallel_for(tile_rows * tile_cols, 4, threads, [&](std::size_t begin, std::size_t end) {
        alignas(64) E buf[T * T];
        for (std::size_t tile = begin; tile < end; ++tile) {
            const std::size_t r0 = tile / tile_cols * T;
            const std::size_t c0 = tile % tile_cols * T;
            const std::size_t height = std::min(T, s.rows - r0);
            const std::size_t width = std::min(T, s.cols - c0);
            if (height == T && width == T) {
                transpose_tile_full(in, out, s, r0, c0, buf, streaming);
            } else {
                transpose_tile_plain(in, out, s, r0, c0, height, width);
            }
        }
#if defined(__SSE2__)
        if (streaming) _mm_sfence(); // this thread's streamed tiles are visible before the task ends
#endif
    });
}

} // namespace

void transpose(gpucore_dtype dtype, const void* in, void* out, std::size_t rows, std::size_t cols) {
    const std::size_t size = element_size(dtype);
    if (size == 0) throw BackendError(GPUCORE_ERROR_NOT_SUPPORTED, "transpose: unknown dtype");
    if (rows == 0 || cols == 0) return;
    // A single row or column has the same layout as its transpose.
    if (rows == 1 || cols == 1) return copy_bytes(out, in, rows * cols * size);
    const Shape shape{rows, cols};
    // Only the element's size matters to a transpose: move same-sized unsigned words.
    switch (size) {
    case 2: return transpose_typed(static_cast<const std::uint16_t*>(in), static_cast<std::uint16_t*>(out), shape);
    case 4: return transpose_typed(static_cast<const std::uint32_t*>(in), static_cast<std::uint32_t*>(out), shape);
    case 8: return transpose_typed(static_cast<const std::uint64_t*>(in), static_cast<std::uint64_t*>(out), shape);
    }
    throw BackendError(GPUCORE_ERROR_NOT_SUPPORTED, "transpose: no kernel for " + std::to_string(size) + "-byte elements");
}

namespace {

gpucore_status transpose_slot(gpucore_dtype dtype, const void* in, void* out, std::size_t rows,
                              std::size_t cols, gpucore_stream stream, gpucore_message* msg) {
    return guarded(msg, [&] {
        require_dtype(dtype);
        if (rows == 0 || cols == 0) return;
        to_stream(stream)->enqueue([=] { transpose(dtype, in, out, rows, cols); }, "transpose");
    });
}

} // namespace

void fill_transpose_slots(gpucore_plugin_api& table) noexcept { table.transpose = transpose_slot; }

} // namespace gpucore::cpu

// SPDX-License-Identifier: Apache-2.0
// Element-wise kernels: copy, fill, vector_add.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cpu_kernels.hpp"
#include "cpu_op_slot.hpp"
#include "cpu_parallel.hpp"
#include "cpu_status.hpp"
#include "gpucore/float16.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#endif

namespace gpucore::cpu {
namespace {

template <class T>
void add_span(const T* a, const T* b, T* c, std::size_t n) {
    // c may equal a or b exactly: each element is read before it is written, so this is still a
    // loop without carried dependences and `omp simd` is valid.
#pragma omp simd
    for (std::size_t i = 0; i < n; ++i) c[i] = static_cast<T>(a[i] + b[i]);
}

#if defined(__SSE2__)
// One SSE2 lane group per element type: unaligned loads, add, aligned non-temporal store.
inline void add_stream4(const float* a, const float* b, float* c) {
    _mm_stream_ps(c, _mm_add_ps(_mm_loadu_ps(a), _mm_loadu_ps(b)));
}
inline void add_stream4(const double* a, const double* b, double* c) {
    _mm_stream_pd(c, _mm_add_pd(_mm_loadu_pd(a), _mm_loadu_pd(b)));
}
inline void add_stream4(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* c) {
    const __m128i va = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a));
    const __m128i vb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
    _mm_stream_si128(reinterpret_cast<__m128i*>(c), _mm_add_epi32(va, vb));
}

// add_span with non-temporal stores of whole 64-byte lines (scalar head up to c's line boundary).
template <class T>
void add_span_streaming(const T* a, const T* b, T* c, std::size_t n) {
    constexpr std::size_t kLine = 64 / sizeof(T);
    constexpr std::size_t kLane = 16 / sizeof(T);
    std::size_t head = (64 - reinterpret_cast<std::uintptr_t>(c) % 64) % 64 / sizeof(T);
    if (reinterpret_cast<std::uintptr_t>(c) % sizeof(T) != 0 || head > n) head = n;
    add_span(a, b, c, head);
    std::size_t i = head;
    for (; i + kLine <= n; i += kLine) {
        for (std::size_t j = 0; j < kLine; j += kLane) add_stream4(a + i + j, b + i + j, c + i + j);
    }
    add_span(a + i, b + i, c + i, n - i);
    _mm_sfence(); // make the streamed lines visible before the task reports completion
}
#endif

// half and bfloat16: add in float, round once to T (nearest even). The conversions of float16.hpp
// are branch-free, so the loop can vectorize (GCC does for bfloat16; half without F16C may stay
// scalar); the SIMD clones give it AVX2 where the processor has it.
template <class T>
GPUCORE_CPU_SIMD_CLONES void add_span_float16(const T* a, const T* b, T* c, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) c[i] = T(static_cast<float>(a[i]) + static_cast<float>(b[i]));
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) // clang 14 lacks the "f16c" feature test
#define GPUCORE_CPU_HAS_F16C_PATH 1
// half with the F16C conversions, 8 per instruction, where the processor has them (with AVX2).
// vcvtps2ph rounding to nearest even gives the same bits as float16.hpp's conversion (quiet NaNs
// keep their payload's upper bits, overflow gives infinity). Each group of 8 is read before it
// is written, so c may be a or b.
__attribute__((target("avx2,f16c"))) void add_span_half_f16c(const half* a, const half* b, half* c,
                                                              std::size_t n) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 x = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
        const __m256 y = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(c + i),
                         _mm256_cvtps_ph(_mm256_add_ps(x, y), _MM_FROUND_TO_NEAREST_INT));
    }
    for (; i < n; ++i) c[i] = half(static_cast<float>(a[i]) + static_cast<float>(b[i]));
}
#endif

template <class T>
void vector_add_typed(const T* a, const T* b, T* c, std::size_t n) {
    const std::size_t traffic = 3 * n * sizeof(T);
    if constexpr (!std::is_same_v<accumulator_t<T>, T>) {
        auto span = &add_span_float16<T>;
#if defined(GPUCORE_CPU_HAS_F16C_PATH)
        if constexpr (std::is_same_v<T, half>) {
            if (f16c_enabled()) span = &add_span_half_f16c;
        }
#endif
        parallel_blocks(n, sizeof(T), traffic, [=](std::size_t begin, std::size_t end) {
            span(a + begin, b + begin, c + begin, end - begin);
        });
        return;
    }
#if defined(__SSE2__)
    // Non-temporal stores for the 4- and 8-byte types (half and bfloat16 add in float, per element).
    if constexpr (sizeof(T) >= 4) {
        if (traffic >= streaming_threshold_bytes()) {
            parallel_blocks(n, sizeof(T), traffic, [=](std::size_t begin, std::size_t end) {
                add_span_streaming(a + begin, b + begin, c + begin, end - begin);
            });
            return;
        }
    }
#endif
    parallel_blocks(n, sizeof(T), traffic, [=](std::size_t begin, std::size_t end) {
        add_span(a + begin, b + begin, c + begin, end - begin);
    });
}

template <class T>
void fill_typed(void* dst, std::uint64_t pattern, std::size_t count) {
    T value;
    std::memcpy(&value, &pattern, sizeof(T));
    T* out = static_cast<T*>(dst);
    parallel_blocks(count, sizeof(T), count * sizeof(T), [=](std::size_t begin, std::size_t end) {
#pragma omp simd
        for (std::size_t i = begin; i < end; ++i) out[i] = value;
    });
}

} // namespace

bool is_known_dtype(gpucore_dtype dtype) noexcept { return element_size(dtype) != 0; }

bool is_known_reduce_op(gpucore_reduce_op op) noexcept {
    switch (op) {
    case GPUCORE_REDUCE_SUM:
    case GPUCORE_REDUCE_MIN:
    case GPUCORE_REDUCE_MAX:
    case GPUCORE_REDUCE_PROD: return true;
    }
    return false;
}

void copy_bytes(void* dst, const void* src, std::size_t bytes) {
    if (bytes == 0) return;
    parallel_blocks(bytes, 1, 2 * bytes, [=](std::size_t begin, std::size_t end) {
        std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin, end - begin);
    });
}

void fill_pattern(void* dst, std::uint64_t pattern, std::size_t element_bytes, std::size_t count) {
    // Typed stores need a pointer aligned to the element; anything else is filled bytewise.
    if (reinterpret_cast<std::uintptr_t>(dst) % element_bytes != 0) {
        unsigned char* out = static_cast<unsigned char*>(dst);
        for (std::size_t i = 0; i < count; ++i) std::memcpy(out + i * element_bytes, &pattern, element_bytes);
        return;
    }
    switch (element_bytes) {
    case 1: fill_typed<std::uint8_t>(dst, pattern, count); return;
    case 2: fill_typed<std::uint16_t>(dst, pattern, count); return;
    case 4: fill_typed<std::uint32_t>(dst, pattern, count); return;
    case 8: fill_typed<std::uint64_t>(dst, pattern, count); return;
    default: throw BackendError(GPUCORE_ERROR_INVALID_ARGUMENT, "fill: element size must be 1, 2, 4 or 8");
    }
}

void vector_add(gpucore_dtype dtype, const void* a, const void* b, void* c, std::size_t n) {
    const bool known = visit_dtype(dtype, [&](auto tag) {
        // Integers add as the unsigned type of their width: two's-complement wrap on the same bits.
        using T = typename Wrapping<typename decltype(tag)::type>::type;
        vector_add_typed(static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(c), n);
    });
    if (!known) throw BackendError(GPUCORE_ERROR_NOT_SUPPORTED, "vector_add: unknown dtype");
}

// ---- slots -------------------------------------------------------------------------------------

namespace {

gpucore_status vector_add_slot(gpucore_dtype dtype, const void* a, const void* b, void* c,
                               std::size_t n, gpucore_stream stream, gpucore_message* msg) {
    return guarded(msg, [&] {
        require_dtype(dtype);
        if (n == 0) return;
        to_stream(stream)->enqueue([=] { vector_add(dtype, a, b, c, n); }, "vector_add");
    });
}

} // namespace

void fill_elementwise_slots(gpucore_plugin_api& table) noexcept { table.vector_add = vector_add_slot; }

} // namespace gpucore::cpu

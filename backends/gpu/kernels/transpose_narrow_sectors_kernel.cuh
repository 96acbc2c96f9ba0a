// SPDX-License-Identifier: Apache-2.0
// Narrow transposes of few columns (kNarrow 2..16) with every output row written in whole 32-byte
// sectors. A long side that is not a multiple of a sector's words, or an output that starts inside
// a sector, puts each output row off its sector boundary by its own shift. Stores of a piece of
// such a row leave a partial sector at each end, and the L2 takes more write requests for partial
// sectors than for whole ones: 2-byte words at 4194305 x 16 read 0.70 of a copy in the
// thread-staged kernel and 0.51 with each thread storing its own row's words, where the same stores
// on sector boundaries (4194304 x 16) read 0.87. With rows on sectors the kernel was also faster
// than the thread-staged and the bulk-copy kernels where the policy takes it (not profiled;
// BENCHMARKS.md: few columns through sector windows).
//
// A block moves kPositions consecutive input rows [p0, p0 + kPositions) at a time. Each thread
// loads whole input rows (kNarrow words, in the widest loads their size allows) and puts word n of
// row p at slot p of staged row n in shared memory, so a load is one coalesced row and the stores
// to shared memory need no division. Output row n is then written in a window shifted back by its
// shift s_n onto a sector boundary: [p0 - s_n, p0 + kPositions - s_n), in 16-byte stores. The
// window reaches back at most a sector's words less one, so a block also stages the sector's worth
// of rows before p0 (kHalo, read by its neighbour too: 16 rows per 256 for 2-byte words).
// Neighbouring blocks meet on sector boundaries and every sector is written whole by one block,
// except the array's first and last, whose windows start at 0 and end at the long side. s_n depends
// on n alone (kPositions is a multiple of a sector's words), and each staged row starts where its
// window's first 16 bytes fall on a 16-byte boundary of shared memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../gpu_vendor.hpp"
#include "packed_access.cuh"

namespace gpucore::gpu {

template <class Word, int kNarrow, int kPositions>
struct NarrowSectors {
    static constexpr int kSectorWords = 32 / static_cast<int>(sizeof(Word));
    static constexpr int kVecWords = 16 / static_cast<int>(sizeof(Word)); // one 16-byte store
    static constexpr int kHalo = kSectorWords;                          // keeps staged loads aligned
    static_assert(kPositions % kSectorWords == 0, "every block's window shifts alike");
    // Room for the shift onto a 16-byte boundary, and two words more (the pitch that was timed).
    static constexpr int kPitch = kHalo + kPositions + kVecWords + 2;
    // 16-byte groups per output row; the last block's window reaches up to a sector further.
    static constexpr int kGroups = (kPositions + kSectorWords) / kVecWords;
    static constexpr int kPacks = (kNarrow * kPitch * static_cast<int>(sizeof(Word)) + 15) / 16;
    // The widest load that a row's size allows: rows then start on its boundary (the launcher
    // checks that the input starts on it).
    static constexpr int kRowBytes = kNarrow * static_cast<int>(sizeof(Word));
    static constexpr int kLoadBytes = kRowBytes % 16 == 0 ? 16
                                      : kRowBytes % 8 == 0 ? 8
                                      : kRowBytes % 4 == 0 ? 4
                                                           : static_cast<int>(sizeof(Word));
    static constexpr int kLoadWords = kLoadBytes / static_cast<int>(sizeof(Word));
    using Load = std::conditional_t<
        kLoadBytes == 16, uint4,
        std::conditional_t<kLoadBytes == 8, std::uint64_t, std::conditional_t<kLoadBytes == 4, std::uint32_t, Word>>>;

    // Output row n's shift: the words its window starts before p0.
    __device__ __forceinline__ static int shift(int n, unsigned int out_offset, unsigned int length_mod) {
        return static_cast<int>((out_offset + static_cast<unsigned int>(n) * length_mod) % kSectorWords);
    }
    // Where staged row n starts in shared memory: its window's first word on a 16-byte boundary.
    __device__ __forceinline__ static int row_base(int n, int s) {
        return n * kPitch + ((s - kHalo - n * kPitch) % kVecWords + kVecWords) % kVecWords;
    }
};

// kThreads threads per block; kPositions input rows per block and step (a multiple of a sector's
// words). `length` is the long side (the input's rows).
template <class Word, int kNarrow, int kThreads, int kPositions>
__global__ void __launch_bounds__(kThreads)
    transpose_narrow_sectors_kernel(const Word* in, Word* out, std::size_t length) {
    using Layout = NarrowSectors<Word, kNarrow, kPositions>;
    constexpr int kHalo = Layout::kHalo;
    constexpr int kVecWords = Layout::kVecWords;
    __shared__ Pack<Word> packs[Layout::kPacks];
    Word* const staged = reinterpret_cast<Word*>(packs);
    const int t = static_cast<int>(threadIdx.x);
    const auto out_offset = static_cast<unsigned int>((reinterpret_cast<std::uintptr_t>(out) / sizeof(Word)) %
                                                      Layout::kSectorWords);
    const auto length_mod = static_cast<unsigned int>(length % Layout::kSectorWords);
    int base[kNarrow]; // row_base of every staged row: constant trip counts keep it in registers
#pragma unroll
    for (int n = 0; n < kNarrow; ++n) base[n] = Layout::row_base(n, Layout::shift(n, out_offset, length_mod));

    const std::size_t chunks = (length + kPositions - 1) / kPositions;
    for (std::size_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        const std::size_t p0 = chunk * kPositions;
        const bool first = chunk == 0;
        const bool last = p0 + kPositions >= length;
        const std::size_t begin = first ? 0 : p0 - kHalo; // staged rows [begin, end)
        const std::size_t end = last ? length : p0 + kPositions;
        const int slot0 = static_cast<int>(begin + kHalo - p0); // the slot of row `begin`
        const int count = static_cast<int>(end - begin);
#pragma unroll
        for (int i = 0; i < (kHalo + kPositions + kThreads - 1) / kThreads; ++i) {
            const int r = t + i * kThreads;
            if (r < count) {
                const auto* row = reinterpret_cast<const typename Layout::Load*>(in + (begin + r) * kNarrow);
                Word words[kNarrow];
#pragma unroll
                for (int c = 0; c < kNarrow / Layout::kLoadWords; ++c) {
                    typename Layout::Load x;
                    if constexpr (Layout::kLoadBytes == 16) x = load_readonly_16(row + c);
                    else x = row[c];
                    memcpy(words + c * Layout::kLoadWords, &x, Layout::kLoadBytes);
                }
#pragma unroll
                for (int n = 0; n < kNarrow; ++n) staged[base[n] + slot0 + r] = words[n];
            }
        }
        sync_block();
        for (int g = t; g < kNarrow * Layout::kGroups; g += kThreads) {
            const int n = g / Layout::kGroups;
            const int k = g % Layout::kGroups;
            const int s = Layout::shift(n, out_offset, length_mod);
            // The window [lo, hi) of output row n, and this group's first position in it.
            const auto lo = first ? std::int64_t{0} : static_cast<std::int64_t>(p0) - s;
            const auto hi = last ? static_cast<std::int64_t>(length) : static_cast<std::int64_t>(p0 + kPositions) - s;
            const std::int64_t at = static_cast<std::int64_t>(p0) - s + static_cast<std::int64_t>(k) * kVecWords;
            if (at >= hi || at + kVecWords <= lo) continue;
            const Word* from = staged + Layout::row_base(n, s) + (kHalo - s + k * kVecWords);
            Word* row = out + static_cast<std::size_t>(n) * length;
            if (at >= lo && at + kVecWords <= hi) {
                *reinterpret_cast<uint4*>(row + at) = *reinterpret_cast<const uint4*>(from);
            } else { // the array's first or last group of a row (`at` may lie before the row)
#pragma unroll
                for (int e = 0; e < kVecWords; ++e) {
                    if (at + e >= lo && at + e < hi) row[at + e] = from[e];
                }
            }
        }
        sync_block(); // the stage is refilled by the next chunk
    }
}

} // namespace gpucore::gpu

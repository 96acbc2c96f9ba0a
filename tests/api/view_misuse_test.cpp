// SPDX-License-Identifier: Apache-2.0
// Misuse of views (Buffer::view, BufferView) and wrapped memory (Buffer::wrap): bounds, null and
// moved-from buffers, views that outlive their memory, aliasing rules of each operation and copy,
// and pointers wrap must refuse. Each case is a gpucore::Error naming the operation and the cause;
// run under AddressSanitizer by tools/ci_sanitizers.sh, so none may touch freed memory.
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "api_test_support.hpp"

namespace gpucore::test {
namespace {

constexpr std::size_t size_max = std::numeric_limits<std::size_t>::max();

// ---- what compiles: read-only views cannot be written, outputs must be writable ---------------

template <class View, class = void>
struct can_fill : std::false_type {};
template <class View>
struct can_fill<View, std::void_t<decltype(std::declval<View>().fill(1.0f))>> : std::true_type {};
static_assert(can_fill<BufferView<float>>::value, "a view of float is writable");
static_assert(!can_fill<BufferView<const float>>::value, "a view of const float is read-only");
static_assert(std::is_convertible_v<BufferView<float>, BufferView<const float>>, "writable views read");
static_assert(!std::is_convertible_v<BufferView<const float>, BufferView<float>>, "no write through a const view");
static_assert(std::is_convertible_v<Buffer<float>&, BufferView<float>>, "a buffer is a view of itself");
static_assert(!std::is_convertible_v<const Buffer<float>&, BufferView<float>>, "a const buffer is read-only");
static_assert(detail::is_writable_operand_v<Buffer<float>&> && detail::is_writable_operand_v<BufferView<float>>);
static_assert(!detail::is_writable_operand_v<const Buffer<float>&> &&
              !detail::is_writable_operand_v<BufferView<const float>>);

std::vector<float> iota_values(std::size_t n, float first = 1.0f) {
    std::vector<float> v(n);
    std::iota(v.begin(), v.end(), first);
    return v;
}

// ---- bounds --------------------------------------------------------------------------------------

TEST(ViewMisuse, ViewPastTheEnd) {
    Buffer<float> b(cpu_device(), 10);
    expect_error([&] { (void)b.view(3, 8); }, ErrorCode::invalid_argument, "Buffer::view", "past the end");
    expect_error([&] { (void)b.view(11, 0); }, ErrorCode::invalid_argument, "Buffer::view", "past the end");
    const Buffer<float>& cb = b;
    expect_error([&] { (void)cb.view(10, 1); }, ErrorCode::invalid_argument, "Buffer::view", "past the end");
    EXPECT_EQ(b.view(10, 0).size(), 0u); // an empty view at the end is inside
    EXPECT_EQ(b.view(2, 8).size(), 8u);
}

TEST(ViewMisuse, ViewWhoseEndOverflows) {
    Buffer<float> b(cpu_device(), 10);
    // offset + count wraps around size_t: it must not pass as a small, in-range view.
    expect_error([&] { (void)b.view(2, size_max); }, ErrorCode::invalid_argument, "Buffer::view", "overflows size_t");
    expect_error([&] { (void)b.view(size_max, 2); }, ErrorCode::invalid_argument, "Buffer::view", "overflows size_t");
    expect_error([&] { (void)b.view(5, size_max / 4 + 1); }, ErrorCode::invalid_argument, "Buffer::view",
                 "overflows size_t");
}

TEST(ViewMisuse, SubviewPastTheEndOfItsView) {
    Buffer<int> b(cpu_device(), 10);
    const BufferView<int> v = b.view(2, 5);
    expect_error([&] { (void)v.subview(1, 5); }, ErrorCode::invalid_argument, "BufferView::subview", "past the end");
    expect_error([&] { (void)v.subview(3, size_max); }, ErrorCode::invalid_argument, "BufferView::subview",
                 "overflows size_t");
    EXPECT_EQ(v.subview(1, 4).offset(), 3u);
    expect_error([&] { (void)BufferView<int>().subview(0, 0); }, ErrorCode::invalid_argument,
                 "BufferView::subview", "null view");
}

// ---- null, moved-from, released ------------------------------------------------------------------

TEST(ViewMisuse, ViewOfANullOrMovedFromBuffer) {
    Buffer<float> null_buffer;
    expect_error([&] { (void)null_buffer.view(0, 0); }, ErrorCode::invalid_argument, "Buffer::view",
                 "null (default-constructed or moved-from) Buffer");
    Buffer<float> b(cpu_device(), 4);
    Buffer<float> keeper = std::move(b);
    expect_error([&] { (void)b.view(); }, ErrorCode::invalid_argument, "Buffer::view",
                 "null (default-constructed or moved-from) Buffer");
    expect_error([&] { (void)b.view(0, 1); }, ErrorCode::invalid_argument, "Buffer::view",
                 "null (default-constructed or moved-from) Buffer");
}

TEST(ViewMisuse, NullViewInOperationsAndCopies) {
    Stream s(cpu_device());
    Buffer<float> b(cpu_device(), 4);
    const BufferView<float> null_view;
    EXPECT_FALSE(null_view.valid());
    expect_error([&] { vector_add(s, null_view, b, b); }, ErrorCode::invalid_argument, "vector_add",
                 "buffer 'a' is a null");
    expect_error([&] { (void)null_view.to_vector(); }, ErrorCode::invalid_argument, "Buffer::copy_to_host",
                 "the source is a null");
    expect_error([&] { null_view.fill(1.0f); }, ErrorCode::invalid_argument, "Buffer::fill", "null");
}

TEST(ViewMisuse, ViewThatOutlivesItsBufferIsAnErrorNotAUseAfterFree) {
    Stream s(cpu_device());
    Buffer<float> other(cpu_device(), 3);
    BufferView<float> dangling;
    {
        Buffer<float> b(cpu_device(), 3);
        dangling = b.view(0, 3);
        EXPECT_TRUE(dangling.valid());
    }
    EXPECT_FALSE(dangling.valid());
    const char* cause = "memory was released";
    expect_error([&] { (void)dangling.to_vector(); }, ErrorCode::invalid_argument, "Buffer::copy_to_host", cause);
    expect_error([&] { dangling.copy_from_host(iota_values(3)); }, ErrorCode::invalid_argument,
                 "Buffer::copy_from_host", cause);
    expect_error([&] { dangling.fill(2.0f); }, ErrorCode::invalid_argument, "Buffer::fill", cause);
    expect_error([&] { other.copy_from(dangling); }, ErrorCode::invalid_argument, "Buffer::copy_from", cause);
    expect_error([&] { vector_add(s, other, other, dangling); }, ErrorCode::invalid_argument, "vector_add", cause);
    expect_error([&] { transpose(s, dangling, other, 1, 3); }, ErrorCode::invalid_argument, "transpose", cause);
    expect_error([&] { reduce(s, dangling, other, ReduceOp::sum); }, ErrorCode::invalid_argument, "reduce", cause);
    expect_error([&] { (void)reduce(s, dangling, ReduceOp::max); }, ErrorCode::invalid_argument, "reduce", cause);
    expect_error([&] { reduce_rows(s, dangling, other.view(0, 1), 1, 3, ReduceOp::sum); },
                 ErrorCode::invalid_argument, "reduce_rows", cause);
    expect_error([&] { (void)dangling.subview(0, 1); }, ErrorCode::invalid_argument, "BufferView::subview", cause);
}

TEST(ViewMisuse, AssigningTheBufferReleasesItsViews) {
    Buffer<float> b(cpu_device(), 4);
    const BufferView<const float> v = b.view(1, 2);
    b = Buffer<float>(cpu_device(), 4); // the old memory is freed
    expect_error([&] { (void)v.to_vector(); }, ErrorCode::invalid_argument, "Buffer::copy_to_host",
                 "memory was released");
}

TEST(ViewMisuse, MovingTheBufferKeepsItsViews) {
    Buffer<float> b(cpu_device(), 5);
    b.copy_from_host(iota_values(5));
    const BufferView<const float> v = b.view(1, 3);
    Buffer<float> moved = std::move(b); // the memory moves with it
    EXPECT_TRUE(v.valid());
    EXPECT_EQ(v.to_vector(), (std::vector<float>{2.0f, 3.0f, 4.0f}));
    EXPECT_EQ(v.data(), moved.data() + 1);
}

// ---- aliasing ------------------------------------------------------------------------------------

TEST(ViewMisuse, TransposeOfOverlappingViews) {
    Stream s(cpu_device());
    Buffer<float> b(cpu_device(), 12);
    expect_error([&] { transpose(s, b.view(0, 6), b.view(3, 6), 2, 3); }, ErrorCode::invalid_argument, "transpose",
                 "in and out overlap");
    expect_error([&] { transpose(s, b.view(4, 6), b.view(0, 6), 3, 2); }, ErrorCode::invalid_argument, "transpose",
                 "in and out overlap");
    expect_error([&] { transpose(s, b.view(2, 6), b.view(2, 6), 3, 2); }, ErrorCode::invalid_argument, "transpose",
                 "the same buffer");
    // Adjacent views do not overlap.
    b.copy_from_host(iota_values(12));
    transpose(s, b.view(0, 6), b.view(6, 6), 2, 3);
    s.synchronize();
    EXPECT_EQ(b.view(6, 6).to_vector(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(ViewMisuse, VectorAddWithPartlyOverlappingOutput) {
    Stream s(cpu_device());
    Buffer<int> b(cpu_device(), 10);
    expect_error([&] { vector_add(s, b.view(0, 4), b.view(0, 4), b.view(1, 4)); }, ErrorCode::invalid_argument,
                 "vector_add", "c partly overlaps a");
    expect_error([&] { vector_add(s, b.view(0, 4), b.view(6, 4), b.view(5, 4)); }, ErrorCode::invalid_argument,
                 "vector_add", "c partly overlaps b");
    // c exactly a but partly over b: writing c would change b before it is read.
    expect_error([&] { vector_add(s, b.view(0, 4), b.view(2, 4), b.view(0, 4)); }, ErrorCode::invalid_argument,
                 "vector_add", "c partly overlaps b");
    // Inputs that overlap each other, and c exactly a, are allowed.
    std::vector<int> host(10);
    std::iota(host.begin(), host.end(), 1);
    b.copy_from_host(host);
    vector_add(s, b.view(0, 4), b.view(2, 4), b.view(6, 4)); // [1 2 3 4] + [3 4 5 6]
    vector_add(s, b.view(0, 2), b.view(4, 2), b.view(0, 2)); // [1 2] + [5 6], in place
    s.synchronize();
    EXPECT_EQ(b.to_vector(), (std::vector<int>{6, 8, 3, 4, 5, 6, 4, 6, 8, 10}));
}

TEST(ViewMisuse, ReductionsIntoTheirInput) {
    Stream s(cpu_device());
    Buffer<float> b(cpu_device(), 8);
    expect_error([&] { reduce(s, b.view(0, 8), b.view(7, 1), ReduceOp::sum); }, ErrorCode::invalid_argument, "reduce",
                 "out overlaps in");
    expect_error([&] { reduce(s, b, b, ReduceOp::sum); }, ErrorCode::invalid_argument, "reduce", "out overlaps in");
    expect_error([&] { reduce_rows(s, b.view(0, 6), b.view(5, 2), 2, 3, ReduceOp::max); },
                 ErrorCode::invalid_argument, "reduce_rows", "out overlaps in");
    b.copy_from_host(iota_values(8));
    reduce(s, b.view(0, 7), b.view(7, 1), ReduceOp::sum);
    s.synchronize();
    EXPECT_EQ(b.view(7, 1).to_vector(), std::vector<float>{28.0f});
}

TEST(ViewMisuse, CopiesBetweenOverlappingRanges) {
    Buffer<float> b(cpu_device(), 8);
    b.copy_from_host(iota_values(8));
    expect_error([&] { b.view(1, 4).copy_from(b.view(0, 4)); }, ErrorCode::invalid_argument, "Buffer::copy_from",
                 "partly overlap");
    Stream s(cpu_device());
    expect_error([&] { b.view(0, 4).copy_from_async(s, b.view(3, 4)); }, ErrorCode::invalid_argument,
                 "Buffer::copy_from_async", "partly overlap");
    b.copy_from(b.view(0, 8));             // identical ranges: nothing to do
    b.view(2, 3).copy_from(b.view(2, 3));
    // On the cpu backend device memory is host memory: a host range inside the buffer.
    expect_error([&] { b.view(1, 4).copy_from_host(b.data(), 4); }, ErrorCode::invalid_argument,
                 "Buffer::copy_from_host", "host range overlaps");
    expect_error([&] { b.view(0, 4).copy_to_host(b.data() + 2, 4); }, ErrorCode::invalid_argument,
                 "Buffer::copy_to_host", "host range overlaps");
    EXPECT_EQ(b.to_vector(), iota_values(8)) << "a refused copy changed the buffer";
}

TEST(ViewMisuse, LengthsOfViewsAreChecked) {
    Stream s(cpu_device());
    Buffer<float> b(cpu_device(), 10), c(cpu_device(), 10);
    expect_error([&] { vector_add(s, b.view(0, 3), b.view(3, 3), c.view(0, 4)); }, ErrorCode::invalid_argument,
                 "vector_add", "buffer lengths differ");
    expect_error([&] { c.view(0, 4).copy_from(b.view(0, 5)); }, ErrorCode::invalid_argument, "Buffer::copy_from",
                 "buffer sizes differ");
    const std::vector<float> short_host(2);
    expect_error([&] { b.view(1, 3).copy_from_host(short_host); }, ErrorCode::invalid_argument,
                 "Buffer::copy_from_host", "host range is shorter");
    expect_error([&] { transpose(s, b.view(0, 6), c.view(0, 5), 2, 3); }, ErrorCode::invalid_argument, "transpose",
                 "out holds 5 elements");
}

// ---- wrap ----------------------------------------------------------------------------------------

TEST(WrapMisuse, NullPointerWithElements) {
    expect_error([&] { (void)Buffer<float>::wrap(cpu_device(), nullptr, 4); }, ErrorCode::invalid_argument,
                 "Buffer::wrap", "null pointer with 4 elements");
    const Buffer<float> empty = Buffer<float>::wrap(cpu_device(), nullptr, 0);
    EXPECT_TRUE(empty.valid());
    EXPECT_TRUE(empty.empty());
    EXPECT_EQ(empty.to_vector(), std::vector<float>{});
}

TEST(WrapMisuse, CountWhoseBytesOverflow) {
    std::vector<double> host(4);
    expect_error([&] { (void)Buffer<double>::wrap(cpu_device(), host.data(), size_max / 4); },
                 ErrorCode::invalid_argument, "Buffer::wrap", "overflow size_t");
}

TEST(WrapMisuse, MisalignedPointer) {
    std::vector<float> host(8);
    float* odd = reinterpret_cast<float*>(reinterpret_cast<std::uintptr_t>(host.data()) + 2);
    expect_error([&] { (void)Buffer<float>::wrap(cpu_device(), odd, 2); }, ErrorCode::invalid_argument,
                 "Buffer::wrap", "not aligned to its element");
}

TEST(WrapMisuse, NullDevice) {
    std::vector<float> host(2);
    expect_error([&] { (void)Buffer<float>::wrap(Device(), host.data(), 2); }, ErrorCode::invalid_argument,
                 "Buffer::wrap", "null");
}

TEST(WrapMisuse, ForeignPointerThatIsNotReadWriteHostMemory) {
    // The lowest pages are never mapped (vm.mmap_min_addr).
    float* unmapped = reinterpret_cast<float*>(std::uintptr_t{0x1000});
    expect_error([&] { (void)Buffer<float>::wrap(cpu_device(), unmapped, 4); }, ErrorCode::invalid_argument,
                 "Buffer::wrap", "foreign pointer");
    // No elements: the address itself is still checked.
    expect_error([&] { (void)Buffer<float>::wrap(cpu_device(), unmapped, 0); }, ErrorCode::invalid_argument,
                 "Buffer::wrap", "not readable and writable host memory");
    // Three pages: read-write, reserved without access (as GPU runtimes reserve device address
    // ranges), read-only.
    const long page = sysconf(_SC_PAGESIZE);
    ASSERT_GT(page, 0);
    const std::size_t bytes = static_cast<std::size_t>(page), floats = bytes / sizeof(float);
    void* mapping = mmap(nullptr, 3 * bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(mapping, MAP_FAILED);
    char* base = static_cast<char*>(mapping);
    ASSERT_EQ(mprotect(base + bytes, bytes, PROT_NONE), 0);
    ASSERT_EQ(mprotect(base + 2 * bytes, bytes, PROT_READ), 0);
    float* read_write = reinterpret_cast<float*>(base);
    float* reserved = reinterpret_cast<float*>(base + bytes);
    float* read_only = reinterpret_cast<float*>(base + 2 * bytes);
    expect_error([&] { (void)Buffer<float>::wrap(cpu_device(), reserved, 4); }, ErrorCode::invalid_argument,
                 "Buffer::wrap", "not readable and writable host memory");
    expect_error([&] { (void)Buffer<float>::wrap(cpu_device(), read_only, 4); }, ErrorCode::invalid_argument,
                 "Buffer::wrap", "foreign pointer");
    // A range that starts in read-write memory and runs past it.
    expect_error([&] { (void)Buffer<float>::wrap(cpu_device(), read_write, floats + 1); },
                 ErrorCode::invalid_argument, "Buffer::wrap", "foreign pointer");
    EXPECT_EQ(Buffer<float>::wrap(cpu_device(), read_write, floats).size(), floats);
    munmap(mapping, 3 * bytes);
}

// `pages` fresh read-write pages (unmapped when the test ends).
struct Pages {
    explicit Pages(std::size_t count) : bytes(count * page_bytes()) {
        void* mapping = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapping == MAP_FAILED) throw std::runtime_error("mmap failed");
        base = static_cast<char*>(mapping);
    }
    ~Pages() { munmap(base, bytes); }
    static std::size_t page_bytes() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }
    char* page(std::size_t i) const { return base + i * page_bytes(); }
    std::size_t bytes;
    char* base;
};

TEST(WrapMisuse, EveryPageOfTheRangeIsChecked) {
    // A hole anywhere inside (unmapped, reserved without access, read-only), with the first and
    // last byte in read-write memory, at random sizes and offsets.
    std::mt19937 random(7321);
    const std::size_t page = Pages::page_bytes();
    for (int round = 0; round < 60; ++round) {
        const std::size_t count = 3 + random() % 6;
        Pages pages(count);
        const std::size_t hole = 1 + random() % (count - 2);
        const int kind = static_cast<int>(random() % 3);
        SCOPED_TRACE("pages " + std::to_string(count) + ", hole at " + std::to_string(hole) + ", kind " +
                     std::to_string(kind));
        const int made = kind == 0   ? munmap(pages.page(hole), page)
                         : kind == 1 ? mprotect(pages.page(hole), page, PROT_NONE)
                                     : mprotect(pages.page(hole), page, PROT_READ);
        ASSERT_EQ(made, 0);
        const std::size_t head = (random() % (page / sizeof(float))) * sizeof(float);
        const std::size_t tail = (random() % (page / sizeof(float))) * sizeof(float);
        float* start = reinterpret_cast<float*>(pages.base + head);
        const std::size_t floats = (count * page - head - tail) / sizeof(float);
        expect_error([&] { (void)Buffer<float>::wrap(cpu_device(), start, floats); }, ErrorCode::invalid_argument,
                     "Buffer::wrap", "foreign pointer");
        // The pages before the hole are fine.
        const std::size_t before = (hole * page - head) / sizeof(float);
        EXPECT_EQ(Buffer<float>::wrap(cpu_device(), start, before).size(), before);
        if (kind == 0) {
            // Mapped again, so that ~Pages unmaps one whole range.
            ASSERT_NE(mmap(pages.page(hole), page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                           0),
                      MAP_FAILED);
        }
    }
}

TEST(WrapMisuse, RangeOverAdjacentReadWriteMappingsIsAccepted) {
    Pages pages(4);
    const std::size_t page = Pages::page_bytes();
    // A shared page in the middle: a separate mapping the kernel cannot merge with its neighbours.
    ASSERT_NE(mmap(pages.page(1), page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
              MAP_FAILED);
    float* start = reinterpret_cast<float*>(pages.base + 16);
    const std::size_t floats = (4 * page - 32) / sizeof(float);
    Buffer<float> wrapped = Buffer<float>::wrap(cpu_device(), start, floats);
    wrapped.fill(2.0f);
    EXPECT_EQ(wrapped.to_vector().back(), 2.0f);
    EXPECT_EQ(reinterpret_cast<float*>(pages.page(2))[0], 2.0f);
}

TEST(WrapMisuse, ACheckThatCannotBeMadeRefuses) {
    // With the descriptor table full, the process's memory map cannot be opened: nothing is
    // accepted, neither valid memory nor an address that was never mapped.
#if defined(__SANITIZE_ADDRESS__)
    // The sanitizers' own checks need descriptors (UBSan's vptr check probes memory through a
    // pipe): with none left they report the exception object the refusal throws as invalid.
    GTEST_SKIP() << "needs a process whose runtime works with the descriptor table full";
#endif
    const Device device = cpu_device();
    std::vector<float> host(64);
    struct rlimit saved {};
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
    struct rlimit lowered = saved;
    lowered.rlim_cur = std::min<rlim_t>(saved.rlim_cur, 256);
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);
    std::vector<int> filler;
    for (int fd; (fd = dup(0)) >= 0;) filler.push_back(fd);
    const int full_errno = errno;
    std::string valid_cause, bogus_cause;
    try {
        (void)Buffer<float>::wrap(device, host.data(), host.size());
    } catch (const Error& e) {
        valid_cause = std::string(to_string(e.code())) + ": " + e.what();
    }
    try {
        (void)Buffer<float>::wrap(device, reinterpret_cast<float*>(std::uintptr_t{0x1000}), 1024);
    } catch (const Error& e) {
        bogus_cause = std::string(to_string(e.code())) + ": " + e.what();
    }
    for (const int fd : filler) close(fd);
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
    ASSERT_EQ(full_errno, EMFILE);
    EXPECT_THAT(valid_cause, ::testing::HasSubstr("invalid_argument"));
    EXPECT_THAT(valid_cause, ::testing::HasSubstr("cannot check the range: cannot open /proc/self/maps"));
    EXPECT_THAT(bogus_cause, ::testing::HasSubstr("cannot check the range: cannot open /proc/self/maps"));
    // And with descriptors free again, the same valid memory is accepted.
    EXPECT_EQ(Buffer<float>::wrap(device, host.data(), host.size()).size(), host.size());
}

TEST(WrapMisuse, BackendWithoutPointerValidationRefuses) {
    // The template plugin has no pointer_device slot: an unvalidated pointer is not accepted.
    std::vector<float> host(4);
    expect_error([&] { (void)Buffer<float>::wrap(template_device(), host.data(), host.size()); },
                 ErrorCode::not_supported, "Buffer::wrap", "pointer_device");
}

TEST(WrapMisuse, WrappedHostMemoryWorksAndIsNeverFreed) {
    std::vector<float> host = iota_values(9);
    Stream s(cpu_device());
    {
        Buffer<float> wrapped = Buffer<float>::wrap(cpu_device(), host.data() + 1, 7);
        EXPECT_FALSE(wrapped.owns_memory());
        EXPECT_EQ(wrapped.kind(), MemoryKind::device);
        EXPECT_EQ(wrapped.data(), host.data() + 1);
        vector_add(s, wrapped.view(0, 3), wrapped.view(4, 3), wrapped.view(0, 3));
        EXPECT_EQ(reduce(s, wrapped, ReduceOp::sum), 2.0f + 3 + 4 + 5 + 6 + 7 + 8 + (6 + 7 + 8));
        Buffer<float> moved = std::move(wrapped);
        EXPECT_FALSE(moved.owns_memory());
    }
    // The wrappers are gone and did not free the vector's memory (AddressSanitizer would report a
    // bad free); the result is in place.
    EXPECT_EQ(host, (std::vector<float>{1, 2 + 6, 3 + 7, 4 + 8, 5, 6, 7, 8, 9}));
}

} // namespace
} // namespace gpucore::test

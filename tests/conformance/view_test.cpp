// SPDX-License-Identifier: Apache-2.0
// Views (Buffer::view, BufferView) and wrapped memory (Buffer::wrap) on every device x dtype: each
// operation and copy on views at odd element offsets (1, 3: addresses aligned to the element only)
// and at aligned ones (the vector fast paths), odd counts, views of one buffer side by side, and
// buffers wrapped around memory gpucore did not allocate. Every buffer around a view is poisoned:
// an element outside the view that changes, or one inside that is never written, fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cases.hpp"
#include "compare.hpp"
#include "gpucore/gpucore.hpp"
#include "random_inputs.hpp"

namespace conformance {
namespace {

class Views : public testing::TestWithParam<DtypeCase> {};

// Elements kept poisoned after each view, so a write past its end shows.
constexpr std::size_t kTrailing = 3;

// A buffer of offset + values.size() + kTrailing elements: `values` at `offset`, poison around.
template <class T>
gpucore::Buffer<T> placed(const gpucore::Device& device, const std::vector<T>& values, std::size_t offset,
                          T poison) {
    std::vector<T> whole(offset + values.size() + kTrailing, poison);
    std::copy(values.begin(), values.end(), whole.begin() + static_cast<std::ptrdiff_t>(offset));
    gpucore::Buffer<T> buffer(device, whole.size());
    buffer.copy_from_host(whole);
    return buffer;
}

// The whole of `buffer`: `want` at `offset`, poison elsewhere.
template <class T, class U>
testing::AssertionResult holds(const gpucore::Buffer<T>& buffer, std::size_t offset, const std::vector<U>& want,
                               T poison) {
    std::vector<T> expected(buffer.size(), poison);
    for (std::size_t i = 0; i < want.size(); ++i) expected[offset + i] = static_cast<T>(want[i]);
    return elements_match(buffer.to_vector(), expected, poison);
}

// Some devices refuse views at an offset (a plugin built against ABI < 1.2: not_supported).
bool offset_views_supported(const gpucore::Device& device) {
    gpucore::Buffer<float> buffer(device, 4);
    try {
        buffer.view(1, 2).fill(1.0f);
        return true;
    } catch (const gpucore::Error& e) {
        if (e.code() != gpucore::ErrorCode::not_supported) throw;
        return false;
    }
}

#define SKIP_WITHOUT_OFFSET_VIEWS(device)                                                          \
    if (!offset_views_supported(device)) GTEST_SKIP() << "the device's plugin refuses views at an offset (ABI < 1.2)"

template <class T>
void check_vector_add(const gpucore::Device& device) {
    CONFORMANCE_SEEDED_RNG(rng);
    // Equal offsets (a scalar head, then the vector path), unequal ones (the scalar path), and
    // offsets on a 16-byte boundary (the vector path from the first element).
    const std::size_t aligned = 16 / sizeof(T);
    const std::size_t offsets[][3] = {{1, 1, 1}, {3, 3, 3}, {1, 3, 0}, {0, 1, 3}, {aligned, aligned, 2 * aligned}};
    for (const std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{4099}}) {
        for (const auto& o : offsets) {
            SCOPED_TRACE("n=" + std::to_string(n) + " offsets a=" + std::to_string(o[0]) + " b=" +
                         std::to_string(o[1]) + " c=" + std::to_string(o[2]));
            const auto a = random_values<T>(rng, Pattern::general, n, n);
            const auto b = random_values<T>(rng, Pattern::general, n, n);
            const auto want = reference::vector_add(a, b);
            const T poison = sentinel_avoiding<T>(want);
            const auto da = placed(device, a, o[0], poison);
            const auto db = placed(device, b, o[1], poison);
            auto dc = placed(device, std::vector<T>(n, poison), o[2], poison);
            gpucore::Stream stream(device);
            gpucore::vector_add(stream, da.view(o[0], n), db.view(o[1], n), dc.view(o[2], n));
            stream.synchronize();
            EXPECT_TRUE(holds(dc, o[2], want, poison));
            EXPECT_TRUE(holds(da, o[0], a, poison)) << "an input changed";
        }
    }
}

template <class T>
void check_vector_add_in_place(const gpucore::Device& device) {
    CONFORMANCE_SEEDED_RNG(rng);
    const std::size_t n = 1001;
    const auto a = random_values<T>(rng, Pattern::general, n, n);
    const auto b = random_values<T>(rng, Pattern::general, n, n);
    const auto want = reference::vector_add(a, b);
    const T poison = sentinel_avoiding<T>(want);
    // a and b side by side in one buffer; c = a exactly.
    std::vector<T> both = a;
    both.insert(both.end(), b.begin(), b.end());
    auto buffer = placed(device, both, 1, poison);
    gpucore::Stream stream(device);
    auto va = buffer.view(1, n);
    gpucore::vector_add(stream, va, buffer.view(1 + n, n), va);
    stream.synchronize();
    std::vector<T> expected = want;
    expected.insert(expected.end(), b.begin(), b.end());
    EXPECT_TRUE(holds(buffer, 1, expected, poison));
}

template <class T>
void check_transpose(const gpucore::Device& device) {
    CONFORMANCE_SEEDED_RNG(rng);
    const std::size_t aligned = 16 / sizeof(T);
    const Shape shapes[] = {{3, 5}, {33, 65}, {64, 32}, {1, 7}};
    for (const Shape& s : shapes) {
        for (const std::size_t in_offset : {std::size_t{1}, std::size_t{3}, aligned}) {
            const std::size_t out_offset = in_offset == aligned ? 2 * aligned : in_offset + 1;
            SCOPED_TRACE(std::to_string(s.rows) + "x" + std::to_string(s.cols) + " in at " +
                         std::to_string(in_offset) + ", out at " + std::to_string(out_offset));
            const std::size_t n = s.rows * s.cols;
            const auto in = random_values<T>(rng, Pattern::general, n, n);
            const auto want = reference::transpose(in, s.rows, s.cols);
            const T poison = sentinel_avoiding<T>(want);
            const auto din = placed(device, in, in_offset, poison);
            auto dout = placed(device, std::vector<T>(n, poison), out_offset, poison);
            gpucore::Stream stream(device);
            gpucore::transpose(stream, din.view(in_offset, n), dout.view(out_offset, n), s.rows, s.cols);
            stream.synchronize();
            EXPECT_TRUE(holds(dout, out_offset, want, poison));
        }
    }
}

// Inputs whose reduction is exact in any order (exact_sum, exact_product; min and max always are).
template <class T>
std::vector<T> exact_inputs(Rng& rng, gpucore::ReduceOp op, std::size_t n, std::size_t segment) {
    switch (op) {
    case gpucore::ReduceOp::sum: return random_values<T>(rng, Pattern::exact_sum, n, segment);
    case gpucore::ReduceOp::prod: return random_values<T>(rng, Pattern::exact_product, n, segment);
    default: return random_values<T>(rng, Pattern::general, n, segment);
    }
}

template <class T>
void check_reduce(const gpucore::Device& device) {
    CONFORMANCE_SEEDED_RNG(rng);
    for (const gpucore::ReduceOp op : kAllReduceOps) {
        for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{5001}}) {
            for (const std::size_t offset : {std::size_t{1}, std::size_t{3}}) {
                SCOPED_TRACE(std::string(gpucore::to_string(op)) + " n=" + std::to_string(n) + " at " +
                             std::to_string(offset));
                const auto in = exact_inputs<T>(rng, op, n, n);
                const std::vector<T> want{static_cast<T>(reference::reduce(in.data(), n, op).value)};
                const T poison = sentinel_avoiding<T>(want);
                const auto din = placed(device, in, offset, poison);
                auto dout = placed(device, std::vector<T>(1, poison), offset + 1, poison);
                gpucore::Stream stream(device);
                gpucore::reduce(stream, din.view(offset, n), dout.view(offset + 1, 1), op);
                stream.synchronize();
                EXPECT_TRUE(holds(dout, offset + 1, want, poison));
                EXPECT_TRUE(same_value(gpucore::reduce(stream, din.view(offset, n), op), want[0]))
                    << "the value-returning form";
            }
        }
    }
}

template <class T>
void check_reduce_rows(const gpucore::Device& device) {
    CONFORMANCE_SEEDED_RNG(rng);
    const Shape shapes[] = {{5, 7}, {3, 1001}, {70, 33}, {4, 0}};
    for (const gpucore::ReduceOp op : kAllReduceOps) {
        for (const Shape& s : shapes) {
            SCOPED_TRACE(std::string(gpucore::to_string(op)) + " " + std::to_string(s.rows) + "x" +
                         std::to_string(s.cols));
            const std::size_t n = s.rows * s.cols;
            const auto in = exact_inputs<T>(rng, op, n, s.cols);
            const auto rows = reference::reduce_rows(in, s.rows, s.cols, op);
            std::vector<T> want;
            for (const auto& r : rows) want.push_back(static_cast<T>(r.value));
            const T poison = sentinel_avoiding<T>(want);
            const auto din = placed(device, in, 3, poison);
            auto dout = placed(device, std::vector<T>(s.rows, poison), 1, poison);
            gpucore::Stream stream(device);
            gpucore::reduce_rows(stream, din.view(3, n), dout.view(1, s.rows), s.rows, s.cols, op);
            stream.synchronize();
            EXPECT_TRUE(holds(dout, 1, want, poison));
        }
    }
}

template <class T>
void check_copies(const gpucore::Device& device) {
    CONFORMANCE_SEEDED_RNG(rng);
    const std::size_t n = 1027;
    const auto host = random_values<T>(rng, Pattern::general, n, n);
    const T poison = sentinel_avoiding<T>(host);
    gpucore::Stream stream(device);

    // Host -> view, view -> host (blocking and asynchronous).
    auto a = placed(device, std::vector<T>(n, poison), 3, poison);
    a.view(3, n).copy_from_host(host);
    EXPECT_TRUE(holds(a, 3, host, poison)) << "copy_from_host into a view";
    std::vector<T> back(n + 2, poison);
    a.view(3, n).copy_to_host(back.data(), back.size());
    std::vector<T> want_back = host;
    want_back.resize(n + 2, poison);
    EXPECT_TRUE(elements_match(back, want_back, poison)) << "copy_to_host from a view";

    auto b = placed(device, std::vector<T>(n, poison), 1, poison);
    b.view(1, n).copy_from_host_async(stream, host.data(), host.size());
    std::vector<T> async_back(n, poison);
    b.view(1, n).copy_to_host_async(stream, async_back.data(), async_back.size());
    stream.synchronize();
    EXPECT_TRUE(elements_match(async_back, host, poison)) << "asynchronous copies of views";
    EXPECT_TRUE(holds(b, 1, host, poison));

    // View -> view in another buffer, and between two parts of one buffer.
    auto c = placed(device, std::vector<T>(n, poison), 2, poison);
    c.view(2, n).copy_from(a.view(3, n));
    EXPECT_TRUE(holds(c, 2, host, poison)) << "view.copy_from(view)";
    gpucore::Buffer<T> halves(device, 2 * n + 1);
    halves.fill(poison);
    halves.view(1, n).copy_from(a.view(3, n));
    halves.view(n + 1, n).copy_from_async(stream, halves.view(1, n));
    stream.synchronize();
    std::vector<T> twice = host;
    twice.insert(twice.end(), host.begin(), host.end());
    EXPECT_TRUE(holds(halves, 1, twice, poison)) << "copy between two parts of one buffer";

    // Buffer <-> view.
    gpucore::Buffer<T> whole(device, n);
    whole.copy_from(a.view(3, n));
    EXPECT_TRUE(elements_match(whole.to_vector(), host, poison)) << "buffer.copy_from(view)";
    auto d = placed(device, std::vector<T>(n, poison), 3, poison);
    d.view(3, n).copy_from(whole);
    EXPECT_TRUE(holds(d, 3, host, poison)) << "view.copy_from(buffer)";
    EXPECT_TRUE(elements_match(d.view(3, n).to_vector(), host, poison)) << "view.to_vector()";
    // A subview: elements [5, 5 + 17) of the view starting at 3.
    const std::vector<T> middle(host.begin() + 5, host.begin() + 22);
    EXPECT_TRUE(elements_match(d.view(3, n).subview(5, 17).to_vector(), middle, poison)) << "subview";
}

template <class T>
void check_fill(const gpucore::Device& device) {
    CONFORMANCE_SEEDED_RNG(rng);
    const auto values = random_values<T>(rng, Pattern::general, 2, 2);
    const T poison = sentinel_avoiding<T>(values);
    for (const std::size_t offset : {std::size_t{1}, std::size_t{3}, 16 / sizeof(T)}) {
        for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{4097}}) {
            SCOPED_TRACE("n=" + std::to_string(n) + " at " + std::to_string(offset));
            auto buffer = placed(device, std::vector<T>(n, poison), offset, poison);
            buffer.view(offset, n).fill(values[0]);
            EXPECT_TRUE(holds(buffer, offset, std::vector<T>(n, values[0]), poison)) << "fill";
            gpucore::Stream stream(device);
            buffer.view(offset, n).fill_async(stream, values[1]);
            stream.synchronize();
            EXPECT_TRUE(holds(buffer, offset, std::vector<T>(n, values[1]), poison)) << "fill_async";
        }
    }
}

// The chunked pipeline of the streams example: one buffer per array, one view per chunk, chunks
// alternating between two streams.
template <class T>
void check_chunked_pipeline(const gpucore::Device& device) {
    CONFORMANCE_SEEDED_RNG(rng);
    const std::size_t n = 10007, chunks = 4, chunk = (n + chunks - 1) / chunks;
    const auto a = random_values<T>(rng, Pattern::general, n, n);
    const auto b = random_values<T>(rng, Pattern::general, n, n);
    const auto want = reference::vector_add(a, b);
    const T poison = sentinel_avoiding<T>(want);
    gpucore::Buffer<T> da(device, n), db(device, n), dc(device, n);
    std::vector<T> c(n, poison);
    gpucore::Stream streams[2] = {gpucore::Stream(device), gpucore::Stream(device)};
    for (std::size_t k = 0; k < chunks; ++k) {
        const std::size_t begin = k * chunk, count = std::min(chunk, n - begin);
        gpucore::Stream& s = streams[k % 2];
        da.view(begin, count).copy_from_host_async(s, a.data() + begin, count);
        db.view(begin, count).copy_from_host_async(s, b.data() + begin, count);
        gpucore::vector_add(s, da.view(begin, count), db.view(begin, count), dc.view(begin, count));
        dc.view(begin, count).copy_to_host_async(s, c.data() + begin, count);
    }
    for (auto& s : streams) s.synchronize();
    EXPECT_TRUE(elements_match(c, want, poison));
}

// Buffer::wrap over memory gpucore allocated (a device address it did not hand out as a buffer
// start), then used in an operation and copies; the wrapper frees nothing.
template <class T>
void check_wrap(const gpucore::Device& device) {
    CONFORMANCE_SEEDED_RNG(rng);
    const std::size_t n = 515;
    const auto a = random_values<T>(rng, Pattern::general, n, n);
    const auto b = random_values<T>(rng, Pattern::general, n, n);
    const auto want = reference::vector_add(a, b);
    const T poison = sentinel_avoiding<T>(want);
    auto owner = placed(device, std::vector<T>(n, poison), 1, poison);
    {
        auto wrapped = gpucore::Buffer<T>::wrap(device, owner.data() + 1, n);
        EXPECT_FALSE(wrapped.owns_memory());
        EXPECT_EQ(wrapped.size(), n);
        EXPECT_EQ(wrapped.device(), device);
        wrapped.copy_from_host(a);
        const auto db = placed(device, b, 3, poison);
        gpucore::Stream stream(device);
        gpucore::vector_add(stream, wrapped, db.view(3, n), wrapped);
        stream.synchronize();
        EXPECT_TRUE(elements_match(wrapped.to_vector(), want, poison)) << "through the wrapper";
    }
    // The wrapper is gone; the memory is still the owner's, with the result in place.
    EXPECT_TRUE(holds(owner, 1, want, poison)) << "after the wrapper's destruction";
}

template <class F>
void for_case(const DtypeCase& c, F&& check) {
    SKIP_WITHOUT_OFFSET_VIEWS(c.device);
    with_dtype(c.dtype, [&](auto tag) { check(tag); });
}

TEST_P(Views, VectorAddAtOddOffsets) {
    for_case(GetParam(), [&](auto tag) { check_vector_add<typename decltype(tag)::type>(GetParam().device); });
}
TEST_P(Views, VectorAddInPlaceOnViews) {
    for_case(GetParam(), [&](auto tag) { check_vector_add_in_place<typename decltype(tag)::type>(GetParam().device); });
}
TEST_P(Views, TransposeAtOddOffsets) {
    for_case(GetParam(), [&](auto tag) { check_transpose<typename decltype(tag)::type>(GetParam().device); });
}
TEST_P(Views, ReduceAtOddOffsets) {
    for_case(GetParam(), [&](auto tag) { check_reduce<typename decltype(tag)::type>(GetParam().device); });
}
TEST_P(Views, ReduceRowsAtOddOffsets) {
    for_case(GetParam(), [&](auto tag) { check_reduce_rows<typename decltype(tag)::type>(GetParam().device); });
}
TEST_P(Views, CopiesOfViews) {
    for_case(GetParam(), [&](auto tag) { check_copies<typename decltype(tag)::type>(GetParam().device); });
}
TEST_P(Views, FillOfViews) {
    for_case(GetParam(), [&](auto tag) { check_fill<typename decltype(tag)::type>(GetParam().device); });
}
TEST_P(Views, ChunkedPipeline) {
    for_case(GetParam(), [&](auto tag) { check_chunked_pipeline<typename decltype(tag)::type>(GetParam().device); });
}
TEST_P(Views, WrapOfDeviceMemory) {
    for_case(GetParam(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        try {
            check_wrap<T>(GetParam().device);
        } catch (const gpucore::Error& e) {
            if (e.code() != gpucore::ErrorCode::not_supported) throw;
            EXPECT_EQ(e.operation(), "Buffer::wrap");
            GTEST_SKIP() << "the device's plugin cannot validate pointers: " << e.what();
        }
    });
}

// Addresses a device must refuse: never mapped; pageable host memory (on a backend whose device
// memory is not host memory); memory of another device of the same backend.
TEST_P(Views, WrapRefusesForeignPointers) {
    const gpucore::Device& device = GetParam().device;
    const auto expect_foreign = [&](float* ptr, std::size_t n, const std::string& what) {
        try {
            (void)gpucore::Buffer<float>::wrap(device, ptr, n);
            ADD_FAILURE() << "wrap accepted " << what;
        } catch (const gpucore::Error& e) {
            if (e.code() == gpucore::ErrorCode::not_supported) GTEST_SKIP() << e.what();
            EXPECT_EQ(e.code(), gpucore::ErrorCode::invalid_argument) << e.what();
            EXPECT_EQ(e.operation(), "Buffer::wrap") << e.what();
            EXPECT_NE(e.cause().find("foreign pointer"), std::string::npos) << e.what();
        }
    };
    expect_foreign(reinterpret_cast<float*>(std::uintptr_t{0x1000}), 4, "an address that is never mapped");
    if (device.backend_name() != "cpu") {
        std::vector<float> pageable(16);
        expect_foreign(pageable.data(), pageable.size(), "pageable host memory");
    }
    for (const gpucore::Device& other : gpucore::devices()) {
        if (other == device || other.backend_name() != device.backend_name()) continue;
        gpucore::Buffer<float> elsewhere(other, 16);
        expect_foreign(elsewhere.data(), elsewhere.size(), "memory of " + other.to_string());
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, Views, testing::ValuesIn(dtype_cases()), CaseName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Views);

} // namespace
} // namespace conformance

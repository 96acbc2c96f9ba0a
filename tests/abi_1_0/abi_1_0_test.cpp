// SPDX-License-Identifier: Apache-2.0
// The contract's promise: a plugin built against ABI 1.0 loads in this core and runs every
// operation; slots it lacks (beyond its struct_size) or leaves NULL (memory_info,
// Stream::native_handle) give not_supported naming the backend and the operation, and the rest
// keeps working. GPUCORE_PLUGIN_PATH points at the fixtures (see CMakeLists.txt):
// "abi10-template" (the 1.0 template, built against the 1.0 header) and "partial" (today's
// template with transpose, reduce and reduce_rows left NULL).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "gpucore/gpucore.hpp"

namespace {

using gpucore::Buffer;
using gpucore::Device;
using gpucore::ReduceOp;
using gpucore::Stream;

Device device_of(const std::string& backend) {
    for (const Device& device : gpucore::devices()) {
        if (device.backend_name() == backend) return device;
    }
    std::string known;
    for (const auto& info : gpucore::backends()) known += info.name + " (" + info.reason + ") ";
    ADD_FAILURE() << "no device of backend '" << backend << "'; backends: " << known;
    return {};
}

// Small integers: every float result below is exact, so results compare with ==.
template <class T>
std::vector<T> random_values(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> dist(-50, 50);
    std::vector<T> values(n);
    for (T& v : values) v = static_cast<T>(std::is_signed_v<T> ? dist(rng) : dist(rng) + 50);
    return values;
}

template <class T>
auto wrapping(T value) {
    if constexpr (std::is_integral_v<T>) return static_cast<std::make_unsigned_t<T>>(value);
    else return value;
}

template <class T>
T reference_reduce(ReduceOp op, const T* x, std::size_t n) {
    T acc = op == ReduceOp::sum ? T(0) : op == ReduceOp::prod ? T(1) : x[0];
    for (std::size_t i = 0; i < n; ++i) {
        switch (op) {
        // Integer sums and products wrap, as the contract says: compute them in the unsigned type
        // of the same width (signed overflow is undefined).
        case ReduceOp::sum: acc = static_cast<T>(wrapping(acc) + wrapping(x[i])); break;
        case ReduceOp::prod: acc = static_cast<T>(wrapping(acc) * wrapping(x[i])); break;
        case ReduceOp::min: acc = std::min(acc, x[i]); break;
        case ReduceOp::max: acc = std::max(acc, x[i]); break;
        }
    }
    return acc;
}

// Runs vector_add, transpose, reduce (every op) and reduce_rows on `device` with awkward sizes
// and checks each against the host reference above.
template <class T>
void run_every_op(const Device& device) {
    SCOPED_TRACE(std::string("dtype ") + gpucore::to_string(gpucore::dtype_of<T>()));
    Stream stream(device);
    const std::size_t rows = 37, cols = 53, n = rows * cols;
    const std::vector<T> a = random_values<T>(n, 1), b = random_values<T>(n, 2);
    Buffer<T> da(device, n), db(device, n), dc(device, n);
    da.copy_from_host(a);
    db.copy_from_host(b);

    dc.fill(T(77));
    gpucore::vector_add(stream, da, db, dc);
    stream.synchronize();
    const std::vector<T> sum = dc.to_vector();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(sum[i], static_cast<T>(a[i] + b[i])) << "vector_add at " << i;

    dc.fill(T(77));
    gpucore::transpose(stream, da, dc, rows, cols);
    stream.synchronize();
    const std::vector<T> t = dc.to_vector();
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) ASSERT_EQ(t[c * rows + r], a[r * cols + c]) << "transpose";
    }

    // Products of a few small values stay exact; sums, min and max use the whole input.
    const std::size_t short_n = 7;
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max, ReduceOp::prod}) {
        const std::size_t count = op == ReduceOp::prod ? short_n : n;
        Buffer<T> in(device, count), out(device, 1);
        in.copy_from_host(a.data(), count);
        out.fill(T(77));
        gpucore::reduce(stream, in, out, op);
        stream.synchronize();
        EXPECT_EQ(out.to_vector()[0], reference_reduce(op, a.data(), count)) << gpucore::to_string(op);
    }

    Buffer<T> row_out(device, rows);
    row_out.fill(T(77));
    gpucore::reduce_rows(stream, da, row_out, rows, cols, ReduceOp::max);
    stream.synchronize();
    const std::vector<T> maxima = row_out.to_vector();
    for (std::size_t r = 0; r < rows; ++r) {
        EXPECT_EQ(maxima[r], reference_reduce(ReduceOp::max, a.data() + r * cols, cols)) << "row " << r;
    }
}

TEST(Abi10Plugin, LoadsWithItsOwnVersion) {
    bool listed = false;
    for (const auto& info : gpucore::backends()) {
        if (info.name != "abi10-template") continue;
        listed = true;
        EXPECT_TRUE(info.usable) << info.reason;
        EXPECT_EQ(info.device_count, 1);
    }
    EXPECT_TRUE(listed) << "the ABI 1.0 fixture was not loaded";
    for (const auto& candidate : gpucore::plugin_candidates()) {
        if (candidate.backend == "abi10-template") {
            EXPECT_EQ(candidate.outcome, gpucore::PluginCandidate::Outcome::loaded) << candidate.reason;
        }
    }
}

TEST(Abi10Plugin, RunsEveryOperation) {
    const Device device = device_of("abi10-template");
    ASSERT_TRUE(device.valid());
    run_every_op<float>(device);
    run_every_op<double>(device);
    run_every_op<std::int32_t>(device);
    run_every_op<std::uint32_t>(device);
}

TEST(Abi10Plugin, SlotBeyondItsTableIsNotSupportedNamingBackendAndOperation) {
    const Device device = device_of("abi10-template");
    ASSERT_TRUE(device.valid());
    try {
        (void)gpucore::memory_info(device);
        FAIL() << "memory_info succeeded on a plugin whose table has no such slot";
    } catch (const gpucore::Error& e) {
        EXPECT_EQ(e.code(), gpucore::ErrorCode::not_supported) << e.what();
        EXPECT_EQ(e.backend(), "abi10-template");
        EXPECT_EQ(e.operation(), "memory_info");
        EXPECT_NE(std::string(e.what()).find("ABI 1.0"), std::string::npos) << e.what();
    }
}

TEST(Abi10Plugin, NativeStreamHandleIsNotSupportedAndTheStreamKeepsWorking) {
    const Device device = device_of("abi10-template");
    ASSERT_TRUE(device.valid());
    Stream stream(device);
    try {
        (void)stream.native_handle();
        FAIL() << "native_handle succeeded on a plugin whose table has no such slot";
    } catch (const gpucore::Error& e) {
        EXPECT_EQ(e.code(), gpucore::ErrorCode::not_supported) << e.what();
        EXPECT_EQ(e.backend(), "abi10-template");
        EXPECT_EQ(e.device(), device.index());
        EXPECT_EQ(e.operation(), "Stream::native_handle");
        EXPECT_NE(std::string(e.what()).find("ABI 1.0"), std::string::npos) << e.what();
    }
    const std::vector<float> a = random_values<float>(301, 7);
    Buffer<float> da(device, a.size()), dc(device, a.size());
    da.copy_from_host(a);
    dc.fill(-1.0f);
    gpucore::vector_add(stream, da, da, dc);
    const std::vector<float> got = dc.to_vector(); // a blocking read, ordered after the stream
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(got[i], a[i] + a[i]) << "at " << i;
}

TEST(Abi10Plugin, NeverReceivesADtypeItsHeaderDidNotHave) {
    const Device device = device_of("abi10-template");
    ASSERT_TRUE(device.valid());
    Stream stream(device);
    Buffer<gpucore::half> a(device, 8), b(device, 8), c(device, 8), one(device, 1);
    a.fill(gpucore::half(1.0f));
    const auto expect_refused = [&](const std::string& operation, auto&& run) {
        try {
            run();
            ADD_FAILURE() << operation << " on f16 reached a plugin built against ABI 1.0";
        } catch (const gpucore::Error& e) {
            EXPECT_EQ(e.code(), gpucore::ErrorCode::not_supported) << e.what();
            EXPECT_EQ(e.backend(), "abi10-template");
            EXPECT_EQ(e.operation(), operation);
            EXPECT_NE(std::string(e.what()).find("f16"), std::string::npos) << e.what();
        }
    };
    expect_refused("vector_add", [&] { gpucore::vector_add(stream, a, b, c); });
    expect_refused("transpose", [&] { gpucore::transpose(stream, a, c, 2, 4); });
    expect_refused("reduce", [&] { gpucore::reduce(stream, a, one, ReduceOp::sum); });
    expect_refused("reduce_rows", [&] { gpucore::reduce_rows(stream, a, one, 1, 8, ReduceOp::max); });
    // Its buffers still hold 16-bit data: copies and fills are dtype-free.
    for (gpucore::half v : a.to_vector()) EXPECT_EQ(static_cast<float>(v), 1.0f);
}

TEST(Abi10Plugin, OffsetViewsNeedAnAbi12Plugin) {
    // A 1.0 plugin may rely on the 256-byte alignment of whole allocations: the core sends it no
    // address inside one. Views from the start are the allocation itself and work.
    const Device device = device_of("abi10-template");
    ASSERT_TRUE(device.valid());
    Stream stream(device);
    Buffer<float> a(device, 8), c(device, 8);
    a.copy_from_host(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
    gpucore::vector_add(stream, a.view(0, 4), a.view(0, 4), c.view(0, 4));
    stream.synchronize();
    EXPECT_EQ(c.view(0, 4).to_vector(), (std::vector<float>{2, 4, 6, 8}));
    const auto expect_refused = [&](const std::string& operation, auto&& run) {
        try {
            run();
            ADD_FAILURE() << operation << " passed an address inside an allocation to an ABI 1.0 plugin";
        } catch (const gpucore::Error& e) {
            EXPECT_EQ(e.code(), gpucore::ErrorCode::not_supported) << e.what();
            EXPECT_EQ(e.backend(), "abi10-template");
            EXPECT_EQ(e.operation(), operation);
            EXPECT_NE(e.cause().find("ABI 1.2"), std::string::npos) << e.what();
        }
    };
    expect_refused("vector_add", [&] { gpucore::vector_add(stream, a.view(1, 4), a.view(0, 4), c.view(0, 4)); });
    expect_refused("reduce", [&] { gpucore::reduce(stream, a.view(0, 4), c.view(4, 1), ReduceOp::sum); });
    expect_refused("Buffer::copy_to_host", [&] { (void)a.view(3, 2).to_vector(); });
    expect_refused("Buffer::fill", [&] { c.view(1, 2).fill(1.0f); });
    expect_refused("Buffer::copy_from", [&] { c.view(0, 2).copy_from(a.view(2, 2)); });
}

// Calls `run` and checks that it throws not_supported naming `operation` and backend "partial".
void expect_not_supported(const std::string& operation, const std::function<void()>& run) {
    try {
        run();
        ADD_FAILURE() << operation << " succeeded on a backend that leaves its slot NULL";
    } catch (const gpucore::Error& e) {
        EXPECT_EQ(e.code(), gpucore::ErrorCode::not_supported) << e.what();
        EXPECT_EQ(e.backend(), "partial") << e.what();
        EXPECT_EQ(e.operation(), operation) << e.what();
        EXPECT_NE(std::string(e.what()).find(operation), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("partial"), std::string::npos) << e.what();
    }
}

TEST(OptionalSlots, NullOperationSlotIsNotSupportedNamingBackendAndOperation) {
    const Device device = device_of("partial");
    ASSERT_TRUE(device.valid());
    Stream stream(device);
    const std::size_t n = 12;
    Buffer<float> in(device, n), out(device, n), one(device, 1), rows(device, 3);
    in.fill(2.0f);
    expect_not_supported("transpose", [&] { gpucore::transpose(stream, in, out, 3, 4); });
    expect_not_supported("reduce", [&] { gpucore::reduce(stream, in, one, ReduceOp::sum); });
    expect_not_supported("reduce_rows", [&] { gpucore::reduce_rows(stream, in, rows, 3, 4, ReduceOp::sum); });
    expect_not_supported("memory_info", [&] { (void)gpucore::memory_info(device); });
    expect_not_supported("Stream::native_handle", [&] { (void)stream.native_handle(); });
    // The slots it fills still work.
    gpucore::vector_add(stream, in, in, out);
    stream.synchronize();
    for (float v : out.to_vector()) EXPECT_EQ(v, 4.0f);
}

TEST(OptionalSlots, CpuBackendHandsOutOneNativeHandlePerStream) {
    const Device device = device_of("cpu");
    Stream first(device), second(device);
    void* const a = first.native_handle();
    EXPECT_NE(a, nullptr);
    EXPECT_NE(a, second.native_handle());
    EXPECT_EQ(a, first.native_handle()) << "stable while the stream lives";
}

TEST(OptionalSlots, CpuBackendReportsMemoryInfo) {
    const gpucore::MemoryInfo info = gpucore::memory_info(device_of("cpu"));
    EXPECT_GT(info.total_bytes, 0u);
    EXPECT_GT(info.free_bytes, 0u);
    EXPECT_LE(info.free_bytes, info.total_bytes);
}

} // namespace

// SPDX-License-Identifier: Apache-2.0
// Every memory kind on every device: allocation (or not_supported where the device says it lacks
// the kind), round trips, host access for host-visible kinds, copies across kinds, ops on buffers
// of the kind.
#include <gtest/gtest.h>

#include <cstdint>

#include "cases.hpp"
#include "compare.hpp"
#include "device_runs.hpp"
#include "random_inputs.hpp"

namespace conformance {
namespace {

class MemoryKinds : public testing::TestWithParam<KindCase> {};

bool device_supports(const gpucore::Device& device, gpucore::MemoryKind kind) {
    const auto& props = device.properties();
    switch (kind) {
    case gpucore::MemoryKind::device: return true;
    case gpucore::MemoryKind::pinned_host: return props.supports_pinned_host;
    case gpucore::MemoryKind::managed: return props.supports_managed;
    }
    return false;
}

// Host code may dereference data(): pinned and managed memory, and every cpu-backend buffer.
bool host_visible(const gpucore::Device& device, gpucore::MemoryKind kind) {
    return kind != gpucore::MemoryKind::device || device.backend_name() == "cpu";
}

// Skips the current test (after the caller's checks) when the device lacks the kind.
#define SKIP_UNLESS_SUPPORTED(c)                                                              \
    if (!device_supports((c).device, (c).kind))                                               \
    GTEST_SKIP() << (c).device.to_string() << " reports no " << gpucore::to_string((c).kind)  \
                 << " memory (AllocatesOrRefuses checks the not_supported error)"

TEST_P(MemoryKinds, AllocatesOrRefuses) {
    const KindCase& c = GetParam();
    if (!device_supports(c.device, c.kind)) {
        try {
            gpucore::Buffer<float> buffer(c.device, 1024, c.kind);
            ADD_FAILURE() << "allocating " << gpucore::to_string(c.kind)
                          << " memory succeeded although the device reports no support";
        } catch (const gpucore::Error& e) {
            EXPECT_EQ(e.code(), gpucore::ErrorCode::not_supported) << e.what();
        }
        return;
    }
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4097}}) {
        gpucore::Buffer<double> buffer(c.device, n, c.kind);
        EXPECT_TRUE(buffer.valid());
        EXPECT_EQ(buffer.size(), n);
        EXPECT_EQ(buffer.bytes(), n * sizeof(double));
        EXPECT_EQ(buffer.kind(), c.kind);
        EXPECT_EQ(buffer.device(), c.device);
        if (n > 0) {
            // The contract promises at least 256-byte alignment.
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % 256, 0u);
        }
    }
}

TEST_P(MemoryKinds, RoundTripsThroughHost) {
    const KindCase& c = GetParam();
    SKIP_UNLESS_SUPPORTED(c);
    CONFORMANCE_SEEDED_RNG(rng);
    for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{65537}, std::size_t{1000003}}) {
        SCOPED_TRACE("n=" + std::to_string(n));
        const auto host = random_values<std::uint32_t>(rng, Pattern::general, n, n);
        gpucore::Buffer<std::uint32_t> buffer(c.device, n, c.kind);
        buffer.copy_from_host(host);
        EXPECT_TRUE(elements_match(buffer.to_vector(), host, sentinel_candidates<std::uint32_t>()[0]));
    }
}

// Host writes through data() are seen by the device, and device writes by the host after the
// stream synchronizes.
TEST_P(MemoryKinds, HostAccessThroughData) {
    const KindCase& c = GetParam();
    SKIP_UNLESS_SUPPORTED(c);
    if (!host_visible(c.device, c.kind))
        GTEST_SKIP() << gpucore::to_string(c.kind) << " memory of " << c.device.backend_name()
                     << " is not host-dereferenceable";
    CONFORMANCE_SEEDED_RNG(rng);
    const std::size_t n = 4099;
    const auto a = random_values<float>(rng, Pattern::general, n, n);
    const auto b = random_values<float>(rng, Pattern::general, n, n);
    gpucore::Buffer<float> da(c.device, n, c.kind), db(c.device, n, c.kind), dc(c.device, n, c.kind);
    for (std::size_t i = 0; i < n; ++i) {
        da.data()[i] = a[i];
        db.data()[i] = b[i];
        dc.data()[i] = sentinel_candidates<float>()[0];
    }
    gpucore::Stream stream(c.device);
    gpucore::vector_add(stream, da, db, dc);
    stream.synchronize();
    const std::vector<float> got(dc.data(), dc.data() + n);
    EXPECT_TRUE(elements_match(got, reference::vector_add(a, b), sentinel_candidates<float>()[0]));
}

// Ops with every operand of this kind, and device<->device copies to and from device memory.
TEST_P(MemoryKinds, OpsAndCopiesAcrossKinds) {
    const KindCase& c = GetParam();
    SKIP_UNLESS_SUPPORTED(c);
    CONFORMANCE_SEEDED_RNG(rng);
    const std::size_t rows = 67, cols = 129, n = rows * cols;
    const auto a = random_values<std::int32_t>(rng, Pattern::general, n, n);
    const auto b = random_values<std::int32_t>(rng, Pattern::general, n, n);
    const std::int32_t poison = sentinel_candidates<std::int32_t>()[0];
    gpucore::Stream stream(c.device);

    const auto da = upload(c.device, a, c.kind);
    const auto db = upload(c.device, b, c.kind);
    auto sum = upload(c.device, std::vector<std::int32_t>(n, poison), c.kind);
    gpucore::vector_add(stream, da, db, sum);
    auto transposed = upload(c.device, std::vector<std::int32_t>(n, poison), c.kind);
    gpucore::transpose(stream, sum, transposed, rows, cols);
    auto row_max = upload(c.device, std::vector<std::int32_t>(cols, poison), c.kind);
    gpucore::reduce_rows(stream, transposed, row_max, cols, rows, gpucore::ReduceOp::max);

    const auto want_sum = reference::vector_add(a, b);
    const auto want_t = reference::transpose(want_sum, rows, cols);
    EXPECT_TRUE(elements_match(read_back(stream, sum, poison), want_sum, poison));
    EXPECT_TRUE(elements_match(read_back(stream, transposed, poison), want_t, poison));
    EXPECT_TRUE(elements_match(read_back(stream, row_max, poison),
                               reference::reduce_rows(want_t, cols, rows, gpucore::ReduceOp::max), poison));

    // This kind -> device memory -> this kind, asynchronously on the stream.
    gpucore::Buffer<std::int32_t> on_device(c.device, n, gpucore::MemoryKind::device);
    auto back = upload(c.device, std::vector<std::int32_t>(n, poison), c.kind);
    on_device.copy_from_async(stream, transposed);
    back.copy_from_async(stream, on_device);
    EXPECT_TRUE(elements_match(read_back(stream, back, poison), want_t, poison));
}

INSTANTIATE_TEST_SUITE_P(Devices, MemoryKinds, testing::ValuesIn(kind_cases()), CaseName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(MemoryKinds);

} // namespace
} // namespace conformance

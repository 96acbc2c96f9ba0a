// SPDX-License-Identifier: Apache-2.0
// Copies (blocking and asynchronous; host->device, device->device, device->host) and fill, for
// every device x dtype x awkward length.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "cases.hpp"
#include "compare.hpp"
#include "device_runs.hpp"
#include "random_inputs.hpp"

namespace conformance {
namespace {

class CopyFill : public testing::TestWithParam<SizeCase> {};

template <class T>
void check_blocking_copies(const gpucore::Device& device, std::size_t n) {
    CONFORMANCE_SEEDED_RNG(rng);
    const auto host = random_values<T>(rng, Pattern::general, n, n);
    const T poison = sentinel_avoiding<T>(host);
    gpucore::Buffer<T> a(device, n);
    a.copy_from_host(host);
    gpucore::Buffer<T> b(device, n);
    b.copy_from_host(std::vector<T>(n, poison));
    b.copy_from(a);
    EXPECT_TRUE(elements_match(b.to_vector(), host, poison)) << "after copy_from_host + copy_from";

    // A longer host range: only size() elements are read or written, the rest stays untouched.
    std::vector<T> longer(n + 5, poison);
    a.copy_to_host(longer.data(), longer.size());
    auto want = host;
    want.resize(n + 5, poison);
    EXPECT_TRUE(elements_match(longer, want, poison)) << "copy_to_host into a longer host range";
}

template <class T>
void check_async_copies(const gpucore::Device& device, std::size_t n) {
    CONFORMANCE_SEEDED_RNG(rng);
    const auto host = random_values<T>(rng, Pattern::general, n, n);
    const T poison = sentinel_avoiding<T>(host);
    gpucore::Stream stream(device);
    gpucore::Buffer<T> a(device, n), b(device, n);
    b.fill_async(stream, poison);
    a.copy_from_host_async(stream, host.data(), host.size());
    b.copy_from_async(stream, a);
    std::vector<T> out(n, poison);
    b.copy_to_host_async(stream, out.data(), out.size());
    stream.synchronize();
    EXPECT_TRUE(elements_match(out, host, poison));
}

template <class T>
std::vector<T> fill_values() {
    if constexpr (std::is_floating_point_v<T>)
        return {T(0), T(-0.0), T(1.5), T(-3.25e7), std::numeric_limits<T>::infinity(),
                std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::denorm_min()};
    else
        return {T(0), T(1), static_cast<T>(-1), static_cast<T>(0xDEADBEEFu),
                std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()};
}

// Bit-exact check: fill must reproduce the value's bits (NaN payload, -0.0, denormals).
template <class T>
testing::AssertionResult all_bits_equal(const std::vector<T>& got, T value) {
    std::size_t wrong = 0, first = got.size();
    for (std::size_t i = 0; i < got.size(); ++i)
        if (std::memcmp(&got[i], &value, sizeof(T)) != 0 && wrong++ == 0) first = i;
    if (wrong == 0) return testing::AssertionSuccess();
    return testing::AssertionFailure() << wrong << " of " << got.size()
                                       << " elements differ from the fill value "
                                       << format_value(value) << ", first at i=" << first
                                       << ": " << format_value(got[first]);
}

template <class T>
void check_fill(const gpucore::Device& device, std::size_t n) {
    gpucore::Stream stream(device);
    gpucore::Buffer<T> buffer(device, n);
    T previous = sentinel_candidates<T>()[1];
    buffer.copy_from_host(std::vector<T>(n, previous));
    for (T value : fill_values<T>()) {
        SCOPED_TRACE("fill value " + format_value(value));
        buffer.fill(value);
        EXPECT_TRUE(all_bits_equal(buffer.to_vector(), value)) << "blocking fill";
        buffer.fill_async(stream, previous);
        buffer.fill_async(stream, value); // in order: the second fill wins
        EXPECT_TRUE(all_bits_equal(read_back(stream, buffer, previous), value)) << "fill_async";
        previous = value;
    }
}

TEST_P(CopyFill, BlockingCopies) {
    const SizeCase& c = GetParam();
    with_dtype(c.dtype, [&](auto tag) { check_blocking_copies<typename decltype(tag)::type>(c.device, c.n); });
}

TEST_P(CopyFill, AsyncCopiesOnStream) {
    const SizeCase& c = GetParam();
    with_dtype(c.dtype, [&](auto tag) { check_async_copies<typename decltype(tag)::type>(c.device, c.n); });
}

TEST_P(CopyFill, FillWritesEveryElement) {
    const SizeCase& c = GetParam();
    with_dtype(c.dtype, [&](auto tag) { check_fill<typename decltype(tag)::type>(c.device, c.n); });
}

INSTANTIATE_TEST_SUITE_P(Devices, CopyFill, testing::ValuesIn(size_cases(awkward_sizes())),
                         CaseName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CopyFill);

} // namespace
} // namespace conformance

// SPDX-License-Identifier: Apache-2.0
// Buffer::copy_from / copy_from_async between two devices, for every ordered pair of the devices
// present: exact at odd sizes and at staging chunk sizes that split elements, ordered after work
// still queued on either device, safe from several threads at once; misuse is an Error that names
// both devices. A single copy larger than 4 GiB runs where memory allows (LargeCopy).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "gpucore/gpucore.hpp"

namespace gpucore::test {
namespace {

struct DevicePair {
    Device source;
    Device destination;
};

void PrintTo(const DevicePair& pair, std::ostream* out) {
    *out << pair.source.to_string() << " -> " << pair.destination.to_string();
}

std::vector<DevicePair> device_pairs() {
    std::vector<DevicePair> pairs;
    const std::vector<Device> all = devices();
    for (const Device& from : all) {
        for (const Device& to : all) {
            if (from != to) pairs.push_back({from, to});
        }
    }
    return pairs;
}

std::string identifier(const Device& device) {
    std::string text = device.to_string();
    std::replace_if(text.begin(), text.end(), [](char c) { return c == ':' || c == '-'; }, '_');
    return text;
}

struct PairName {
    std::string operator()(const testing::TestParamInfo<DevicePair>& info) const {
        return identifier(info.param.source) + "_to_" + identifier(info.param.destination);
    }
};

std::vector<std::uint32_t> random_words(std::size_t n, std::uint32_t seed) {
    std::mt19937 engine(seed);
    std::vector<std::uint32_t> values(n);
    for (auto& v : values) v = static_cast<std::uint32_t>(engine());
    return values;
}

constexpr std::uint32_t kPoison = 0xDEADBEEFu;

// Sets GPUCORE_STAGING_CHUNK_BYTES for one scope.
class ChunkSize {
public:
    explicit ChunkSize(std::size_t bytes) { ::setenv("GPUCORE_STAGING_CHUNK_BYTES", std::to_string(bytes).c_str(), 1); }
    ~ChunkSize() { ::unsetenv("GPUCORE_STAGING_CHUNK_BYTES"); }
    ChunkSize(const ChunkSize&) = delete;
    ChunkSize& operator=(const ChunkSize&) = delete;
};

class CopyBetweenDevices : public testing::TestWithParam<DevicePair> {
protected:
    const Device& source() const { return GetParam().source; }
    const Device& destination() const { return GetParam().destination; }

    // Copies n random words from the source device to a poisoned buffer on the destination
    // device (blocking) and checks every one.
    void expect_exact_blocking_copy(std::size_t n, std::uint32_t seed) {
        const std::vector<std::uint32_t> expected = random_words(n, seed);
        Buffer<std::uint32_t> from(source(), n), to(destination(), n);
        from.copy_from_host(expected);
        to.fill(kPoison);
        to.copy_from(from);
        EXPECT_EQ(to.to_vector(), expected) << n << " words";
    }
};

TEST_P(CopyBetweenDevices, BlockingCopyIsExactAtOddSizes) {
    for (const std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{4097}, std::size_t{65537}}) {
        expect_exact_blocking_copy(n, static_cast<std::uint32_t>(n));
    }
    // Another element width: doubles whose every bit matters.
    std::vector<double> expected(1001);
    for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = 1.0 / static_cast<double>(i + 3) - (i % 2 != 0 ? 1e300 : 0.0);
    Buffer<double> from(source(), expected.size()), to(destination(), expected.size());
    from.copy_from_host(expected);
    to.fill(-0.0);
    to.copy_from(from);
    EXPECT_EQ(to.to_vector(), expected);
}

TEST_P(CopyBetweenDevices, StagingChunksThatSplitElementsCoverEveryByte) {
    const std::size_t n = 1001; // 4004 bytes
    for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{4003}, std::size_t{4004},
                                    std::size_t{4005}, std::size_t{1} << 20}) {
        SCOPED_TRACE("chunk " + std::to_string(chunk));
        const ChunkSize scoped(chunk);
        expect_exact_blocking_copy(chunk == 1 ? 301 : n, static_cast<std::uint32_t>(chunk));
    }
}

// A bad staging chunk size is an error only where a copy is staged: between backends, and within
// the template backend, whose plugin has no peer-copy slot. Within cuda, hip and the simt plugins
// the copy is one peer copy and never reads it.
TEST_P(CopyBetweenDevices, PeerCopiesWithinABackendAreNotStaged) {
    const bool peer = source().backend_name() == destination().backend_name() && source().backend_name() != "template";
    const std::vector<std::uint32_t> expected = random_words(33, 3);
    Buffer<std::uint32_t> from(source(), expected.size()), to(destination(), expected.size());
    from.copy_from_host(expected);
    to.fill(kPoison);
    ::setenv("GPUCORE_STAGING_CHUNK_BYTES", "0", 1);
    bool staged = false;
    try {
        to.copy_from(from);
    } catch (const Error& e) {
        staged = e.cause().find("GPUCORE_STAGING_CHUNK_BYTES='0'") != std::string::npos;
        if (!staged) ADD_FAILURE() << e.what();
    }
    ::unsetenv("GPUCORE_STAGING_CHUNK_BYTES");
    EXPECT_EQ(staged, !peer);
    if (peer) {
        EXPECT_EQ(to.to_vector(), expected);
    }
}

TEST_P(CopyBetweenDevices, EmptyBuffersCopyNothing) {
    Buffer<float> from(source(), 0), to(destination(), 0);
    EXPECT_NO_THROW(to.copy_from(from));
    Stream stream(destination());
    EXPECT_NO_THROW(to.copy_from_async(stream, from));
    stream.synchronize();
}

// c = a + b queued on a stream of the source device, not waited for: the copy must see it.
struct QueuedSum {
    QueuedSum(const Device& device, std::size_t n, std::uint32_t seed)
        : stream(device), a(device, n), b(device, n), c(device, n), expected(n) {
        const std::vector<std::uint32_t> x = random_words(n, seed), y = random_words(n, seed + 1);
        for (std::size_t i = 0; i < n; ++i) expected[i] = x[i] + y[i];
        a.copy_from_host(x);
        b.copy_from_host(y);
        c.fill(kPoison);
        stream.synchronize();
        vector_add(stream, a, b, c);
    }
    Stream stream;
    Buffer<std::uint32_t> a, b, c;
    std::vector<std::uint32_t> expected;
};

constexpr std::size_t kQueuedElements = (std::size_t{1} << 18) + 3;

TEST_P(CopyBetweenDevices, BlockingCopySeesWorkStillQueuedOnTheSourceDevice) {
    QueuedSum sum(source(), kQueuedElements, 11);
    Buffer<std::uint32_t> to(destination(), kQueuedElements);
    to.fill(kPoison);
    to.copy_from(sum.c);
    EXPECT_EQ(to.to_vector(), sum.expected);
}

TEST_P(CopyBetweenDevices, BlockingCopyComesAfterWorkStillQueuedOnTheDestinationDevice) {
    const std::vector<std::uint32_t> expected = random_words(kQueuedElements, 12);
    Buffer<std::uint32_t> from(source(), kQueuedElements), to(destination(), kQueuedElements);
    from.copy_from_host(expected);
    Stream busy(destination());
    to.fill_async(busy, kPoison); // queued, not waited for: must land before the copy, not after
    to.copy_from(from);
    busy.synchronize();
    EXPECT_EQ(to.to_vector(), expected);
}

TEST_P(CopyBetweenDevices, AsyncCopyOnADestinationStreamSeesTheSourceDevicesQueuedWork) {
    QueuedSum sum(source(), kQueuedElements, 13);
    Buffer<std::uint32_t> to(destination(), kQueuedElements);
    to.fill(kPoison);
    Stream stream(destination());
    to.copy_from_async(stream, sum.c);
    stream.synchronize();
    EXPECT_EQ(to.to_vector(), sum.expected);
}

TEST_P(CopyBetweenDevices, AsyncCopyOnASourceStreamFollowsThatStreamsWork) {
    QueuedSum sum(source(), kQueuedElements, 14);
    Buffer<std::uint32_t> to(destination(), kQueuedElements);
    to.fill(kPoison);
    to.copy_from_async(sum.stream, sum.c);
    sum.stream.synchronize();
    EXPECT_EQ(to.to_vector(), sum.expected);
}

TEST_P(CopyBetweenDevices, CopiesInBothDirectionsFromSeveralThreadsAtOnce) {
    const std::size_t n = 4099;
    std::vector<std::thread> threads;
    std::vector<int> wrong(4, 0);
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            const bool forward = t % 2 == 0;
            const Device& from_device = forward ? source() : destination();
            const Device& to_device = forward ? destination() : source();
            for (std::uint32_t round = 0; round < 10; ++round) {
                const std::vector<std::uint32_t> expected = random_words(n, round * 8 + static_cast<std::uint32_t>(t));
                Buffer<std::uint32_t> from(from_device, n), to(to_device, n);
                from.copy_from_host(expected);
                to.fill(kPoison);
                to.copy_from(from);
                if (to.to_vector() != expected) ++wrong[static_cast<std::size_t>(t)];
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

INSTANTIATE_TEST_SUITE_P(Pairs, CopyBetweenDevices, testing::ValuesIn(device_pairs()), PairName{});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CopyBetweenDevices);

// ---- misuse ---------------------------------------------------------------------------------------

Device template_device() { return select_device("template"); }
Device cpu_device() { return select_device("cpu"); }

template <class Call>
Error expect_error(Call&& call, ErrorCode code, const std::string& operation) {
    try {
        call();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), code) << e.what();
        EXPECT_EQ(e.operation(), operation) << e.what();
        return e;
    }
    ADD_FAILURE() << "did not throw " << to_string(code) << " from " << operation;
    return Error(code, "", "", -1, "");
}

// Devices whose plugin has no pinned host memory (one says so, one claims it but refuses to
// allocate it): a copy stages through the other side's pinned memory or, between the two,
// ordinary host memory, at random sizes and chunk sizes, blocking and asynchronous.
TEST(CopyWithoutPinnedMemory, StagesThroughOrdinaryHostMemory) {
    const Device unpinned = select_device("test-unpinned"), claims = select_device("test-unpinned-claims");
    EXPECT_FALSE(unpinned.properties().supports_pinned_host);
    const Device sides[] = {unpinned, claims, cpu_device(), template_device()};
    std::mt19937 random(3301);
    for (int round = 0; round < 40; ++round) {
        const Device& from = sides[random() % 4];
        const Device& to = sides[random() % 2]; // one side at least has no pinned memory
        if (from == to) continue;
        const std::size_t n = 1 + random() % 70000;
        const ChunkSize scoped(1 + random() % (4 * n));
        SCOPED_TRACE(from.to_string() + " -> " + to.to_string() + ", " + std::to_string(n) + " words");
        const auto expected = random_words(n, static_cast<std::uint32_t>(round));
        Buffer<std::uint32_t> source(from, n), destination(to, n), back(from, n);
        source.copy_from_host(expected);
        destination.fill(kPoison);
        destination.copy_from(source);
        EXPECT_EQ(destination.to_vector(), expected);
        Stream stream(round % 2 ? from : to);
        back.copy_from_async(stream, destination);
        stream.synchronize();
        EXPECT_EQ(back.to_vector(), expected);
    }
}

TEST(CopyBetweenDevicesMisuse, SizesThatDifferAreRefusedBeforeAnythingMoves) {
    Buffer<float> on_cpu(cpu_device(), 5), on_template(template_device(), 6);
    const Error e = expect_error([&] { on_cpu.copy_from(on_template); }, ErrorCode::invalid_argument,
                                 "Buffer::copy_from");
    EXPECT_EQ(e.cause(), "copy from template:0 to cpu:0: buffer sizes differ (destination: 20 bytes, source: 24 bytes)");
}

TEST(CopyBetweenDevicesMisuse, AStreamOfNeitherDeviceIsRefused) {
    const std::vector<Device> all = devices();
    Device third;
    for (const Device& d : all) {
        if (d != cpu_device() && d != template_device()) third = d;
    }
    if (!third.valid()) GTEST_SKIP() << "no third device";
    Stream elsewhere(third);
    Buffer<int> on_cpu(cpu_device(), 4), on_template(template_device(), 4);
    const Error e = expect_error([&] { on_cpu.copy_from_async(elsewhere, on_template); },
                                 ErrorCode::invalid_argument, "Buffer::copy_from_async");
    EXPECT_NE(e.cause().find("the destination is on cpu:0 and the source on template:0 but the stream is on " +
                             third.to_string()),
              std::string::npos)
        << e.cause();
}

TEST(CopyBetweenDevicesMisuse, AFailureNamesBothDevices) {
    Buffer<int> on_cpu(cpu_device(), 4), on_template(template_device(), 4);
    for (const char* bad : {"many", "-1", " 5", "5 ", "+5", "0", "1099511627777", "99999999999999999999999"}) {
        ::setenv("GPUCORE_STAGING_CHUNK_BYTES", bad, 1);
        const Error e = expect_error([&] { on_cpu.copy_from(on_template); }, ErrorCode::invalid_argument,
                                     "Buffer::copy_from");
        EXPECT_EQ(e.cause(), std::string("copy from template:0 to cpu:0: GPUCORE_STAGING_CHUNK_BYTES='") + bad +
                                 "' is not a number of bytes from 1 to 2^40");
    }
    ::unsetenv("GPUCORE_STAGING_CHUNK_BYTES");
}

TEST(CopyBetweenDevicesMisuse, NullBuffersOnEitherSide) {
    Buffer<int> on_cpu(cpu_device(), 4), none;
    expect_error([&] { on_cpu.copy_from(none); }, ErrorCode::invalid_argument, "Buffer::copy_from");
    expect_error([&] { none.copy_from(on_cpu); }, ErrorCode::invalid_argument, "Buffer::copy_from");
}

// ---- larger than 4 GiB ------------------------------------------------------------------------------

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

TEST(LargeCopy, StagedCopyBeyond4GiBIsExact) {
    if (kSanitized) GTEST_SKIP() << "too slow under a sanitizer";
    const std::size_t n = (std::size_t{1} << 30) + 3; // 4 GiB + 12 bytes of uint32
    const std::size_t bytes = n * sizeof(std::uint32_t);
    const Device cpu = cpu_device();
    if (memory_info(cpu).free_bytes < 2 * bytes + (std::size_t{2} << 30)) {
        GTEST_SKIP() << "needs " << (2 * bytes + (std::size_t{2} << 30)) << " bytes of free memory";
    }
    Buffer<std::uint32_t> from(cpu, n); // cpu memory is host memory: written in place
    std::uint32_t* words = from.data();
    for (std::size_t i = 0; i < n; ++i) words[i] = static_cast<std::uint32_t>(i * 2654435761u) ^ static_cast<std::uint32_t>(i >> 32);
    Buffer<std::uint32_t> to(template_device(), n, MemoryKind::pinned_host);
    std::fill(to.data(), to.data() + n, kPoison);
    to.copy_from(from);
    std::size_t wrong = 0, first_wrong = n;
    for (std::size_t i = 0; i < n; ++i) {
        if (to.data()[i] != (static_cast<std::uint32_t>(i * 2654435761u) ^ static_cast<std::uint32_t>(i >> 32))) {
            if (wrong++ == 0) first_wrong = i;
        }
    }
    EXPECT_EQ(wrong, 0u) << "first wrong word " << first_wrong;
}

} // namespace
} // namespace gpucore::test

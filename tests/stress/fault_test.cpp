// SPDX-License-Identifier: Apache-2.0
// Faults: out-of-memory on every device followed by an allocation that works; a plugin whose device
// is lost in the middle of a stream (every later call a device_error, destructors quiet, nothing
// leaked) while the cpu backend keeps computing exact results; a plugin answering a status outside
// the enum with an unterminated message; plugins whose entry point or init fails next to working
// ones. The plugins come from GPUCORE_PLUGIN_PATH, set by stress_main.cpp.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exact_values.hpp"
#include "gpucore/plugin.h"
#include "stress_support.hpp"

namespace gpucore::stress {
namespace {

using ::testing::HasSubstr;

// Runs `call`, which must throw gpucore::Error with `code` and `operation`; returns it.
template <class Call>
Error expect_error(Call&& call, ErrorCode code, const std::string& operation) {
    try {
        call();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), code) << e.what();
        EXPECT_EQ(e.operation(), operation) << e.what();
        EXPECT_FALSE(e.cause().empty()) << e.what();
        return e;
    } catch (const std::exception& e) {
        ADD_FAILURE() << operation << " threw a non-gpucore exception: " << e.what();
        return Error(code, "", "", -1, "");
    }
    ADD_FAILURE() << operation << " did not throw; expected " << to_string(code);
    return Error(code, "", "", -1, "");
}

// vector_add and reduce of exact inputs on `device`; false when a value is wrong.
bool cpu_work_is_exact(const Device& device, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const std::size_t n = 70001; // past the cpu backend's parallel threshold
    const auto a = exact_inputs<float>(rng, n, ReduceOp::sum);
    const auto b = exact_inputs<float>(rng, n, ReduceOp::sum);
    Stream stream(device);
    Buffer<float> da(device, n), db(device, n), dc(device, n), total(device, 1);
    da.copy_from_host(a);
    db.copy_from_host(b);
    dc.fill(poison<float>());
    vector_add(stream, da, db, dc);
    reduce(stream, dc, total, ReduceOp::sum);
    stream.synchronize();
    const auto want = reference::vector_add(a, b);
    return first_mismatch(dc.to_vector(), want) < 0 &&
           total.to_vector()[0] == exact_reduce(want.data(), n, ReduceOp::sum);
}

class OutOfMemory : public testing::TestWithParam<Device> {};

// Asks for more than the device has (and more than a 47-bit address space holds, so memory
// overcommit cannot grant it either); then a reasonable allocation must work, repeatedly.
TEST_P(OutOfMemory, MoreThanTheDeviceHasIsOutOfMemoryAndASmallerAllocationThenWorks) {
    const Device device = GetParam();
    const std::uint64_t has = device.properties().total_memory_bytes;
    const std::uint64_t ask = std::max<std::uint64_t>(2 * has, std::uint64_t{1} << 50);
    for (int attempt = 0; attempt < 20; ++attempt) { // a failed allocation must not leak either
        const Error e = expect_error([&] { Buffer<std::uint32_t> huge(device, static_cast<std::size_t>(ask / 4)); },
                                     ErrorCode::out_of_memory, "Buffer::Buffer");
        EXPECT_EQ(e.backend(), device.backend_name());
        EXPECT_EQ(e.device(), device.index());
    }
    const std::size_t n = std::size_t{1} << 20;
    Stream stream(device);
    Buffer<std::uint32_t> a(device, n), c(device, n);
    a.fill(21u);
    vector_add(stream, a, a, c);
    stream.synchronize();
    EXPECT_EQ(c.to_vector(), std::vector<std::uint32_t>(n, 42u));
}

INSTANTIATE_TEST_SUITE_P(Devices, OutOfMemory, testing::ValuesIn(devices_under_test()), DeviceName{});

// Must run before DeviceLostMidStream in the same process (gtest keeps definition order; ctest runs
// each test in a process of its own anyway).
TEST(FailingPlugin, UnknownStatusWithAnUnterminatedMessageIsABoundedPluginError) {
    const Device failing = select_device("failing");
    Buffer<float> a(failing, 8);
    const Error e = expect_error([&] { a.fill(1.0f); }, ErrorCode::plugin_error, "Buffer::fill");
    EXPECT_EQ(e.cause(), std::string(GPUCORE_MESSAGE_CAPACITY, 'x') + " (unknown status 77)");
    EXPECT_EQ(e.backend(), "failing");
}

TEST(FailingPlugin, DeviceLostMidStreamIsADeviceErrorEverywhereWhileCpuKeepsWorking) {
    const Device failing = select_device("failing");
    const Device cpu = select_device("cpu");
    // cpu work runs on another thread the whole time the failing device goes down.
    std::atomic<bool> stop{false};
    std::atomic<int> cpu_rounds{0}, cpu_wrong{0};
    std::thread cpu_worker([&] {
        for (std::uint64_t seed = 0; !stop.load() || seed < 2; ++seed) {
            if (!cpu_work_is_exact(cpu, seed)) cpu_wrong.fetch_add(1);
            cpu_rounds.fetch_add(1);
        }
    });
    {
        const std::size_t n = 1000;
        std::vector<float> host(n);
        for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i);
        Stream stream(failing);
        Event event(failing);
        Buffer<float> a(failing, n), b(failing, n), c(failing, n);
        a.copy_from_host(host);
        b.copy_from_host(host);
        vector_add(stream, a, b, c); // works before the fault
        stream.synchronize();
        EXPECT_EQ(c.to_vector()[n - 1], 2.0f * static_cast<float>(n - 1));

        transpose(stream, a, b, 10, 100); // the launch is accepted; the "kernel" faults
        const Error lost = expect_error([&] { stream.synchronize(); }, ErrorCode::device_error, "Stream::synchronize");
        EXPECT_THAT(lost.cause(), HasSubstr("device lost"));
        EXPECT_EQ(lost.backend(), "failing");
        EXPECT_EQ(lost.device(), 0);
        // Sticky: every later call on the device says so, with its own operation name.
        expect_error([&] { vector_add(stream, a, b, c); }, ErrorCode::device_error, "vector_add");
        expect_error([&] { (void)c.to_vector(); }, ErrorCode::device_error, "Buffer::copy_to_host");
        expect_error([&] { c.copy_from_host(host); }, ErrorCode::device_error, "Buffer::copy_from_host");
        expect_error([&] { Buffer<float> more(failing, 4); }, ErrorCode::device_error, "Buffer::Buffer");
        expect_error([&] { Stream another(failing); }, ErrorCode::device_error, "Stream::Stream");
        expect_error([&] { Event another(failing); }, ErrorCode::device_error, "Event::Event");
        expect_error([&] { event.record(stream); }, ErrorCode::device_error, "Event::record");
        expect_error([&] { (void)stream.query(); }, ErrorCode::device_error, "Stream::query");
        // Copies between the lost device and a working one, either way, name both devices.
        Buffer<float> on_cpu(cpu, n);
        on_cpu.fill(1.0f);
        const Error from_lost = expect_error([&] { on_cpu.copy_from(c); }, ErrorCode::device_error, "Buffer::copy_from");
        EXPECT_THAT(from_lost.cause(), HasSubstr("copy from failing:0 to cpu:0: "));
        EXPECT_THAT(from_lost.cause(), HasSubstr("device lost"));
        const Error to_lost = expect_error([&] { c.copy_from(on_cpu); }, ErrorCode::device_error, "Buffer::copy_from");
        EXPECT_THAT(to_lost.cause(), HasSubstr("copy from cpu:0 to failing:0: "));
        Stream on_cpu_stream(cpu);
        expect_error([&] { on_cpu.copy_from_async(on_cpu_stream, c); }, ErrorCode::device_error,
                     "Buffer::copy_from_async");
        EXPECT_EQ(on_cpu.to_vector(), std::vector<float>(n, 1.0f)); // left untouched
        // Leaving the scope frees a, b, c and destroys the event and the stream on the lost device:
        // each failure is logged, none escapes a destructor, and the plugin still frees the memory.
    }
    stop.store(true);
    cpu_worker.join();
    EXPECT_EQ(cpu_wrong.load(), 0);
    EXPECT_GE(cpu_rounds.load(), 2);
    EXPECT_TRUE(cpu_work_is_exact(cpu, 99));
    // The backend itself stays registered and named; only its device is gone.
    bool listed = false;
    for (const BackendInfo& b : backends()) listed = listed || b.name == "failing";
    EXPECT_TRUE(listed);
}

// The "deferred" plugin: a vector_add of 7 elements is accepted and fails later, on its stream only.
// Its failure must reach that stream's next synchronize, whatever else happens on the device first.
constexpr std::size_t kDeferredFailingLength = 7;

void enqueue_deferred_failure(Stream& stream) {
    const Device& device = stream.device();
    Buffer<float> a(device, kDeferredFailingLength), c(device, kDeferredFailingLength);
    vector_add(stream, a, a, c); // accepted; its "kernel" fails while it runs
    // Leaving the scope destroys a and c: ~Buffer waits for the device's streams, this one too.
}

void expect_failure_reported_once(Stream& stream) {
    const Error e = expect_error([&] { stream.synchronize(); }, ErrorCode::device_error, "Stream::synchronize");
    EXPECT_THAT(e.cause(), HasSubstr("kernel faulted"));
    EXPECT_EQ(e.backend(), "deferred");
    EXPECT_NO_THROW(stream.synchronize()) << "the failure must be reported once, not again";
}

TEST(DeferredFailure, DestroyingBuffersLeavesTheFailureToItsStream) {
    const Device device = select_device("deferred");
    Stream failing(device);
    Stream bystander(device);
    enqueue_deferred_failure(failing);
    {
        Buffer<float> other(device, 1000); // destroyed while the failure is pending
    }
    bystander.synchronize(); // another stream's synchronize is not the failing stream's
    expect_failure_reported_once(failing);
}

TEST(DeferredFailure, ABlockingReduceOnAnotherThreadLeavesTheFailureToItsStream) {
    const Device device = select_device("deferred");
    Stream failing(device);
    enqueue_deferred_failure(failing);
    std::mt19937_64 rng(5);
    const std::size_t n = 1001;
    const auto values = exact_inputs<float>(rng, n, ReduceOp::sum);
    float got = 0.0f;
    std::thread other_thread([&] {
        Stream other(device);
        Buffer<float> in(device, n);
        in.copy_from_host(values);
        got = reduce(other, in, ReduceOp::sum); // makes and destroys a temporary buffer
    });
    other_thread.join();
    EXPECT_EQ(got, exact_reduce(values.data(), n, ReduceOp::sum));
    expect_failure_reported_once(failing);
}

// Blocking calls wait for the failing stream's work (it is queued before them), yet its failure is
// not theirs: they succeed, and the failure still reaches the failing stream's synchronize once.
TEST(DeferredFailure, BlockingCallsAfterFailedWorkLeaveTheFailureToItsStream) {
    const Device device = select_device("deferred");
    Stream failing(device);
    Stream other(device);
    enqueue_deferred_failure(failing);
    std::mt19937_64 rng(11);
    const std::size_t n = 1003;
    const auto values = exact_inputs<float>(rng, n, ReduceOp::sum);
    Buffer<float> in(device, n), copy(device, n);
    in.copy_from_host(values);
    copy.fill(0.5f);
    copy.copy_from(in);
    EXPECT_EQ(first_mismatch(copy.to_vector(), values), -1);
    EXPECT_EQ(reduce(other, in, ReduceOp::sum), exact_reduce(values.data(), n, ReduceOp::sum));
    expect_failure_reported_once(failing);
    EXPECT_NO_THROW(other.synchronize());
}

TEST(DeferredFailure, EachStreamReceivesItsOwnFailureOnly) {
    const Device device = select_device("deferred");
    Stream first(device), second(device), clean(device);
    enqueue_deferred_failure(first);
    enqueue_deferred_failure(second);
    EXPECT_NO_THROW(clean.synchronize());
    expect_failure_reported_once(second);
    expect_failure_reported_once(first);
}

// The loader fixtures (tests/loader) whose entry returns NULL and whose init fails sit on the plugin
// path of this process; their neighbours load and work, from several threads at once, while other
// threads keep asking for the broken backends by name.
TEST(HostileNeighbours, PluginsWhoseEntryOrInitFailsLeaveTheOthersWorking) {
#if !defined(GPUCORE_FIXTURE_NULLENTRY_PATH) || !defined(GPUCORE_FIXTURE_INITFAILS_PATH)
    GTEST_SKIP() << "tests/loader's fixture plugins are not part of this build";
#else
    bool saw_null_entry = false, saw_init_failure = false;
    for (const PluginCandidate& c : plugin_candidates()) {
        if (c.path == GPUCORE_FIXTURE_NULLENTRY_PATH) {
            saw_null_entry = true;
            EXPECT_EQ(c.outcome, PluginCandidate::Outcome::skipped);
            EXPECT_THAT(c.reason, HasSubstr("returned NULL"));
        }
        if (c.path == GPUCORE_FIXTURE_INITFAILS_PATH) {
            saw_init_failure = true;
            EXPECT_EQ(c.outcome, PluginCandidate::Outcome::skipped);
            EXPECT_THAT(c.reason, HasSubstr("init failed"));
        }
    }
    EXPECT_TRUE(saw_null_entry && saw_init_failure);
    FailureLog log;
    run_together(6, [&](int t) {
        if (t % 2 == 0) {
            for (int k = 0; k < 3; ++k) { // each failed explicit selection is logged at error level
                expect_error([] { (void)select_device("fixture-initfails"); }, ErrorCode::backend_unavailable,
                             "select_device");
                expect_error([] { (void)select_device("fixture-nullentry:0"); }, ErrorCode::backend_unavailable,
                             "select_device");
            }
            return;
        }
        const Device device = select_device(t == 1 ? "template" : "cpu");
        for (std::uint64_t seed = 0; seed < 3; ++seed) {
            if (!cpu_work_is_exact(device, seed)) log.add(device.to_string() + ": wrong result");
        }
    }, log);
    log.report();
#endif
}

} // namespace
} // namespace gpucore::stress

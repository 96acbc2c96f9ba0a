// SPDX-License-Identifier: Apache-2.0
// gpucore in child processes: after fork() (the child's own objects work, the parent's are an
// Error), and under a thread limit (RLIMIT_NPROC: the library reports or copes, never exits).
// Each case runs its body in a forked child with an alarm, and the parent checks how it ended:
// a hang is a SIGALRM, an exit(1) from inside a runtime library is exit status 1.
#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "api_test_support.hpp"
#include "forked_child.hpp"

namespace gpucore::test {
namespace {

// Large enough for the cpu backend to share the work over its threads.
constexpr std::size_t kLarge = (std::size_t{1} << 20) + 3;

// vector_add and a blocking reduce on `stream`; true when both are exact.
bool exact_work(Stream& stream, std::size_t n) {
    const Device& device = stream.device();
    std::vector<std::uint32_t> a(n), b(n);
    std::iota(a.begin(), a.end(), 7u);
    std::iota(b.begin(), b.end(), 1000u);
    Buffer<std::uint32_t> da(device, n), db(device, n), dc(device, n);
    da.copy_from_host(a);
    db.copy_from_host(b);
    dc.fill(0xDEADBEEFu);
    vector_add(stream, da, db, dc);
    stream.synchronize();
    const std::vector<std::uint32_t> c = dc.to_vector();
    std::uint32_t want_sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (c[i] != a[i] + b[i]) return false;
        want_sum += a[i] + b[i];
    }
    return reduce(stream, dc, ReduceOp::sum) == want_sum;
}

// ThreadSanitizer cannot follow a process that starts threads after a multi-threaded fork().
constexpr bool kThreadSanitizer =
#if defined(__SANITIZE_THREAD__)
    true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

TEST(Fork, AChildUsesItsOwnObjectsAndIsToldOffForTheParents) {
    if (kThreadSanitizer) GTEST_SKIP() << "ThreadSanitizer does not support threads started after fork()";
    const Device device = cpu_device();
    // The parent has used everything a child could inherit: streams with worker threads, the
    // internal copy stream, the kernels' threads.
    Stream parents(device);
    ASSERT_TRUE(exact_work(parents, kLarge));
    Buffer<float> parents_buffer(device, 100);
    Event parents_event(device);
    parents_event.record(parents);

    const ChildOutcome outcome = run_in_child(60, [&]() -> int {
        Stream own(device);
        if (!exact_work(own, kLarge)) return 1;
        if (!exact_work(own, 1000)) return 2;
        Stream second(device);
        if (!exact_work(second, kLarge)) return 3;
        auto parents_object_refused = [](const std::function<void()>& use) {
            try {
                use();
            } catch (const Error& e) {
                return e.code() == ErrorCode::invalid_argument &&
                       e.cause().find("parent process before fork()") != std::string::npos;
            }
            return false;
        };
        if (!parents_object_refused([&] { parents.synchronize(); })) return 4;
        if (!parents_object_refused([&] { parents_buffer.fill(1.0f); })) return 5;
        if (!parents_object_refused([&] { parents_event.record(own); })) return 6;
        Buffer<float> mine(device, 100);
        if (!parents_object_refused([&] { mine.copy_from(parents_buffer); })) return 7;
        if (!parents_object_refused([&] { (void)reduce(own, parents_buffer, ReduceOp::sum); })) return 8;
        // Destroying what the parent made is quiet and does not wait for the parent's threads.
        {
            Stream moved(std::move(parents));
            Buffer<float> gone(std::move(parents_buffer));
            Event done(std::move(parents_event));
        }
        return exact_work(own, kLarge) ? kChildPassed : 9;
    });
    expect_passed(outcome);
    // The parent's objects are untouched by what the child did.
    EXPECT_TRUE(exact_work(parents, kLarge));
    EXPECT_NO_THROW(parents_buffer.fill(2.0f));
}

// The user the thread-limit child runs as: RLIMIT_NPROC does not bind root (CAP_SYS_RESOURCE).
bool become_unprivileged() {
    if (geteuid() != 0) return true;
    const uid_t nobody = 65534;
    return setgid(nobody) == 0 && setuid(nobody) == 0 && geteuid() == nobody;
}

std::size_t own_thread_count() {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++count;
    return count;
}

TEST(ThreadLimit, NoThreadLeftIsAnErrorOrSlowerWorkNeverAnExit) {
    const Device device = cpu_device();
    (void)device.properties(); // the runtime has started before the fork
    const ChildOutcome outcome = run_in_child(120, [&]() -> int {
        if (!become_unprivileged()) return kChildSkipped;
        // Objects made while threads can still start: a stream (its worker) and the internal copy
        // stream (a small blocking fill creates it).
        Stream stream(device);
        Buffer<std::uint32_t> small(device, 16);
        small.fill(1u);
        // From here on this user may start no thread at all.
        const auto threads = static_cast<rlim_t>(own_thread_count());
        const rlimit limit{threads, threads};
        if (setrlimit(RLIMIT_NPROC, &limit) != 0) return kChildSkipped;
        // Kernels large enough to want many threads: the work is done with the threads there are.
        if (!exact_work(stream, kLarge)) return 1;
        // A new stream needs a thread: that is an Error naming the cause, not an exit.
        try {
            Stream another(device);
            return 2;
        } catch (const Error& e) {
            if (e.operation() != "Stream::Stream" || e.cause().find("thread") == std::string::npos) return 3;
        }
        return exact_work(stream, 1000) ? kChildPassed : 4;
    });
    expect_passed(outcome);
}

} // namespace
} // namespace gpucore::test

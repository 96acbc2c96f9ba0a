// SPDX-License-Identifier: Apache-2.0
// A brief poll before a thread sleeps on a condition variable. Waking a sleeping thread on another
// core costs 25-60 us on a virtual machine (3 us on one core), so a waiter that polls a little
// first (the streams' worker for new work, synchronize for finished work, the pool's workers for
// the next job, a job's caller for its last helpers) lets back-to-back calls skip that wake-up.
#pragma once

#include <chrono>
#include <thread>

namespace gpucore::cpu {

// How long a waiter polls before it sleeps: about one wake-up of a sleeping thread on the CI-kind
// virtual machine (BENCHMARKS.md: the cpu backend's small calls).
inline constexpr std::chrono::microseconds kPollBeforeSleep{50};

// Polls `ready` for up to kPollBeforeSleep, yielding the core to any other runnable thread between
// looks; returns its last answer.
template <class Ready>
bool poll_until(Ready&& ready) {
    const auto until = std::chrono::steady_clock::now() + kPollBeforeSleep;
    do {
        if (ready()) return true;
        std::this_thread::yield();
    } while (std::chrono::steady_clock::now() < until);
    return ready();
}

} // namespace gpucore::cpu

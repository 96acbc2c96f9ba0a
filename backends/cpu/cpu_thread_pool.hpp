// SPDX-License-Identifier: Apache-2.0
// The CPU backend's own threads for its parallel kernels, shared by every stream.
//
// Not OpenMP teams: libgomp prints a message and calls exit(1) when it cannot
// start a thread (RLIMIT_NPROC, cgroup pids.max, memory), and a library must never end its host
// process. This pool starts its threads with std::thread, whose failure is an exception it handles:
// the calling thread always takes part in its own job, so a job completes with however many
// threads exist, down to the caller alone. Threads that cannot be started now are tried again later.
//
// After fork() the child has none of the parent's pool threads: a child handler resets the pool,
// which then starts its threads afresh on first use.
#pragma once

#include <cstddef>
#include <functional>

namespace gpucore::cpu {

// The most threads a job may use (the pool's workers plus the caller): the CPUs this process may
// run on (sched_getaffinity), or OMP_NUM_THREADS when set to a positive number (read with
// secure_getenv: a privileged program ignores it), or the value a
// test set with set_max_threads. At least 1, at most 4096. Thread-safe.
int max_threads() noexcept;
// Overrides max_threads() (0 restores the default; above 4096 counts as 4096); for tests of results
// across thread counts.
void set_max_threads(int threads) noexcept;

// Calls body(begin, end) over [0, count) in grabs of `grain` items (each from a multiple of
// `grain`), on up to `threads` threads: the caller and pool workers 1..threads-1. The items are
// split into one contiguous range per thread; each thread takes its own range's grabs first (the
// same range on every call, for the caches), then helps with the others', and nobody waits for a
// worker that is busy elsewhere. Returns when every item is done.
// An exception thrown by body stops the handing out and is rethrown here, once all threads have
// left the job. Thread-safe: several streams' workers may run jobs at once.
void parallel_for(std::size_t count, std::size_t grain, int threads,
                  const std::function<void(std::size_t, std::size_t)>& body);

} // namespace gpucore::cpu

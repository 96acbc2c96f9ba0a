// SPDX-License-Identifier: Apache-2.0
// Timing helpers: event-timed repeats on a stream, wall-clock repeats, and their medians.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <thread>
#include <vector>

#include "gpucore/stream.hpp"

namespace gpucore::cli {

struct TimingStats {
    double median_ms = 0;
    double min_ms = 0;
    double max_ms = 0;
    std::size_t samples = 0;
};

// Median, minimum and maximum of `samples` (all zero when empty).
inline TimingStats summarize(std::vector<double> samples) {
    TimingStats stats;
    stats.samples = samples.size();
    if (samples.empty()) return stats;
    std::sort(samples.begin(), samples.end());
    const std::size_t mid = samples.size() / 2;
    stats.median_ms = samples.size() % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
    stats.min_ms = samples.front();
    stats.max_ms = samples.back();
    return stats;
}

// Warm-up runs before timing a case that rotates through `sets` buffer sets: every set once, and at
// least `minimum`. A buffer's first read after its fill can be far slower than the reads after it
// (on a 2-core KVM guest, 1.6-1.9x: BENCHMARKS.md, the cpu 16-bit reductions), so no timed run may
// be a set's first.
inline std::size_t warmup_runs_over(std::size_t sets, std::size_t minimum) { return std::max(sets, minimum); }

// Times `repeats` runs of enqueue(i) on `stream` with a pair of events around each, after
// before(i) (untimed work, such as poisoning an output, enqueued ahead of the start event).
// Everything is enqueued first and the stream synchronized once, so the device never idles
// between runs waiting for the host. Throws the Error of any failed call.
template <class Before, class Enqueue>
std::vector<double> event_times_ms(Stream& stream, std::size_t repeats, Before&& before,
                                   Enqueue&& enqueue) {
    std::vector<Event> starts, ends;
    starts.reserve(repeats);
    ends.reserve(repeats);
    for (std::size_t i = 0; i < repeats; ++i) {
        starts.emplace_back(stream.device());
        ends.emplace_back(stream.device());
    }
    for (std::size_t i = 0; i < repeats; ++i) {
        before(i);
        starts[i].record(stream);
        enqueue(i);
        ends[i].record(stream);
    }
    stream.synchronize();
    std::vector<double> times(repeats);
    for (std::size_t i = 0; i < repeats; ++i) times[i] = elapsed_ms(starts[i], ends[i]);
    return times;
}

// Host wall-clock time of `repeats` calls of run(i); run must finish its work before returning
// (for gpucore work: enqueue, then synchronize).
template <class Run>
std::vector<double> wall_times_ms(std::size_t repeats, Run&& run) {
    std::vector<double> times(repeats);
    for (std::size_t i = 0; i < repeats; ++i) {
        const auto start = std::chrono::steady_clock::now();
        run(i);
        const auto end = std::chrono::steady_clock::now();
        times[i] = std::chrono::duration<double, std::milli>(end - start).count();
    }
    return times;
}

// Sleeps long enough for idle OpenMP teams to stop spinning (libgomp spins for about a
// millisecond before it sleeps). Called before each timed phase: on a CPU backend the host's own
// parallel work (random fill, verification, the OpenMP peer) and the backend's threads share the
// cores, and a team still spinning would slow the phase measured next.
inline void settle_host_threads() { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }

// Effective bandwidth in GB/s (1e9 bytes per second); 0 when the time is 0.
inline double gbps(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e6) : 0.0; }

} // namespace gpucore::cli

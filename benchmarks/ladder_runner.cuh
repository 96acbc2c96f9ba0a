// SPDX-License-Identifier: Apache-2.0
// Runs one ladder: every rung on the same data, timed by the project's benchmark method, then each
// run once more on a poisoned output and checked against the host reference.
//
// Method (as benchmarks/gpu_bench.cu, BENCHMARKS.md): the GPU is kept busy for a second before
// the first ladder (an idle GPU's clocks are low); each rung first runs untimed for 20 ms (memory
// just allocated runs slow for its first milliseconds); then two rounds, the rungs in order and
// then in reverse, each rung's samples preceded by an L2 flush; a rung's time is the mean of its
// two round medians, so a drift during the ladder falls on every rung alike.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ladder_report.hpp"
#include "ladder_support.cuh"

namespace ladder {

struct Step {
    Rung rung;
    bool on_gpucore = false;         // enqueue() uses the gpucore stream, else the raw stream
    std::function<void()> prepare;   // raw rungs only, untimed before each sample (may be empty)
    std::function<void()> enqueue;   // the work
    std::function<void()> poison;    // before the checked run (may be empty)
    std::function<bool()> verify;    // after the checked run; empty: not checked (the copy)
};

class Runner {
public:
    Runner(gpucore::Device device, Repeats repeats)
        : device_(std::move(device)), stream_(device_), flush_(device_), repeats_(repeats) {
        LADDER_CHECK(gpuSetDevice(device_.index()));
        LADDER_CHECK(gpuStreamCreateWithFlags(&raw_, gpuStreamNonBlocking));
    }
    ~Runner() { (void)gpuStreamDestroy(raw_); }
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;

    const gpucore::Device& device() const { return device_; }
    gpucore::Stream& stream() { return stream_; }
    gpuStream_t raw() const { return raw_; }

    void synchronize() {
        LADDER_CHECK(gpuStreamSynchronize(raw_));
        stream_.synchronize();
    }

    // Device-to-device copies within a scratch buffer for `seconds`.
    void warm_up(double seconds) {
        const std::size_t half = std::size_t{128} << 20;
        gpucore::Buffer<std::uint32_t> scratch(device_, 2 * half / 4);
        scratch.fill(0u);
        auto* bytes = reinterpret_cast<unsigned char*>(scratch.data());
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (std::chrono::steady_clock::now() < until) {
            for (int i = 0; i < 20; ++i) {
                LADDER_CHECK(gpuMemcpyAsync(bytes + half, bytes, half, gpuMemcpyDefault, raw_));
            }
            LADDER_CHECK(gpuStreamSynchronize(raw_));
        }
    }

    // timed: settle, two rounds, then check each rung (a LadderResult); else only the checks (one
    // ShapeCheck per checked rung: the awkward shapes).
    void run(Report& report, const std::string& ladder, const std::string& shape,
             std::vector<Step>& steps, bool timed) {
        if (timed) {
            std::vector<Repeats> repeats;
            for (Step& s : steps) repeats.push_back(settle(s));
            std::vector<double> first(steps.size()), second(steps.size());
            for (std::size_t i = 0; i < steps.size(); ++i) first[i] = measure(steps[i], repeats[i]);
            for (std::size_t i = steps.size(); i-- > 0;) second[i] = measure(steps[i], repeats[i]);
            for (std::size_t i = 0; i < steps.size(); ++i) steps[i].rung.ms = 0.5 * (first[i] + second[i]);
        }
        LadderResult result{ladder, shape, {}};
        for (Step& s : steps) {
            if (s.verify) {
                s.rung.checked = true;
                s.rung.verified = run_checked(s);
                if (!timed) report.checks.push_back({ladder, shape, s.rung.name, s.rung.verified});
            }
            result.rungs.push_back(s.rung);
        }
        if (timed) report.ladders.push_back(std::move(result));
    }

private:
    void run_once(Step& s) {
        if (s.on_gpucore) {
            s.enqueue();
            stream_.synchronize();
        } else {
            if (s.prepare) s.prepare();
            s.enqueue();
            LADDER_CHECK(gpuGetLastError());
            LADDER_CHECK(gpuStreamSynchronize(raw_));
        }
    }

    // Runs the rung untimed for at least 20 ms (and twice), and sizes its samples from the time a
    // run took: at most about 0.4 s of samples per round, 5 to the configured count.
    Repeats settle(Step& s) {
        synchronize();
        const auto start = std::chrono::steady_clock::now();
        int runs = 0;
        double elapsed_ms = 0;
        do {
            run_once(s);
            ++runs;
            elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        } while (elapsed_ms < 20 || runs < 2);
        const double per_run = elapsed_ms / runs;
        Repeats r = repeats_;
        r.reps = std::max(std::min(r.reps, 5), std::min(r.reps, static_cast<int>(400 / per_run)));
        if (per_run > 20) r.warmup = std::min(r.warmup, 1);
        return r;
    }

    double measure(Step& s, const Repeats& r) {
        synchronize();
        if (s.on_gpucore) return time_gpucore_ms(stream_, flush_, r, s.enqueue);
        const auto prepare = [&] {
            if (s.prepare) s.prepare();
        };
        return time_raw_ms(raw_, flush_, r, prepare, s.enqueue);
    }

    bool run_checked(Step& s) {
        synchronize();
        if (s.poison) s.poison();
        synchronize();
        run_once(s);
        synchronize();
        return s.verify();
    }

    gpucore::Device device_;
    gpucore::Stream stream_;
    L2Flush flush_;
    Repeats repeats_;
    gpuStream_t raw_ = nullptr;
};

} // namespace ladder

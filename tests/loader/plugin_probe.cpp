// SPDX-License-Identifier: Apache-2.0
// plugin_probe: prints what this process's gpucore runtime discovered, one record per line, so the
// loader tests can run each scenario in a fresh process (discovery runs once per process).
//
//   candidate <TAB> loaded|skipped <TAB> backend <TAB> path <TAB> reason
//   backend   <TAB> name <TAB> usable|unusable <TAB> device count <TAB> source <TAB> reason <TAB> version
//   selected  <TAB> backend:index             (default_device(), i.e. GPU_BACKEND)
//   compute_units <TAB> N                     (of the selected device)
//   cpu_threads <TAB> N                       (the cpu backend's worker threads, whatever is selected)
//   error     <TAB> code <TAB> message        (when default_device() throws)
//   run       <TAB> ok|FAILED <TAB> detail    (vector_add of 1000 f32 on the selected device)
//   race      <TAB> ok|FAILED <TAB> detail    (--race N: N threads start the runtime at once)
//   step      <TAB> name <TAB> outcome <TAB> detail  (--exercise: a fixed sequence of calls on the
//             selected device; outcome "ok", "Error" (detail: code and what()) or "exception")
//
// Exit status 0 unless the probe itself broke (selection errors are reported, not fatal).
#include <cstdio>
#include <exception>
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpucore/gpucore.hpp"

namespace {

std::string one_line(std::string text) {
    for (char& c : text) {
        if (c == '\n' || c == '\t') c = ' ';
    }
    return text;
}

// Runs a small vector_add on `device` and checks it exactly (integers-valued floats add exactly).
std::string run_vector_add(const gpucore::Device& device) {
    const std::size_t n = 1000;
    std::mt19937 rng(12345);
    std::uniform_int_distribution<int> dist(-1000, 1000);
    std::vector<float> a(n), b(n), c(n, -7.0f);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>(dist(rng));
        b[i] = static_cast<float>(dist(rng));
    }
    gpucore::Stream stream(device);
    gpucore::Buffer<float> da(device, n), db(device, n), dc(device, n);
    da.copy_from_host(a);
    db.copy_from_host(b);
    dc.fill(-1.0f);
    gpucore::vector_add(stream, da, db, dc);
    stream.synchronize();
    dc.copy_to_host(c.data(), c.size());
    for (std::size_t i = 0; i < n; ++i) {
        if (c[i] != a[i] + b[i]) {
            return "FAILED\tc[" + std::to_string(i) + "] = " + std::to_string(c[i]) + ", want " +
                   std::to_string(a[i] + b[i]);
        }
    }
    return "ok\t" + device.to_string();
}

// N threads released at once all ask for the runtime's lists; every one must see the same lists.
std::string race_runtime_start(int threads) {
    std::atomic<bool> go{false};
    std::vector<std::size_t> device_counts(static_cast<std::size_t>(threads));
    std::vector<std::size_t> candidate_counts(static_cast<std::size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            while (!go.load()) std::this_thread::yield();
            device_counts[static_cast<std::size_t>(t)] = gpucore::devices().size();
            candidate_counts[static_cast<std::size_t>(t)] = gpucore::plugin_candidates().size();
        });
    }
    go.store(true);
    for (auto& thread : pool) thread.join();
    for (int t = 1; t < threads; ++t) {
        if (device_counts[static_cast<std::size_t>(t)] != device_counts[0] ||
            candidate_counts[static_cast<std::size_t>(t)] != candidate_counts[0]) {
            return "FAILED\tthread " + std::to_string(t) + " saw different lists";
        }
    }
    return "ok\t" + std::to_string(threads) + " threads, " + std::to_string(device_counts[0]) + " devices";
}

// Runs `body` and prints its outcome as a step record; never lets anything escape.
template <class Body>
void step(const char* name, Body body) {
    std::string outcome;
    try {
        outcome = "ok\t" + body();
    } catch (const gpucore::Error& e) {
        outcome = std::string("Error\t") + gpucore::to_string(e.code()) + " " + one_line(e.what());
    } catch (const std::exception& e) {
        outcome = std::string("exception\t") + one_line(e.what());
    } catch (...) {
        outcome = "exception\tnot a std::exception";
    }
    std::printf("step\t%s\t%s\n", name, outcome.c_str());
    std::fflush(stdout);
}

// Each call a plugin slot can be reached by, in order; used to check how a misbehaving backend is
// contained (every step must end in "ok" or a gpucore::Error, never anything else).
void exercise(const gpucore::Device& device) {
    step("allocate", [&] {
        gpucore::Buffer<float> buffer(device, 1000);
        return std::string();
    });
    step("fill", [&] {
        gpucore::Buffer<float> buffer(device, 1000);
        buffer.fill(1.0f);
        std::vector<float> host(1000, -1.0f);
        buffer.copy_to_host(host.data(), host.size());
        for (float value : host) {
            if (value != 1.0f) return std::string("WRONG VALUE");
        }
        return std::string();
    });
    step("stream", [&] {
        gpucore::Stream stream(device);
        stream.synchronize();
        return std::string();
    });
    step("event", [&] {
        gpucore::Event event(device);
        return std::string();
    });
    step("again", [&] {
        gpucore::Buffer<float> buffer(device, 10);
        buffer.fill(2.0f);
        return std::string();
    });
    step("devices", [&] {
        std::size_t count = 0;
        for (const auto& d : gpucore::devices()) count += d.backend_name() == device.backend_name();
        return std::to_string(count);
    });
}

} // namespace

int main(int argc, char** argv) {
    const bool run = argc > 1 && std::string(argv[1]) == "--run";
    const bool exercise_selected = argc > 1 && std::string(argv[1]) == "--exercise";
    const int race_threads = argc > 2 && std::string(argv[1]) == "--race" ? std::stoi(argv[2]) : 0;
    try {
        if (race_threads > 0) std::printf("race\t%s\n", race_runtime_start(race_threads).c_str());
        for (const auto& c : gpucore::plugin_candidates()) {
            std::printf("candidate\t%s\t%s\t%s\t%s\n", gpucore::to_string(c.outcome), c.backend.c_str(),
                        c.path.c_str(), one_line(c.reason).c_str());
        }
        for (const auto& b : gpucore::backends()) {
            std::printf("backend\t%s\t%s\t%d\t%s\t%s\t%s\n", b.name.c_str(), b.usable ? "usable" : "unusable",
                        b.device_count, b.source.c_str(), one_line(b.reason).c_str(), one_line(b.version).c_str());
        }
        gpucore::Device selected;
        try {
            selected = gpucore::default_device();
            std::printf("selected\t%s\n", selected.to_string().c_str());
            std::printf("compute_units\t%u\n", selected.properties().compute_units);
        } catch (const gpucore::Error& e) {
            std::printf("error\t%s\t%s\n", gpucore::to_string(e.code()), one_line(e.what()).c_str());
        }
        try {
            std::printf("cpu_threads\t%u\n", gpucore::select_device("cpu").properties().compute_units);
        } catch (const gpucore::Error& e) {
            std::printf("error\t%s\t%s\n", gpucore::to_string(e.code()), one_line(e.what()).c_str());
        }
        if (run && selected.valid()) {
            std::string outcome;
            try {
                outcome = run_vector_add(selected);
            } catch (const std::exception& e) {
                outcome = std::string("FAILED\t") + one_line(e.what());
            }
            std::printf("run\t%s\n", outcome.c_str());
        }
        if (exercise_selected && selected.valid()) {
            std::fflush(stdout);
            exercise(selected);
            // Listing again must not start discovery again (counted in the debug log).
            std::printf("candidates_again\t%zu\n", gpucore::plugin_candidates().size());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "plugin_probe: %s\n", e.what());
        return 2;
    }
    std::fflush(stdout);
    return 0;
}

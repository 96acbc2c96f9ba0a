// SPDX-License-Identifier: Apache-2.0
// Results of the CUDA benchmark: measured cases (gpucore beside a peer), target checks (the
// targets' table), sweep points (for the plot); printed as tables and written as JSON.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace bench {

struct CaseResult {
    std::string name;      // "vector_add f32 2^28"
    std::string op;        // "vector_add"
    std::string dtype;     // "f32"
    std::string shape;     // "268435456" or "2048x262144"
    double bytes = 0;      // bytes the op must move (inputs read once, outputs written once)
    double gpucore_ms = 0;
    std::string peer;      // "thrust::transform", "cub::DeviceReduce::Sum", "cudaMemcpy D2D", ...
    double peer_ms = 0;
    double peer_bytes = 0; // bytes the peer moves (copy: 2 * size)
    bool verified = false; // gpucore's output checked (against the peer or exactly)
    std::string check;     // how it was checked
    double gpucore_gbps() const { return gpucore_ms > 0 ? bytes / gpucore_ms / 1e6 : 0; }
    double peer_gbps() const { return peer_ms > 0 ? peer_bytes / peer_ms / 1e6 : 0; }
};

struct TargetResult {
    std::string target;    // the target's row
    std::string measure;   // what the ratio is
    double ratio = 0;
    double goal = 0;
    bool lower_is_better = false;
    bool met() const { return lower_is_better ? ratio <= goal : ratio >= goal; }
};

struct SweepPoint {
    std::string op;    // plot panel
    std::string impl;  // "gpucore", "thrust", "cub", "copy"
    double bytes = 0;
    double ms = 0;
    double gbps() const { return ms > 0 ? bytes / ms / 1e6 : 0; }
};

struct HostLaunch {
    double gpucore_us = 0;
    double raw_us = 0;
    // Where gpucore's extra host time goes: a raw launch with the two runtime calls the plugin's
    // slot makes around it (cudaGetDevice, cudaGetLastError), and the core's checks alone (a call
    // on 0 elements, which returns before the plugin).
    double checked_raw_us = 0;
    double core_checks_us = 0;
    // The core's checks on 0 elements, then a checked raw launch, in one call: above the sum of the
    // two alone when each evicts the other's code and data from the processor's caches.
    double checks_then_raw_us = 0;
};

// Host time of one blocking call (median of many), gpucore beside the CUDA call a user of the
// legacy default stream would make.
struct BlockingLatency {
    std::string name; // "to_vector 4 KiB, 4 idle streams"
    double gpucore_us = 0;
    std::string peer; // "cudaMemcpy D2H"
    double peer_us = 0;
    double ratio() const { return peer_us > 0 ? gpucore_us / peer_us : 0; }
};

struct Report {
    std::string device, architecture, driver, runtime, date;
    double peak_gbps = 0;
    std::vector<CaseResult> cases;
    std::vector<TargetResult> targets;
    std::vector<SweepPoint> sweep;
    HostLaunch launch;
    std::vector<BlockingLatency> blocking;
};

inline std::string json_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

inline void print_report(const Report& r) {
    std::printf("\n%s (%s), driver %s, CUDA runtime %s, %s\n", r.device.c_str(),
                r.architecture.c_str(), r.driver.c_str(), r.runtime.c_str(), r.date.c_str());
    std::printf("\n%-34s %10s %9s | %-30s %10s %9s | %s\n", "case", "gpucore ms", "GB/s", "peer",
                "peer ms", "GB/s", "verified");
    for (const CaseResult& c : r.cases) {
        std::printf("%-34s %10.4f %9.1f | %-30s %10.4f %9.1f | %s\n", c.name.c_str(), c.gpucore_ms,
                    c.gpucore_gbps(), c.peer.c_str(), c.peer_ms, c.peer_gbps(),
                    c.verified ? "yes" : "NO");
    }
    std::printf("\nhost time per launch, vector_add f32 n=32: gpucore %.3f us, raw <<<>>> %.3f us; raw with "
                "cudaGetDevice + cudaGetLastError %.3f us; gpucore's checks alone (0 elements) %.3f us; the "
                "checks then the checked raw launch %.3f us\n",
                r.launch.gpucore_us, r.launch.raw_us, r.launch.checked_raw_us, r.launch.core_checks_us,
                r.launch.checks_then_raw_us);
    if (!r.blocking.empty()) {
        std::printf("\n%-46s %12s | %-34s %9s | %s\n", "blocking call (host time, median)", "gpucore us",
                    "peer", "peer us", "gpucore / peer");
        for (const BlockingLatency& b : r.blocking) {
            std::printf("%-46s %12.2f | %-34s %9.2f | %.3f\n", b.name.c_str(), b.gpucore_us, b.peer.c_str(),
                        b.peer_us, b.ratio());
        }
    }
    std::printf("\n%-58s %-44s %8s %8s %s\n", "target", "measure", "ratio", "goal", "met");
    for (const TargetResult& t : r.targets) {
        std::printf("%-58s %-44s %8.3f %s%-7.2f %s\n", t.target.c_str(), t.measure.c_str(), t.ratio,
                    t.lower_is_better ? "<=" : ">=", t.goal, t.met() ? "yes" : "NO");
    }
}

inline bool write_json(const Report& r, const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) return false;
    std::fprintf(f, "{\n  \"device\": \"%s\",\n  \"architecture\": \"%s\",\n  \"driver\": \"%s\",\n",
                 json_escape(r.device).c_str(), r.architecture.c_str(), r.driver.c_str());
    std::fprintf(f, "  \"cuda_runtime\": \"%s\",\n  \"date\": \"%s\",\n  \"peak_gbps\": %.1f,\n",
                 r.runtime.c_str(), r.date.c_str(), r.peak_gbps);
    std::fprintf(f, "  \"host_launch_us\": {\"gpucore\": %.4f, \"raw\": %.4f, \"checked_raw\": %.4f, \"core_checks\": %.4f, \"checks_then_raw\": %.4f},\n",
                 r.launch.gpucore_us, r.launch.raw_us, r.launch.checked_raw_us, r.launch.core_checks_us,
                 r.launch.checks_then_raw_us);
    std::fprintf(f, "  \"blocking_us\": [\n");
    for (std::size_t i = 0; i < r.blocking.size(); ++i) {
        const BlockingLatency& b = r.blocking[i];
        std::fprintf(f, "    {\"name\": \"%s\", \"gpucore_us\": %.3f, \"peer\": \"%s\", \"peer_us\": %.3f}%s\n",
                     json_escape(b.name).c_str(), b.gpucore_us, json_escape(b.peer).c_str(), b.peer_us,
                     i + 1 < r.blocking.size() ? "," : "");
    }
    std::fprintf(f, "  ],\n");
    std::fprintf(f, "  \"cases\": [\n");
    for (std::size_t i = 0; i < r.cases.size(); ++i) {
        const CaseResult& c = r.cases[i];
        std::fprintf(f,
                     "    {\"name\": \"%s\", \"op\": \"%s\", \"dtype\": \"%s\", \"shape\": \"%s\", "
                     "\"bytes\": %.0f, \"gpucore_ms\": %.6f, \"gpucore_gbps\": %.2f, \"peer\": \"%s\", "
                     "\"peer_ms\": %.6f, \"peer_gbps\": %.2f, \"verified\": %s, \"check\": \"%s\"}%s\n",
                     c.name.c_str(), c.op.c_str(), c.dtype.c_str(), c.shape.c_str(), c.bytes,
                     c.gpucore_ms, c.gpucore_gbps(), json_escape(c.peer).c_str(), c.peer_ms,
                     c.peer_gbps(), c.verified ? "true" : "false", json_escape(c.check).c_str(),
                     i + 1 < r.cases.size() ? "," : "");
    }
    std::fprintf(f, "  ],\n  \"targets\": [\n");
    for (std::size_t i = 0; i < r.targets.size(); ++i) {
        const TargetResult& t = r.targets[i];
        std::fprintf(f,
                     "    {\"target\": \"%s\", \"measure\": \"%s\", \"ratio\": %.4f, \"goal\": %.2f, "
                     "\"lower_is_better\": %s, \"met\": %s}%s\n",
                     json_escape(t.target).c_str(), json_escape(t.measure).c_str(), t.ratio, t.goal,
                     t.lower_is_better ? "true" : "false", t.met() ? "true" : "false",
                     i + 1 < r.targets.size() ? "," : "");
    }
    std::fprintf(f, "  ],\n  \"sweep\": [\n");
    for (std::size_t i = 0; i < r.sweep.size(); ++i) {
        const SweepPoint& p = r.sweep[i];
        std::fprintf(f, "    {\"op\": \"%s\", \"impl\": \"%s\", \"bytes\": %.0f, \"ms\": %.6f, \"gbps\": %.2f}%s\n",
                     p.op.c_str(), p.impl.c_str(), p.bytes, p.ms, p.gbps(),
                     i + 1 < r.sweep.size() ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
    return std::fclose(f) == 0;
}

} // namespace bench

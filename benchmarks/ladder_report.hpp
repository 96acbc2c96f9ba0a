// SPDX-License-Identifier: Apache-2.0
// Results of the lessons' ladder benchmark: per ladder (one op at one shape) its rungs, gpucore's
// kernel and a device-to-device copy of the same bytes timed in the same run; exact checks at
// awkward shapes. Printed as tables and written as JSON.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace ladder {

struct Rung {
    std::string name;   // "naive", "v2 (shuffle)", "gpucore", "D2D copy"
    std::string kind;   // "lesson", "gpucore" or "copy"
    std::string claim;  // the lesson's own claim for this rung, where the repository records one
    double bytes = 0;   // bytes the rung must move (inputs read once, outputs written once)
    double ms = 0;      // device time, mean of the two rounds' medians
    bool checked = false;  // the copy baseline is not checked
    bool verified = false;
    std::string check;  // how the output was checked
    double gbps() const { return ms > 0 ? bytes / ms / 1e6 : 0; }
};

struct LadderResult {
    std::string ladder; // "transpose f32"
    std::string shape;  // "16384x16384"
    std::vector<Rung> rungs;
    double copy_gbps() const {
        for (const Rung& r : rungs) {
            if (r.kind == "copy") return r.gbps();
        }
        return 0;
    }
};

// One rung run once at an awkward shape and checked exactly.
struct ShapeCheck {
    std::string ladder, shape, rung;
    bool passed = false;
};

struct Report {
    std::string device, architecture, backend, runtime, date;
    double peak_gbps = 0; // theoretical, from the device's memory clock and bus width; 0: unknown
    unsigned warp_size = 0;
    std::vector<LadderResult> ladders;
    std::vector<ShapeCheck> checks;

    bool all_verified() const {
        for (const LadderResult& l : ladders) {
            for (const Rung& r : l.rungs) {
                if (r.checked && !r.verified) return false;
            }
        }
        for (const ShapeCheck& c : checks) {
            if (!c.passed) return false;
        }
        return true;
    }
};

inline std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (const char ch : s) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

// "%.1f" of a percentage, or "-" (text) / null (JSON) when the base is unknown.
inline std::string percent_text(double value, double base) {
    if (!(base > 0)) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", 100.0 * value / base);
    return buf;
}
inline std::string percent_json(double value, double base) {
    if (!(base > 0)) return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", 100.0 * value / base);
    return buf;
}

inline void print_report(const Report& rep) {
    std::printf("\n%s (%s, %s backend, warp %u), %s, %s\n", rep.device.c_str(), rep.architecture.c_str(),
                rep.backend.c_str(), rep.warp_size, rep.runtime.c_str(), rep.date.c_str());
    if (rep.peak_gbps > 0) std::printf("theoretical peak: %.0f GB/s (memory clock x bus width)\n", rep.peak_gbps);
    else std::printf("theoretical peak: not reported by the device (%% of peak left blank)\n");
    for (const LadderResult& l : rep.ladders) {
        std::printf("\n%s %s\n", l.ladder.c_str(), l.shape.c_str());
        std::printf("  %-24s %10s %9s %9s %9s  %-8s %s\n", "rung", "ms", "GB/s", "% peak", "% copy",
                    "verified", "lesson's claim");
        for (const Rung& r : l.rungs) {
            std::printf("  %-24s %10.4f %9.1f %9s %9s  %-8s %s\n", r.name.c_str(), r.ms, r.gbps(),
                        percent_text(r.gbps(), rep.peak_gbps).c_str(),
                        percent_text(r.gbps(), l.copy_gbps()).c_str(),
                        !r.checked ? "-" : r.verified ? "yes" : "NO", r.claim.c_str());
        }
    }
    std::size_t passed = 0;
    for (const ShapeCheck& c : rep.checks) passed += c.passed ? 1 : 0;
    std::printf("\nexact checks at awkward shapes: %zu of %zu passed\n", passed, rep.checks.size());
    for (const ShapeCheck& c : rep.checks) {
        if (!c.passed) std::printf("  FAILED: %s %s %s\n", c.ladder.c_str(), c.shape.c_str(), c.rung.c_str());
    }
}

inline bool write_json(const Report& rep, const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) return false;
    std::fprintf(f, "{\n  \"device\": %s,\n  \"architecture\": %s,\n  \"backend\": %s,\n",
                 json_string(rep.device).c_str(), json_string(rep.architecture).c_str(),
                 json_string(rep.backend).c_str());
    std::fprintf(f, "  \"runtime\": %s,\n  \"date\": %s,\n  \"warp_size\": %u,\n",
                 json_string(rep.runtime).c_str(), json_string(rep.date).c_str(), rep.warp_size);
    if (rep.peak_gbps > 0) std::fprintf(f, "  \"peak_gbps\": %.1f,\n", rep.peak_gbps);
    else std::fprintf(f, "  \"peak_gbps\": null,\n");
    std::fprintf(f, "  \"ladders\": [\n");
    for (std::size_t i = 0; i < rep.ladders.size(); ++i) {
        const LadderResult& l = rep.ladders[i];
        std::fprintf(f, "    {\"ladder\": %s, \"shape\": %s, \"copy_gbps\": %.2f, \"rungs\": [\n",
                     json_string(l.ladder).c_str(), json_string(l.shape).c_str(), l.copy_gbps());
        for (std::size_t k = 0; k < l.rungs.size(); ++k) {
            const Rung& r = l.rungs[k];
            std::fprintf(f,
                         "      {\"name\": %s, \"kind\": %s, \"bytes\": %.0f, \"ms\": %.6f, "
                         "\"gbps\": %.2f, \"percent_of_peak\": %s, \"percent_of_copy\": %s, "
                         "\"verified\": %s, \"check\": %s, \"claim\": %s}%s\n",
                         json_string(r.name).c_str(), json_string(r.kind).c_str(), r.bytes, r.ms,
                         r.gbps(), percent_json(r.gbps(), rep.peak_gbps).c_str(),
                         percent_json(r.gbps(), l.copy_gbps()).c_str(),
                         !r.checked ? "null" : r.verified ? "true" : "false",
                         json_string(r.check).c_str(),
                         r.claim.empty() ? "null" : json_string(r.claim).c_str(),
                         k + 1 < l.rungs.size() ? "," : "");
        }
        std::fprintf(f, "    ]}%s\n", i + 1 < rep.ladders.size() ? "," : "");
    }
    std::fprintf(f, "  ],\n  \"shape_checks\": [\n");
    for (std::size_t i = 0; i < rep.checks.size(); ++i) {
        const ShapeCheck& c = rep.checks[i];
        std::fprintf(f, "    {\"ladder\": %s, \"shape\": %s, \"rung\": %s, \"passed\": %s}%s\n",
                     json_string(c.ladder).c_str(), json_string(c.shape).c_str(),
                     json_string(c.rung).c_str(), c.passed ? "true" : "false",
                     i + 1 < rep.checks.size() ? "," : "");
    }
    std::fprintf(f, "  ],\n  \"all_verified\": %s\n}\n", rep.all_verified() ? "true" : "false");
    const bool written = !std::ferror(f);
    return std::fclose(f) == 0 && written;
}

} // namespace ladder

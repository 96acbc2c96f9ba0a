// plugin_probe: prints what this process's gpucore runtime discovered, one record per line, so the
// loader tests can run each scenario in a fresh process (discovery runs once per process).
//
//   candidate <TAB> loaded|skipped <TAB> backend <TAB> path <TAB> reason
//   backend   <TAB> name <TAB> usable|unusable <TAB> device count <TAB> source <TAB> reason
//   selected  <TAB> backend:index             (default_device(), i.e. GPU_BACKEND)
//   error     <TAB> code <TAB> message        (when default_device() throws)
//   run       <TAB> ok|FAILED <TAB> detail    (vector_add of 1000 f32 on the selected device)
//
// Exit status 0 unless the probe itself broke (selection errors are reported, not fatal).
#include <cstdio>
#include <exception>
#include <random>
#include <string>
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

} // namespace

int main(int argc, char** argv) {
    const bool run = argc > 1 && std::string(argv[1]) == "--run";
    try {
        for (const auto& c : gpucore::plugin_candidates()) {
            std::printf("candidate\t%s\t%s\t%s\t%s\n", gpucore::to_string(c.outcome), c.backend.c_str(),
                        c.path.c_str(), one_line(c.reason).c_str());
        }
        for (const auto& b : gpucore::backends()) {
            std::printf("backend\t%s\t%s\t%d\t%s\t%s\n", b.name.c_str(), b.usable ? "usable" : "unusable",
                        b.device_count, b.source.c_str(), one_line(b.reason).c_str());
        }
        gpucore::Device selected;
        try {
            selected = gpucore::default_device();
            std::printf("selected\t%s\n", selected.to_string().c_str());
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
    } catch (const std::exception& e) {
        std::fprintf(stderr, "plugin_probe: %s\n", e.what());
        return 2;
    }
    std::fflush(stdout);
    return 0;
}

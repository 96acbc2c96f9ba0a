// SPDX-License-Identifier: Apache-2.0
// device_query: the gpucore version of the classic deviceQuery sample. Lists every backend the
// runtime knows (and why an unusable one is unusable), then every device with its properties.
// Checks that the default device is one of the devices listed and that its properties are sane.
#include <cstdlib>
#include <iostream>

#include "gpucore/gpucore.hpp"

int main() try {
    std::cout << "Backends:\n";
    for (const gpucore::BackendInfo& b : gpucore::backends()) {
        std::cout << "  " << b.name << " (" << b.source << ", " << b.version << "): "
                  << b.device_count << " device(s)";
        if (!b.usable) std::cout << ", unusable: " << b.reason;
        std::cout << "\n";
    }

    const std::vector<gpucore::Device> devices = gpucore::devices();
    std::cout << "\n" << devices.size() << " device(s):\n";
    for (const gpucore::Device& d : devices) {
        const gpucore::DeviceProperties& p = d.properties();
        std::cout << "\nDevice " << d.to_string() << ": \"" << p.name << "\"\n"
                  << "  Vendor / architecture:        " << p.vendor << " / " << p.architecture << "\n"
                  << "  Total memory:                 " << p.total_memory_bytes / (1024 * 1024) << " MiB\n"
                  << "  Compute units:                " << p.compute_units << "\n"
                  << "  Warp (wavefront) size:        " << p.warp_size << "\n"
                  << "  L2 cache:                     " << p.l2_cache_bytes / 1024 << " KiB\n"
                  << "  Peak memory bandwidth:        " << p.peak_memory_bandwidth_gbps << " GB/s"
                  << (p.peak_memory_bandwidth_gbps > 0 ? "" : " (unknown)") << "\n"
                  << "  Pinned host / managed memory: " << (p.supports_pinned_host ? "yes" : "no")
                  << " / " << (p.supports_managed ? "yes" : "no") << "\n";
    }

    const gpucore::Device chosen = gpucore::default_device();
    std::cout << "\nDefault device (GPU_BACKEND or auto): " << chosen.to_string() << "\n";

    bool ok = false;
    for (const gpucore::Device& d : devices) ok = ok || d == chosen;
    const gpucore::DeviceProperties& p = chosen.properties();
    ok = ok && !p.name.empty() && p.compute_units >= 1 && p.warp_size >= 1 &&
         p.backend == chosen.backend_name() && p.index == chosen.index();
    std::cout << (ok ? "Result = PASS\n" : "Result = FAIL\n");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const gpucore::Error& e) {
    std::cerr << "device_query: " << e.what() << "\n";
    return EXIT_FAILURE;
}

// SPDX-License-Identifier: Apache-2.0
// unified_memory: managed buffers, visible to host and device at the same address. The host
// writes the inputs directly, the device adds them, the host reads the sum directly: no copies.
// A backend without managed memory says so with Error(not_supported), which is reported plainly.
#include <cstdlib>
#include <iostream>

#include "gpucore/gpucore.hpp"

int main() try {
    const std::size_t n = 100003;
    const gpucore::Device device = gpucore::default_device();
    std::cout << "[unified memory on " << device.to_string() << " (" << device.properties().name
              << ")]\n";

    gpucore::Buffer<float> a, b, c;
    try {
        a = gpucore::Buffer<float>(device, n, gpucore::MemoryKind::managed);
        b = gpucore::Buffer<float>(device, n, gpucore::MemoryKind::managed);
        c = gpucore::Buffer<float>(device, n, gpucore::MemoryKind::managed);
    } catch (const gpucore::Error& e) {
        if (e.code() != gpucore::ErrorCode::not_supported) throw;
        std::cout << device.to_string() << " has no managed (unified) memory: " << e.cause()
                  << "\nNothing to demonstrate on this device; try another GPU_BACKEND.\n";
        return EXIT_SUCCESS;
    }

    gpucore::Stream stream(device);
    for (int round = 1; round <= 2; ++round) { // twice: host writes after device use are seen too
        for (std::size_t i = 0; i < n; ++i) {
            a.data()[i] = static_cast<float>(i) * static_cast<float>(round);
            b.data()[i] = 1.0f;
            c.data()[i] = -1.0f;
        }
        gpucore::vector_add(stream, a, b, c);
        stream.synchronize(); // the device is done with c: the host may read it now
        for (std::size_t i = 0; i < n; ++i) {
            if (c.data()[i] != a.data()[i] + 1.0f) {
                std::cerr << "round " << round << ": element " << i << " is " << c.data()[i]
                          << ", expected " << a.data()[i] + 1.0f << "\nTest FAILED\n";
                return EXIT_FAILURE;
            }
        }
    }
    std::cout << "Host wrote, device added, host read " << n << " elements twice.\nTest PASSED\n";
    return EXIT_SUCCESS;
} catch (const gpucore::Error& e) {
    std::cerr << "unified_memory: " << e.what() << "\n";
    return EXIT_FAILURE;
}

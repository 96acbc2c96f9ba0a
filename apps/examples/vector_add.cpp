// vector_add: the first lesson. Copy two arrays to the device, add them there, copy the sum back
// and check every element on the host.
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

#include "gpucore/gpucore.hpp"

int main() try {
    const std::size_t n = 50000; // not a multiple of any block or vector width
    const gpucore::Device device = gpucore::default_device();
    std::cout << "[vector_add of " << n << " elements on " << device.to_string() << " ("
              << device.properties().name << ")]\n";

    std::vector<float> a(n), b(n), c(n, -1.0f);
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = uniform(rng);
        b[i] = uniform(rng);
    }

    gpucore::Buffer<float> d_a(device, n), d_b(device, n), d_c(device, n);
    d_a.copy_from_host(a);
    d_b.copy_from_host(b);

    gpucore::Stream stream(device);
    gpucore::vector_add(stream, d_a, d_b, d_c);
    d_c.copy_to_host_async(stream, c.data(), c.size());
    stream.synchronize();

    // A float sum is correctly rounded everywhere, so the host's a + b must match exactly.
    for (std::size_t i = 0; i < n; ++i) {
        if (c[i] != a[i] + b[i]) {
            std::cerr << "Result verification failed at element " << i << ": " << c[i]
                      << " != " << a[i] + b[i] << "\n";
            return EXIT_FAILURE;
        }
    }
    std::cout << "Test PASSED\n";
    return EXIT_SUCCESS;
} catch (const gpucore::Error& e) {
    std::cerr << "vector_add: " << e.what() << "\n";
    return EXIT_FAILURE;
}

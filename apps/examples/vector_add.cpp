// SPDX-License-Identifier: Apache-2.0
// vector_add: the first lesson. Copy two arrays to the device, add them there, copy the sum back,
// print a few of the sums and the total error against the host's, and check every element.
#include <cmath>
#include <cstdlib>
#include <iomanip>
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

    // A few values, as the lesson shows them.
    std::cout << std::setprecision(7);
    for (const std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{2}, n - 1}) {
        std::cout << "c[" << i << "] = " << c[i] << " (a + b = " << a[i] << " + " << b[i] << ")\n";
    }
    // A float sum is correctly rounded everywhere, so the host's a + b must match exactly: the
    // total error is the sum of |c - (a + b)| over every element, and must be 0.
    double total_error = 0;
    std::size_t first_wrong = n;
    for (std::size_t i = 0; i < n; ++i) {
        const float want = a[i] + b[i];
        if (!(c[i] == want)) {
            total_error += std::isnan(c[i]) ? HUGE_VAL : std::fabs(static_cast<double>(c[i]) - want);
            if (first_wrong == n) first_wrong = i;
        }
    }
    std::cout << "total error: " << total_error << "\n";
    if (first_wrong != n) {
        std::cerr << "Result verification failed at element " << first_wrong << ": " << c[first_wrong]
                  << " != " << a[first_wrong] + b[first_wrong] << "\n";
        return EXIT_FAILURE;
    }
    std::cout << "Test PASSED\n";
    return EXIT_SUCCESS;
} catch (const gpucore::Error& e) {
    std::cerr << "vector_add: " << e.what() << "\n";
    return EXIT_FAILURE;
}

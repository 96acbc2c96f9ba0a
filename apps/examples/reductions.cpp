// SPDX-License-Identifier: Apache-2.0
// reductions: sum, min, max and prod of an array, and the sums of every row of a matrix, with
// inputs whose results are known in closed form so each check is exact.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <vector>

#include "gpucore/gpucore.hpp"

namespace {
bool check(const char* what, double got, double expected) {
    const bool ok = got == expected;
    std::cout << "  " << what << " = " << got << (ok ? "" : "   MISMATCH, expected ")
              << (ok ? "" : std::to_string(expected)) << "\n";
    return ok;
}
} // namespace

int main() try {
    const gpucore::Device device = gpucore::default_device();
    gpucore::Stream stream(device);
    bool ok = true;
    std::cout.precision(15);

    // 1 + 2 + ... + n in double is exact (n(n+1)/2 < 2^53); the values are shuffled so the
    // minimum and the maximum sit at arbitrary positions.
    const std::size_t n = (std::size_t{1} << 20) + 3;
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>((i * 7919) % n + 1);
    gpucore::Buffer<double> d_x(device, n);
    d_x.copy_from_host(x);
    const double nd = static_cast<double>(n);
    std::cout << "[reduce over " << n << " doubles on " << device.to_string() << "]\n";
    ok &= check("sum", gpucore::reduce(stream, d_x, gpucore::ReduceOp::sum), nd * (nd + 1) / 2);
    ok &= check("min", gpucore::reduce(stream, d_x, gpucore::ReduceOp::min), 1.0);
    ok &= check("max", gpucore::reduce(stream, d_x, gpucore::ReduceOp::max), nd);

    // Integer products wrap like unsigned arithmetic: 3^k mod 2^32 is computed on the host.
    const std::size_t k = 1001;
    gpucore::Buffer<std::uint32_t> threes(device, k);
    threes.fill(3u);
    std::uint32_t power = 1;
    for (std::size_t i = 0; i < k; ++i) power *= 3u;
    ok &= check("prod of 1001 threes mod 2^32",
                gpucore::reduce(stream, threes, gpucore::ReduceOp::prod), power);

    // Row r of a rows x cols int matrix holds r - 5 everywhere: its sum is (r - 5) * cols.
    const std::size_t rows = 333, cols = 1027;
    std::vector<std::int32_t> m(rows * cols);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) m[r * cols + c] = static_cast<std::int32_t>(r) - 5;
    gpucore::Buffer<std::int32_t> d_m(device, rows * cols), d_sums(device, rows);
    d_m.copy_from_host(m);
    gpucore::reduce_rows(stream, d_m, d_sums, rows, cols, gpucore::ReduceOp::sum);
    std::vector<std::int32_t> sums(rows);
    d_sums.copy_to_host_async(stream, sums.data(), sums.size());
    stream.synchronize();
    std::size_t bad_rows = 0;
    for (std::size_t r = 0; r < rows; ++r)
        bad_rows += sums[r] != (static_cast<std::int32_t>(r) - 5) * static_cast<std::int32_t>(cols);
    std::cout << "[reduce_rows sum of a " << rows << " x " << cols << " int matrix]\n  "
              << bad_rows << " wrong row sums\n";
    ok &= bad_rows == 0;

    std::cout << (ok ? "Test PASSED\n" : "Test FAILED\n");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const gpucore::Error& e) {
    std::cerr << "reductions: " << e.what() << "\n";
    return EXIT_FAILURE;
}

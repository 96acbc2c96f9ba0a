// SPDX-License-Identifier: Apache-2.0
// Your own kernel with dynamic shared memory and block barriers: the "matmul" module's tiled
// matrix multiply on the default device, checked against a double-precision host product.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <gpucore/gpucore.hpp>

int main(int argc, char** argv) {
    const std::uint32_t m = argc > 1 ? static_cast<std::uint32_t>(std::atoi(argv[1])) : 131;
    const std::uint32_t n = argc > 2 ? static_cast<std::uint32_t>(std::atoi(argv[2])) : 97;
    const std::uint32_t k = argc > 3 ? static_cast<std::uint32_t>(std::atoi(argv[3])) : 203;
    const std::uint32_t tile = argc > 4 ? static_cast<std::uint32_t>(std::atoi(argv[4])) : 16;
    try {
        gpucore::Device device = gpucore::default_device();
        gpucore::Kernel matmul = gpucore::Module::load(device, "matmul").kernel("matmul_tiled");
        std::mt19937 random(5);
        std::uniform_real_distribution<float> value(-1.0f, 1.0f);
        std::vector<float> a(std::size_t{m} * k), b(std::size_t{k} * n);
        for (auto& v : a) v = value(random);
        for (auto& v : b) v = value(random);

        gpucore::Stream stream(device);
        gpucore::Buffer<float> da(device, a.size()), db(device, b.size()), dc(device, std::size_t{m} * n);
        da.copy_from_host(a);
        db.copy_from_host(b);
        dc.fill(std::nanf(""));
        const gpucore::LaunchConfig config{gpucore::Dim3((n + tile - 1) / tile, (m + tile - 1) / tile),
                                           gpucore::Dim3(tile, tile), 2 * std::size_t{tile} * tile * sizeof(float)};
        matmul.launch(stream, config, da, db, dc, m, n, k);
        stream.synchronize();

        const std::vector<float> c = dc.to_vector();
        double worst = 0;
        for (std::uint32_t r = 0; r < m; ++r) {
            for (std::uint32_t col = 0; col < n; ++col) {
                double exact = 0, magnitude = 0;
                for (std::uint32_t i = 0; i < k; ++i) {
                    exact += double(a[std::size_t{r} * k + i]) * b[std::size_t{i} * n + col];
                    magnitude += std::fabs(double(a[std::size_t{r} * k + i]) * b[std::size_t{i} * n + col]);
                }
                const double error = std::fabs(c[std::size_t{r} * n + col] - exact) / (magnitude + 1e-30);
                worst = std::isnan(c[std::size_t{r} * n + col]) ? INFINITY : std::max(worst, error);
            }
        }
        // k float products summed in float: relative error at most about k * 2^-24 of the magnitude.
        const bool ok = worst <= k * 6e-8;
        std::printf("matmul %ux%u * %ux%u (tile %u) on %s: worst relative error %.3g, %s\n", m, k, k, n, tile,
                    device.to_string().c_str(), worst, ok ? "ok" : "WRONG");
        return ok ? 0 : 1;
    } catch (const gpucore::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}

// SPDX-License-Identifier: Apache-2.0
// Your own kernel with atomics and shared memory: the "histogram" module's 256-bin histogram and
// a warp-shuffle sum, on the default device, checked against the host.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <gpucore/gpucore.hpp>

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000003;
    try {
        gpucore::Device device = gpucore::default_device();
        gpucore::Module module = gpucore::Module::load(device, "histogram");
        std::mt19937 random(11);
        std::vector<std::uint32_t> values(n);
        for (auto& v : values) v = random() % 256;
        std::vector<std::uint32_t> expected(256, 0);
        std::uint32_t expected_total = 0;
        for (auto v : values) {
            ++expected[v];
            expected_total += v;
        }

        gpucore::Stream stream(device);
        gpucore::Buffer<std::uint32_t> input(device, n), bins(device, 256), total(device, 1);
        input.copy_from_host(values);
        bins.fill(0u);
        total.fill(0u);
        const gpucore::LaunchConfig config{gpucore::Dim3(64), gpucore::Dim3(256)};
        module.kernel("histogram256").launch(stream, config, input, n, bins);
        module.kernel("sum_u32").launch(stream, config, input, n, total);
        stream.synchronize();

        const bool bins_ok = bins.to_vector() == expected;
        const bool total_ok = total.to_vector()[0] == expected_total;
        std::printf("histogram of %zu values on %s: bins %s, sum %s\n", n, device.to_string().c_str(),
                    bins_ok ? "exact" : "WRONG", total_ok ? "exact" : "WRONG");
        return bins_ok && total_ok ? 0 : 1;
    } catch (const gpucore::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}

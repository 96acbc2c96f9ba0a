// SPDX-License-Identifier: Apache-2.0
// Loads the "block_sums" module built beside this program for the default device's backend, runs
// it, and checks every block's sum and the total against sums taken here on the host.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <gpucore/gpucore.hpp>

int main() {
    try {
        const std::size_t n = 100003;
        const std::uint32_t block = 256;
        const auto blocks = static_cast<std::uint32_t>((n + block - 1) / block);
        std::vector<std::uint32_t> values(n);
        for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>((i * 2654435761u) % 1000u);

        gpucore::Device device = gpucore::default_device();
        gpucore::Module module = gpucore::Module::load(device, "block_sums");
        gpucore::Stream stream(device);
        gpucore::Buffer<std::uint32_t> in(device, n), sums(device, blocks), total(device, 1);
        in.copy_from_host(values);
        total.copy_from_host(std::vector<std::uint32_t>{0});
        module.kernel("block_sums").launch(stream, {gpucore::Dim3(blocks), gpucore::Dim3(block)}, in, n, sums, total);
        stream.synchronize();

        const std::vector<std::uint32_t> got = sums.to_vector();
        std::uint32_t expected_total = 0;
        std::size_t wrong = 0;
        for (std::uint32_t b = 0; b < blocks; ++b) {
            std::uint32_t expected = 0;
            for (std::size_t i = std::size_t{b} * block; i < n && i < (std::size_t{b} + 1) * block; ++i) expected += values[i];
            expected_total += expected;
            if (got[b] != expected) ++wrong;
        }
        const std::uint32_t got_total = total.to_vector()[0];
        std::printf("%s: module %s (%s), %u blocks, total %u (expected %u), %zu wrong blocks\n",
                    device.to_string().c_str(), module.file().c_str(), module.kind().c_str(), blocks, got_total,
                    expected_total, wrong);
        return wrong == 0 && got_total == expected_total ? 0 : 1;
    } catch (const gpucore::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}

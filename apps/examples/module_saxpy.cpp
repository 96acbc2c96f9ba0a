// SPDX-License-Identifier: Apache-2.0
// Your own kernel on any backend: loads the "saxpy" module built for the default device's backend
// (GPU_BACKEND: cuda, hip or cpu, with no change to this program), runs y = a * x + y and checks
// it against the same computation on the host.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <gpucore/gpucore.hpp>

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000003;
    try {
        gpucore::Device device = gpucore::default_device();
        gpucore::Module module = gpucore::Module::load(device, "saxpy");
        gpucore::Kernel saxpy = module.kernel("saxpy");
        std::printf("device %s, module %s\n", device.to_string().c_str(), module.file().c_str());

        std::mt19937 random(7);
        std::uniform_real_distribution<float> value(-1.0f, 1.0f);
        std::vector<float> x(n), y(n);
        for (auto& v : x) v = value(random);
        for (auto& v : y) v = value(random);
        const float a = 1.75f;

        gpucore::Stream stream(device);
        gpucore::Buffer<float> dx(device, n), dy(device, n);
        dx.copy_from_host(x);
        dy.copy_from_host(y);
        // The kernel takes tiles of 8 elements per thread; any grid covers n (a block loops).
        const std::uint32_t block = 256;
        const auto blocks = static_cast<std::uint32_t>(std::min<std::size_t>((n + 8 * block - 1) / (8 * block), 65535));
        saxpy.launch(stream, {gpucore::Dim3(blocks > 0 ? blocks : 1), gpucore::Dim3(block)}, a, dx, dy, n);
        stream.synchronize();

        const std::vector<float> result = dy.to_vector();
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i) {
            // The two IEEE evaluations a compiler may choose: one fused multiply-add (a GPU's, one
            // rounding) or a product and a sum (two roundings); any other value is wrong.
            if (result[i] != std::fma(a, x[i], y[i]) && result[i] != a * x[i] + y[i]) ++wrong;
        }
        std::printf("saxpy of %zu floats: %s\n", n, wrong == 0 ? "exact" : "WRONG");
        return wrong == 0 ? 0 : 1;
    } catch (const gpucore::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}

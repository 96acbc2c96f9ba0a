// SPDX-License-Identifier: Apache-2.0
// A program using an installed gpucore as any project would: the version it was compiled against
// must be the one it runs with, and vector_add on the default device must give the right sums.
#include <cstdio>
#include <cstring>
#include <vector>

#include <gpucore/gpucore.hpp>

int main() {
    const gpucore::Version runtime = gpucore::version();
    if (runtime.major != GPUCORE_VERSION_MAJOR || runtime.minor != GPUCORE_VERSION_MINOR ||
        runtime.patch != GPUCORE_VERSION_PATCH ||
        std::strcmp(runtime.string, GPUCORE_VERSION_STRING) != 0) {
        std::printf("header version %s, library version %s\n", GPUCORE_VERSION_STRING, runtime.string);
        return 1;
    }
    const std::size_t n = 1003;
    std::vector<float> a(n), b(n), c(n, -1.0f);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i) * 0.5f;
        b[i] = 3.0f - static_cast<float>(i % 7);
    }
    const gpucore::Device device = gpucore::default_device();
    gpucore::Stream stream(device);
    gpucore::Buffer<float> da(device, n), db(device, n), dc(device, n);
    da.copy_from_host(a);
    db.copy_from_host(b);
    dc.fill(-1.0f);
    gpucore::vector_add(stream, da, db, dc);
    dc.copy_to_host_async(stream, c.data(), c.size());
    stream.synchronize();
    for (std::size_t i = 0; i < n; ++i) {
        if (c[i] != a[i] + b[i]) {
            std::printf("c[%zu] = %g, expected %g\n", i, double(c[i]), double(a[i] + b[i]));
            return 1;
        }
    }
    std::printf("consumer: gpucore %s, vector_add on %s: ok\n", runtime.string,
                device.to_string().c_str());
    return 0;
}

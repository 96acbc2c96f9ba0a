// SPDX-License-Identifier: Apache-2.0
// Your own CUDA kernel between gpucore operations: launched on a gpucore stream's native handle
// (its cudaStream_t) over gpucore buffers' device pointers, so it runs in order with the gpucore
// work on that stream, with no device synchronize anywhere:
//
//   y = x + y           gpucore::vector_add on `stream`
//   y = 2 * x + y       saxpy<<<..., cuda_stream>>>, your kernel, on the same stream
//   total = sum(y)      gpucore::reduce on `stream`
//   y.to_vector()       a blocking read: waits for the stream's work, yours included
//
// Needs a CUDA device (GPU_BACKEND is not consulted: the kernel is CUDA). Exits 0 when the results
// are right, 1 when they are wrong, 77 when there is no CUDA device.
#include <cuda_runtime.h>

#include <cstdio>
#include <random>
#include <vector>

#include "gpucore/gpucore.hpp"

__global__ void saxpy(float a, const float* x, float* y, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
        y[i] = a * x[i] + y[i];
    }
}

int main() {
    gpucore::Device device;
    try {
        device = gpucore::select_device("cuda");
    } catch (const gpucore::Error& e) {
        std::printf("own_kernel: skipped, no CUDA device: %s\n", e.what());
        return 77;
    }
    try {
        // Small integers in [0, 8): every sum below is exact in float, in any order.
        const std::size_t n = 100003;
        std::mt19937 rng(42);
        std::uniform_int_distribution<int> small(0, 7);
        std::vector<float> hx(n), hy(n);
        for (std::size_t i = 0; i < n; ++i) {
            hx[i] = static_cast<float>(small(rng));
            hy[i] = static_cast<float>(small(rng));
        }

        gpucore::Stream stream(device);
        gpucore::Buffer<float> x(device, n), y(device, n), total(device, 1);
        x.copy_from_host(hx);
        y.copy_from_host(hy);

        // The stream's CUDA handle, and the device it lives on: a kernel runs on the current device,
        // which must be the stream's (Device::index() is its CUDA ordinal).
        auto cuda_stream = static_cast<cudaStream_t>(stream.native_handle());
        if (cudaSetDevice(device.index()) != cudaSuccess) {
            std::printf("own_kernel: cudaSetDevice(%d) failed\n", device.index());
            return 1;
        }

        gpucore::vector_add(stream, x, y, y);                                // gpucore
        saxpy<<<256, 256, 0, cuda_stream>>>(2.0f, x.data(), y.data(), n); // yours
        const cudaError_t launch = cudaGetLastError();
        if (launch != cudaSuccess) {
            std::printf("own_kernel: launch failed: %s\n", cudaGetErrorString(launch));
            return 1;
        }
        gpucore::reduce(stream, y, total, gpucore::ReduceOp::sum); // gpucore again, after yours

        const std::vector<float> result = y.to_vector(); // blocking: no synchronize needed
        const float sum = total.to_vector()[0];

        double want_sum = 0;
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const float want = 3.0f * hx[i] + hy[i];
            want_sum += want;
            if (result[i] != want && wrong++ < 5) {
                std::printf("own_kernel: y[%zu] = %g, want %g\n", i, double(result[i]), double(want));
            }
        }
        std::printf("own_kernel on %s (%s): %zu elements, %zu wrong; sum %.0f, want %.0f\n",
                    device.to_string().c_str(), device.properties().name.c_str(), n, wrong, double(sum),
                    want_sum);
        return wrong == 0 && double(sum) == want_sum ? 0 : 1;
    } catch (const gpucore::Error& e) {
        std::printf("own_kernel: %s\n", e.what());
        return 1;
    }
}

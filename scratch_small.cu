// Ad-hoc profile driver (not committed): gpucore::reduce / vector_add at 2^12 beside CUB / thrust.
#include <cub/cub.cuh>
#include <gpucore/gpucore.hpp>
#include <cstdio>
int main() {
  auto dev = gpucore::select_device("cuda:0");
  gpucore::Stream s(dev);
  const size_t n = 4096;
  gpucore::Buffer<float> in(dev, n), b(dev, n), out(dev, n), r(dev, 1);
  in.fill(1.0f); b.fill(2.0f);
  cudaStream_t raw = static_cast<cudaStream_t>(s.native_handle());
  void* tmp = nullptr; size_t tmp_bytes = 0;
  cub::DeviceReduce::Sum(tmp, tmp_bytes, in.data(), r.data(), (int)n, raw);
  cudaMalloc(&tmp, tmp_bytes);
  for (int i = 0; i < 3; ++i) {
    gpucore::reduce(s, in, r, gpucore::ReduceOp::sum);
    cub::DeviceReduce::Sum(tmp, tmp_bytes, in.data(), r.data(), (int)n, raw);
    gpucore::vector_add(s, in, b, out);
  }
  s.synchronize();
  printf("done\n");
}

// SPDX-License-Identifier: Apache-2.0
// gpucore._timing: the C++ side of python/benchmarks/bench_python.py. Each function times the
// plain C++ API (gpucore::Buffer<T>, gpucore::vector_add) inside one call, with the GIL released,
// so the benchmark can set the same loop written in Python beside it.
#include <algorithm>
#include <chrono>

#include "bindings.hpp"
#include "python_buffer.hpp"

namespace gpucore::python {

namespace {

using Clock = std::chrono::steady_clock;

template <class T>
void fill_inputs(Buffer<T>& a, Buffer<T>& b, Buffer<T>& c) {
    a.fill(T(1));
    b.fill(T(2));
    c.fill(T(0));
}

// Host nanoseconds spent in `batches` x `batch` calls of gpucore::vector_add on n elements; the
// stream is synchronized after each batch, outside the timed part, so the queue never fills.
std::uint64_t vector_add_enqueue_ns(Stream& stream, std::size_t n, std::size_t batches, std::size_t batch) {
    Buffer<float> a(stream.device(), n), b(stream.device(), n), c(stream.device(), n);
    fill_inputs(a, b, c);
    py::gil_scoped_release release;
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < batches; ++k) {
        const auto start = Clock::now();
        for (std::size_t i = 0; i < batch; ++i) gpucore::vector_add(stream, a, b, c);
        total += static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
        stream.synchronize();
    }
    return total;
}

// Seconds for `iterations` calls of gpucore::vector_add on n float elements and the final
// synchronize, after `warmup` untimed calls (memory just allocated runs slow for its first
// milliseconds of use on a GPU: BENCHMARKS.md, Method).
double vector_add_seconds(Stream& stream, std::size_t n, std::size_t iterations, std::size_t warmup) {
    Buffer<float> a(stream.device(), n), b(stream.device(), n), c(stream.device(), n);
    fill_inputs(a, b, c);
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < std::max<std::size_t>(warmup, 1); ++i) gpucore::vector_add(stream, a, b, c);
    stream.synchronize();
    const auto start = Clock::now();
    for (std::size_t i = 0; i < iterations; ++i) gpucore::vector_add(stream, a, b, c);
    stream.synchronize();
    return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

void bind_timing(py::module_& m) {
    py::module_ timing = m.def_submodule("_timing", "C++ reference timings for python/benchmarks/bench_python.py");
    timing.def("vector_add_enqueue_ns", &vector_add_enqueue_ns, py::arg("stream"), py::arg("n"), py::arg("batches"),
               py::arg("batch"));
    timing.def("vector_add_seconds", &vector_add_seconds, py::arg("stream"), py::arg("n"), py::arg("iterations"),
               py::arg("warmup") = 1);
}

} // namespace gpucore::python

// streams_overlap: the classic "overlap data transfers" lesson. c = a + b for n floats, staged
// from pinned host memory, done two ways:
//   serial:    copy a and b to the device, add, copy c back, all on one stream;
//   pipelined: the arrays split into `chunks` pieces dealt round-robin over `streams` streams,
//              each piece doing its own copy in -> add -> copy out, so one piece's copies can
//              overlap another piece's kernel (and copies in with copies out, given two copy
//              engines).
// Prints the speedup of the pipelined version over the serial one, and how close it comes to the
// ideal. With H, K and D the serial version's total host->device, kernel and device->host times
// (event-timed), and copies in and out running on separate engines, the best a pipeline of C
// equal pieces can do is the time of its slowest stage plus one piece of each of the others to
// fill and drain it:
//     ideal = max(H, K, D) + (H + K + D - max(H, K, D)) / C
// (on a device with a single copy engine H and D share it: ideal = max(H + D, K) + ...; see the
// device's documentation). Usage: streams_overlap [streams=4] [chunks=16] [log2 n=24]
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucore/gpucore.hpp"

namespace {

using gpucore::Buffer;

// Host arrays: pinned Buffers where the backend has pinned memory, else ordinary vectors.
struct HostArray {
    Buffer<float> pinned;
    std::vector<float> pageable;
    float* data = nullptr;

    HostArray(const gpucore::Device& device, std::size_t n) {
        if (device.properties().supports_pinned_host) {
            pinned = Buffer<float>(device, n, gpucore::MemoryKind::pinned_host);
            data = pinned.data();
        } else {
            pageable.resize(n);
            data = pageable.data();
        }
    }
};

// Argument i as a count: digits only (std::stoul would wrap "-1" to 2^64 - 1), at most 2^20.
std::size_t arg(int argc, char** argv, int i, std::size_t fallback) {
    if (argc <= i) return fallback;
    const std::string text = argv[i];
    std::size_t value = 0;
    for (char ch : text) {
        if (ch < '0' || ch > '9' || value > (std::size_t{1} << 20))
            throw std::invalid_argument("argument " + std::to_string(i) + " ('" + text +
                                        "') is not a count from 0 to 2^20");
        value = value * 10 + static_cast<std::size_t>(ch - '0');
    }
    if (text.empty() || value > (std::size_t{1} << 20))
        throw std::invalid_argument("argument " + std::to_string(i) + " ('" + text +
                                    "') is not a count from 0 to 2^20");
    return value;
}

} // namespace

int main(int argc, char** argv) try {
    const std::size_t streams = std::max<std::size_t>(1, arg(argc, argv, 1, 4));
    const std::size_t chunks = std::max(streams, arg(argc, argv, 2, 16));
    const std::size_t n = std::size_t{1} << std::min<std::size_t>(arg(argc, argv, 3, 24), 30);
    const gpucore::Device device = gpucore::default_device();
    std::cout << "[streams_overlap on " << device.to_string() << " (" << device.properties().name
              << "): n = " << n << " floats, " << chunks << " chunks over " << streams
              << " streams]\n";
    if (!device.properties().supports_pinned_host)
        std::cout << "note: no pinned host memory on this backend; using pageable memory\n";

    HostArray a(device, n), b(device, n), c(device, n);
    for (std::size_t i = 0; i < n; ++i) {
        a.data[i] = static_cast<float>(i % 1000);
        b.data[i] = 0.5f * static_cast<float>(i % 777);
    }

    // Serial: whole arrays, one stream, each stage bracketed by events.
    Buffer<float> d_a(device, n), d_b(device, n), d_c(device, n);
    gpucore::Stream serial(device);
    std::vector<gpucore::Event> marks;
    for (int i = 0; i < 4; ++i) marks.emplace_back(device);
    auto run_serial = [&] {
        marks[0].record(serial);
        d_a.copy_from_host_async(serial, a.data, n);
        d_b.copy_from_host_async(serial, b.data, n);
        marks[1].record(serial);
        gpucore::vector_add(serial, d_a, d_b, d_c);
        marks[2].record(serial);
        d_c.copy_to_host_async(serial, c.data, n);
        marks[3].record(serial);
        serial.synchronize();
    };
    run_serial(); // warm-up: first touches, lazy initialisation
    run_serial();
    const double h2d = gpucore::elapsed_ms(marks[0], marks[1]);
    const double kernel = gpucore::elapsed_ms(marks[1], marks[2]);
    const double d2h = gpucore::elapsed_ms(marks[2], marks[3]);
    const double serial_ms = gpucore::elapsed_ms(marks[0], marks[3]);

    // Pipelined: one set of device buffers per chunk; chunk k on stream k % streams. A start
    // event on stream 0 that every stream waits for, and each stream's end event that stream 0
    // waits for, bracket the whole pipeline.
    std::vector<gpucore::Stream> pipe;
    for (std::size_t s = 0; s < streams; ++s) pipe.emplace_back(device);
    const std::size_t per_chunk = (n + chunks - 1) / chunks;
    std::vector<Buffer<float>> ca, cb, cc;
    for (std::size_t k = 0; k < chunks; ++k) {
        const std::size_t len = std::min(per_chunk, n - std::min(n, k * per_chunk));
        ca.emplace_back(device, len);
        cb.emplace_back(device, len);
        cc.emplace_back(device, len);
    }
    gpucore::Event start(device), stop(device);
    std::vector<gpucore::Event> ends;
    for (std::size_t s = 0; s < streams; ++s) ends.emplace_back(device);
    auto run_pipelined = [&] {
        start.record(pipe[0]);
        for (std::size_t s = 1; s < streams; ++s) pipe[s].wait(start);
        for (std::size_t k = 0; k < chunks; ++k) {
            gpucore::Stream& s = pipe[k % streams];
            const std::size_t offset = k * per_chunk;
            ca[k].copy_from_host_async(s, a.data + offset, ca[k].size());
            cb[k].copy_from_host_async(s, b.data + offset, cb[k].size());
            gpucore::vector_add(s, ca[k], cb[k], cc[k]);
            cc[k].copy_to_host_async(s, c.data + offset, cc[k].size());
        }
        for (std::size_t s = 1; s < streams; ++s) {
            ends[s].record(pipe[s]);
            pipe[0].wait(ends[s]);
        }
        stop.record(pipe[0]);
        stop.synchronize();
    };
    std::fill(c.data, c.data + n, -1.0f);
    run_pipelined(); // warm-up
    std::fill(c.data, c.data + n, -1.0f);
    run_pipelined();
    const double pipelined_ms = gpucore::elapsed_ms(start, stop);

    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += c.data[i] != a.data[i] + b.data[i];

    const double slowest = std::max({h2d, kernel, d2h});
    const double ideal_ms = slowest + (h2d + kernel + d2h - slowest) / static_cast<double>(chunks);
    std::cout << "serial:    " << serial_ms << " ms (host->device " << h2d << ", kernel " << kernel
              << ", device->host " << d2h << ")\n"
              << "pipelined: " << pipelined_ms << " ms\n"
              << "ideal:     " << ideal_ms << " ms = max(H, K, D) + (H + K + D - max) / " << chunks
              << "\n"
              << "speedup over serial: " << serial_ms / pipelined_ms << "x; ideal / pipelined: "
              << ideal_ms / pipelined_ms << "\n";
    if (wrong != 0) {
        std::cerr << "Test FAILED: " << wrong << " wrong elements\n";
        return EXIT_FAILURE;
    }
    std::cout << "Test PASSED\n";
    return EXIT_SUCCESS;
} catch (const gpucore::Error& e) {
    std::cerr << "streams_overlap: " << e.what() << "\n";
    return EXIT_FAILURE;
} catch (const std::exception& e) { // a bad argument
    std::cerr << "streams_overlap: " << e.what()
              << "\nusage: streams_overlap [streams=4] [chunks=16] [log2 n=24]\n";
    return EXIT_FAILURE;
}

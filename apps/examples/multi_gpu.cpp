// SPDX-License-Identifier: Apache-2.0
// multi_gpu: reduce and vector_add over N elements split across every device of the selected
// backend (GPU_BACKEND; all GPUs of the node with cuda or hip), one stream per device, each device
// working on its own contiguous shard; timed against the whole job on one device.
//
//   examples/multi_gpu [elements]      (default 2^30 on cuda and hip, 2^22 on other backends)
//
// Inputs with closed-form results, exact whatever the order of additions:
//   x[i] = i as uint32 (wrapping):  sum = N(N-1)/2 mod 2^32
//   a[i] = i mod 4096, b[i] = 2 * (i mod 1024) as float: c[i] = a[i] + b[i] < 2^24, exact in f32.
// Shards are copied to the devices before the timing (data resident). Results of the split run are
// gathered to the first device with Buffer::copy_from and checked there.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucore/gpucore.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// One device's part of the job: its shard of each input and its own stream.
struct Shard {
    Shard(const gpucore::Device& d, std::uint64_t first, std::uint64_t count)
        : device(d), begin(first), stream(d), x(d, count), a(d, count), b(d, count), c(d, count), partial(d, 1) {
        std::vector<std::uint32_t> xs(count);
        std::vector<float> as(count), bs(count);
        for (std::uint64_t k = 0; k < count; ++k) {
            const std::uint64_t i = first + k;
            xs[k] = static_cast<std::uint32_t>(i);
            as[k] = static_cast<float>(i % 4096);
            bs[k] = static_cast<float>(2 * (i % 1024));
        }
        x.copy_from_host(xs);
        a.copy_from_host(as);
        b.copy_from_host(bs);
    }
    gpucore::Device device;
    std::uint64_t begin;
    gpucore::Stream stream;
    gpucore::Buffer<std::uint32_t> x;
    gpucore::Buffer<float> a, b, c;
    gpucore::Buffer<std::uint32_t> partial;
};

std::vector<std::unique_ptr<Shard>> split(const std::vector<gpucore::Device>& devices, std::uint64_t n) {
    std::vector<std::unique_ptr<Shard>> shards;
    const std::uint64_t parts = devices.size();
    for (std::uint64_t p = 0; p < parts; ++p) {
        const std::uint64_t first = n * p / parts, last = n * (p + 1) / parts;
        shards.push_back(std::make_unique<Shard>(devices[p], first, last - first));
    }
    return shards;
}

// Best wall time of `repetitions` runs of `enqueue(shard)` on every shard, all streams waited for.
template <class Enqueue>
double best_ms(std::vector<std::unique_ptr<Shard>>& shards, Enqueue enqueue, int repetitions = 5) {
    double best = 1e300;
    for (int rep = 0; rep < repetitions; ++rep) {
        const auto start = Clock::now();
        for (auto& s : shards) enqueue(*s);
        for (auto& s : shards) s->stream.synchronize();
        best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    return best;
}

std::uint32_t sum_of_partials(std::vector<std::unique_ptr<Shard>>& shards) {
    std::uint32_t total = 0;
    for (auto& s : shards) total += s->partial.to_vector()[0];
    return total;
}

// Every c[i] of every shard, gathered to `home` with a copy between devices, equals a[i] + b[i].
bool vector_add_is_exact(std::vector<std::unique_ptr<Shard>>& shards, const gpucore::Device& home) {
    for (auto& s : shards) {
        gpucore::Buffer<float> gathered(home, s->c.size());
        gathered.copy_from(s->c);
        const std::vector<float> c = gathered.to_vector();
        for (std::uint64_t k = 0; k < c.size(); ++k) {
            const std::uint64_t i = s->begin + k;
            if (c[k] != static_cast<float>(i % 4096 + 2 * (i % 1024))) {
                std::cout << "  MISMATCH at " << i << ": " << c[k] << "\n";
                return false;
            }
        }
    }
    return true;
}

// `text` as an element count: digits only (strtoull would wrap "-1" to 2^64 - 1), 1 to 2^36.
std::uint64_t element_count(const std::string& text) {
    std::uint64_t value = 0;
    const bool digits = !text.empty() && text.size() <= 12 && text.find_first_not_of("0123456789") == std::string::npos;
    if (digits) value = std::stoull(text);
    if (!digits || value == 0 || value > (std::uint64_t{1} << 36)) {
        throw std::invalid_argument("'" + text + "' is not an element count from 1 to 2^36\n"
                                    "usage: multi_gpu [elements]");
    }
    return value;
}

} // namespace

int main(int argc, char** argv) try {
    const gpucore::Device selected = gpucore::default_device();
    std::vector<gpucore::Device> all;
    for (const gpucore::Device& d : gpucore::devices()) {
        if (d.backend_name() == selected.backend_name()) all.push_back(d);
    }
    const bool on_gpu = selected.backend_name() == "cuda" || selected.backend_name() == "hip";
    if (argc > 2) throw std::invalid_argument("too many arguments\nusage: multi_gpu [elements]");
    const std::uint64_t n = argc > 1 ? element_count(argv[1]) : (on_gpu ? std::uint64_t{1} << 30 : std::uint64_t{1} << 22);
    const std::uint64_t even = n % 2 == 0 ? n / 2 : n, other = n % 2 == 0 ? n - 1 : (n - 1) / 2;
    const auto expected_sum = static_cast<std::uint32_t>((even % (std::uint64_t{1} << 32)) * (other % (std::uint64_t{1} << 32)));
    std::cout << "[multi_gpu] " << n << " elements over " << all.size() << " device(s):";
    for (const gpucore::Device& d : all) std::cout << " " << d.to_string();
    std::cout << "\n";

    auto reduce_step = [](Shard& s) { gpucore::reduce(s.stream, s.x, s.partial, gpucore::ReduceOp::sum); };
    auto add_step = [](Shard& s) { gpucore::vector_add(s.stream, s.a, s.b, s.c); };
    bool ok = true;
    double one_reduce = 0, one_add = 0;
    {
        std::vector<std::unique_ptr<Shard>> whole = split({all.front()}, n);
        one_reduce = best_ms(whole, reduce_step);
        one_add = best_ms(whole, add_step);
        ok &= sum_of_partials(whole) == expected_sum;
        ok &= vector_add_is_exact(whole, all.front());
    }
    std::vector<std::unique_ptr<Shard>> shards = split(all, n);
    const double split_reduce = best_ms(shards, reduce_step);
    const double split_add = best_ms(shards, add_step);
    const std::uint32_t total = sum_of_partials(shards);
    ok &= total == expected_sum;
    ok &= vector_add_is_exact(shards, all.front());

    std::cout << "  reduce sum (uint32): " << total << (total == expected_sum ? " (exact)" : " MISMATCH") << "\n";
    std::cout << "  reduce:     1 device " << one_reduce << " ms, " << all.size() << " device(s) " << split_reduce
              << " ms, speedup " << one_reduce / split_reduce << "x\n";
    std::cout << "  vector_add: 1 device " << one_add << " ms, " << all.size() << " device(s) " << split_add
              << " ms, speedup " << one_add / split_add << "x\n";
    std::cout << (ok ? "PASS: every result exact\n" : "FAIL: wrong result\n");
    return ok ? 0 : 1;
} catch (const std::exception& e) {
    std::cerr << "multi_gpu: " << e.what() << "\n";
    return 1;
}

// SPDX-License-Identifier: Apache-2.0
// mpi_reduce: one sum over N elements shared by the ranks of an MPI job. Each rank takes the
// device of its node-local rank, reduces its shard there, and MPI_Allreduce adds the partial sums;
// every rank checks the total against its closed form and rank 0 prints the time.
//
//   mpirun -np 2 examples/mpi_reduce [elements]      (GPU_BACKEND=cuda: one GPU per rank)
//
// x[i] = i (as uint32, wrapping), so the sum is N(N-1)/2 mod 2^32, exact whatever the order of
// the additions. Elements default to 2^30 on cuda and hip and 2^24 on other backends.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpucore/gpucore.hpp"

namespace {

// The rank's index among the ranks of its node: OpenMPI says it directly; otherwise the ranks
// sharing memory with this one are counted.
int node_local_rank() {
    // OpenMPI's own variable when it is a plain non-negative number; otherwise ask MPI.
    if (const char* text = ::secure_getenv("OMPI_COMM_WORLD_LOCAL_RANK")) {
        const std::string value(text);
        if (!value.empty() && value.size() <= 6 && value.find_first_not_of("0123456789") == std::string::npos) {
            return std::stoi(value);
        }
    }
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int rank = 0;
    MPI_Comm_rank(node, &rank);
    MPI_Comm_free(&node);
    return rank;
}

// The (local rank mod count)-th device of the backend GPU_BACKEND selects.
gpucore::Device device_for(int local_rank) {
    const gpucore::Device selected = gpucore::default_device();
    std::vector<gpucore::Device> same_backend;
    for (const gpucore::Device& d : gpucore::devices()) {
        if (d.backend_name() == selected.backend_name()) same_backend.push_back(d);
    }
    return same_backend[static_cast<std::size_t>(local_rank) % same_backend.size()];
}

// `text` as an element count: digits only (strtoull would wrap "-1" to 2^64 - 1), 1 to 2^36.
std::uint64_t element_count(const std::string& text) {
    std::uint64_t value = 0;
    const bool digits = !text.empty() && text.size() <= 12 && text.find_first_not_of("0123456789") == std::string::npos;
    if (digits) value = std::stoull(text);
    if (!digits || value == 0 || value > (std::uint64_t{1} << 36)) {
        throw std::invalid_argument("'" + text + "' is not an element count from 1 to 2^36 "
                                    "(usage: mpirun -np R mpi_reduce [elements])");
    }
    return value;
}

int run(int argc, char** argv) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const gpucore::Device device = device_for(node_local_rank());
    const bool on_gpu = device.backend_name() == "cuda" || device.backend_name() == "hip";
    const std::uint64_t n = argc > 1 ? element_count(argv[1]) : (on_gpu ? std::uint64_t{1} << 30 : std::uint64_t{1} << 24);
    // Shard r is [n*r/ranks, n*(r+1)/ranks): sizes differ by at most one element.
    const std::uint64_t begin = n * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(ranks);
    const std::uint64_t end = n * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(ranks);

    std::vector<std::uint32_t> shard(end - begin);
    for (std::uint64_t i = begin; i < end; ++i) shard[i - begin] = static_cast<std::uint32_t>(i);
    gpucore::Buffer<std::uint32_t> x(device, shard.size()), partial(device, 1);
    x.copy_from_host(shard);
    gpucore::Stream stream(device);

    double best_ms = 1e300;
    std::uint32_t total = 0;
    const int repetitions = 5;
    for (int rep = 0; rep < repetitions; ++rep) {
        MPI_Barrier(MPI_COMM_WORLD);
        const auto start = std::chrono::steady_clock::now();
        gpucore::reduce(stream, x, partial, gpucore::ReduceOp::sum);
        std::uint32_t mine = 0;
        partial.copy_to_host_async(stream, &mine, 1);
        stream.synchronize();
        MPI_Allreduce(&mine, &total, 1, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        double slowest = 0;
        MPI_Allreduce(&ms, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        best_ms = std::min(best_ms, slowest);
    }
    // n(n-1)/2 mod 2^32: n < 2^33 keeps the product inside 64 bits before halving.
    const std::uint64_t even = n % 2 == 0 ? n / 2 : n;
    const std::uint64_t other = n % 2 == 0 ? n - 1 : (n - 1) / 2;
    const auto expected = static_cast<std::uint32_t>((even % (std::uint64_t{1} << 32)) * (other % (std::uint64_t{1} << 32)));
    const int ok = total == expected ? 1 : 0;
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    std::cout << "rank " << rank << "/" << ranks << " on " << device.to_string() << ": " << shard.size()
              << " elements, sum " << total << (ok ? " (exact)" : " MISMATCH, expected " + std::to_string(expected))
              << "\n";
    if (rank == 0) {
        const double gbps = static_cast<double>(n) * sizeof(std::uint32_t) / (best_ms * 1e6);
        std::cout << "[mpi_reduce] " << ranks << " rank(s), " << n << " uint32 in all: best of " << repetitions
                  << " " << best_ms << " ms (" << gbps << " GB/s, reduce + MPI_Allreduce), "
                  << (all_ok ? "exact on every rank\nPASS" : "WRONG on some rank\nFAIL") << "\n";
    }
    return all_ok ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int status = 1;
    try {
        status = run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "mpi_reduce: " << e.what() << "\n";
        MPI_Abort(MPI_COMM_WORLD, 1); // the other ranks would wait forever in a collective
    }
    MPI_Finalize();
    return status;
}

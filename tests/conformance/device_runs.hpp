// SPDX-License-Identifier: Apache-2.0
// One run of each operation on a device, the way an application would do it: upload, poison the
// output with a sentinel, enqueue on a fresh stream, read back asynchronously on that stream,
// synchronize. The host copy of the result is poisoned too, so a skipped read-back shows.
#pragma once

#include <cstddef>
#include <vector>

#include "gpucore/gpucore.hpp"

namespace conformance {

// reduce writes only out[0]; the two slots after it must keep the sentinel.
inline constexpr std::size_t kReduceOutputSlots = 3;

template <class T>
gpucore::Buffer<T> upload(const gpucore::Device& device, const std::vector<T>& host,
                          gpucore::MemoryKind kind = gpucore::MemoryKind::device) {
    gpucore::Buffer<T> buffer(device, host.size(), kind);
    buffer.copy_from_host(host);
    return buffer;
}

template <class T>
std::vector<T> read_back(gpucore::Stream& stream, const gpucore::Buffer<T>& buffer, T poison) {
    std::vector<T> host(buffer.size(), poison);
    buffer.copy_to_host_async(stream, host.data(), host.size());
    stream.synchronize();
    return host;
}

template <class T>
std::vector<T> run_vector_add(const gpucore::Device& device, const std::vector<T>& a,
                              const std::vector<T>& b, T sentinel) {
    gpucore::Stream stream(device);
    const auto da = upload(device, a);
    const auto db = upload(device, b);
    auto dc = upload(device, std::vector<T>(a.size(), sentinel));
    gpucore::vector_add(stream, da, db, dc);
    return read_back(stream, dc, sentinel);
}

template <class T>
std::vector<T> run_transpose(const gpucore::Device& device, const std::vector<T>& in,
                             std::size_t rows, std::size_t cols, T sentinel) {
    gpucore::Stream stream(device);
    const auto din = upload(device, in);
    auto dout = upload(device, std::vector<T>(in.size(), sentinel));
    gpucore::transpose(stream, din, dout, rows, cols);
    return read_back(stream, dout, sentinel);
}

// Returns all kReduceOutputSlots slots of the output buffer.
template <class T>
std::vector<T> run_reduce(const gpucore::Device& device, const std::vector<T>& in,
                          gpucore::ReduceOp op, T sentinel) {
    gpucore::Stream stream(device);
    const auto din = upload(device, in);
    auto dout = upload(device, std::vector<T>(kReduceOutputSlots, sentinel));
    gpucore::reduce(stream, din, dout, op);
    return read_back(stream, dout, sentinel);
}

template <class T>
std::vector<T> run_reduce_rows(const gpucore::Device& device, const std::vector<T>& in,
                               std::size_t rows, std::size_t cols, gpucore::ReduceOp op,
                               T sentinel) {
    gpucore::Stream stream(device);
    const auto din = upload(device, in);
    auto dout = upload(device, std::vector<T>(rows, sentinel));
    gpucore::reduce_rows(stream, din, dout, rows, cols, op);
    return read_back(stream, dout, sentinel);
}

} // namespace conformance

// SPDX-License-Identifier: Apache-2.0
// StagingBuffers: the host memory a copy between devices passes through, in equal chunks. Pinned
// (page-locked) memory of one of the two backends where it can be had, so that backend's transfers
// run at full link speed; ordinary host memory when neither device offers pinned memory (the
// contract's copy slot takes pageable host memory). Pooled per backend and device, because pinning
// is far slower than the copies it serves.
#pragma once

#include <cstddef>
#include <vector>

#include "backend.hpp"

namespace gpucore::detail {

// A device whose pinned host memory may stage a copy.
struct StagingSide {
    Backend* backend;
    int device;
};

class StagingBuffers {
public:
    // `count` chunks of `chunk_bytes` each (or reused from the pool): pinned host memory of the
    // first of `preferred` whose device supports it and whose allocate does not answer
    // not_supported, else ordinary host memory. Throws Error(operation) when they cannot be
    // allocated (out of memory, a plugin's failure other than not_supported).
    StagingBuffers(const std::vector<StagingSide>& preferred, std::size_t chunk_bytes, std::size_t count,
                   const char* operation);
    // Back to the pool. The caller has waited for every transfer that used them.
    ~StagingBuffers();
    StagingBuffers(const StagingBuffers&) = delete;
    StagingBuffers& operator=(const StagingBuffers&) = delete;

    void* chunk(std::size_t i) const { return chunks_.at(i); }
    std::size_t count() const noexcept { return chunks_.size(); }
    // True when the chunks are pinned memory of a backend; false for ordinary host memory.
    bool pinned() const noexcept { return backend_ != nullptr; }

private:
    bool allocate(Backend* backend, int device, std::size_t count, const char* operation);
    void release() noexcept;
    Backend* backend_ = nullptr; // nullptr: ordinary host memory
    int device_ = -1;
    std::size_t chunk_bytes_;
    std::vector<void*> chunks_;
};

} // namespace gpucore::detail

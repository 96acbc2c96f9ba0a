// SPDX-License-Identifier: Apache-2.0
// StagingBuffers: the host memory a copy between devices passes through, in equal chunks. Pinned
// (page-locked) memory of one of the two backends, so that backend's transfers run at full link
// speed; pooled per backend and device, because pinning is far slower than the copies it serves.
#pragma once

#include <cstddef>
#include <vector>

#include "backend.hpp"

namespace gpucore::detail {

class StagingBuffers {
public:
    // `count` chunks of `chunk_bytes` each, allocated as GPUCORE_MEMORY_PINNED_HOST of `device` of
    // `backend` (or reused from the pool). Throws Error(operation) when they cannot be allocated.
    StagingBuffers(Backend& backend, int device, std::size_t chunk_bytes, std::size_t count,
                   const char* operation);
    // Back to the pool. The caller has waited for every transfer that used them.
    ~StagingBuffers();
    StagingBuffers(const StagingBuffers&) = delete;
    StagingBuffers& operator=(const StagingBuffers&) = delete;

    void* chunk(std::size_t i) const { return chunks_.at(i); }
    std::size_t count() const noexcept { return chunks_.size(); }

private:
    void release() noexcept;
    Backend& backend_;
    int device_;
    std::size_t chunk_bytes_;
    std::vector<void*> chunks_;
};

} // namespace gpucore::detail

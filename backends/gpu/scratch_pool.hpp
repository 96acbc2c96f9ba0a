// SPDX-License-Identifier: Apache-2.0
// Per-device pool of stream scratch areas (partials + tickets for the single-pass kernels). A
// stream takes one when it is created and gives it back when destroyed, so creating and
// destroying streams in bulk allocates nothing after warm-up, and never calls gpuFree (which
// would wait for the whole device). Areas are freed at shutdown or process exit.
#pragma once

#include <mutex>
#include <vector>

#include "launch.hpp"

namespace gpucore::gpu {

class ScratchPool {
public:
    // An area for a new stream; a fresh one is zeroed on `stream` (ordered before its first use).
    // Throws GpuError (out of memory, device errors). Thread-safe.
    StreamScratch acquire(gpuStream_t stream);
    // Returns an area whose stream has finished all its work. Thread-safe; never throws.
    void release(const StreamScratch& scratch) noexcept;
    // Frees every area the pool allocated (the current device must be the pool's), including
    // areas streams still hold: for shutdown and process exit only. Thread-safe.
    void free_all() noexcept;

private:
    std::mutex mutex_;
    std::vector<StreamScratch> free_;
    std::vector<void*> allocations_;
};

} // namespace gpucore::gpu

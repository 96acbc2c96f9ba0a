// SPDX-License-Identifier: Apache-2.0
#include "scratch_pool.hpp"

#include "gpu_error.hpp"
#include "tuning_policy.hpp"

namespace gpucore::gpu {
namespace {
constexpr std::size_t kPartialBytes = TuningPolicy::Scratch::kPartialSlots * 8;
constexpr std::size_t kTicketBytes = TuningPolicy::Scratch::kTicketSlots * sizeof(unsigned int);
} // namespace

StreamScratch ScratchPool::acquire(gpuStream_t stream) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!free_.empty()) {
            const StreamScratch scratch = free_.back();
            free_.pop_back();
            return scratch;
        }
    }
    void* area = nullptr;
    GPUCORE_GPU_CHECK(gpuMalloc(&area, kPartialBytes + kTicketBytes));
    StreamScratch scratch;
    scratch.partials = area;
    scratch.tickets = reinterpret_cast<unsigned int*>(static_cast<char*>(area) + kPartialBytes);
    // Partials are always written before they are read; tickets must start at zero. The stream
    // waits for the zeroing here, so a new stream has no pending work (stream_query says idle).
    gpuError_t err = gpuMemsetAsync(scratch.tickets, 0, kTicketBytes, stream);
    if (err == gpuSuccess) err = gpuStreamSynchronize(stream);
    if (err != gpuSuccess) {
        (void)gpuFree(area);
        throw_gpu_error(err, "zeroing the scratch tickets (gpuMemsetAsync, gpuStreamSynchronize)",
                        __FILE__, __LINE__);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    allocations_.push_back(area);
    return scratch;
}

void ScratchPool::release(const StreamScratch& scratch) noexcept {
    if (scratch.partials == nullptr) return;
    try {
        std::lock_guard<std::mutex> lock(mutex_);
        free_.push_back(scratch);
    } catch (...) {
        // Could not keep it for reuse: it stays allocated until free_all.
    }
}

void ScratchPool::free_all() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    for (void* area : allocations_) (void)gpuFree(area);
    allocations_.clear();
    free_.clear();
}

} // namespace gpucore::gpu

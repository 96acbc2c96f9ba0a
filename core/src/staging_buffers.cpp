// SPDX-License-Identifier: Apache-2.0
#include "staging_buffers.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "process_fork.hpp"

namespace gpucore::detail {
namespace {

// The pool keeps a few chunks per (backend, device, chunk size), and no more than a bound in all;
// more are freed on return.
constexpr std::size_t kPooledChunksPerKey = 8;
constexpr std::size_t kPooledBytes = std::size_t{512} << 20;

class StagingPool {
public:
    // `backend` nullptr: ordinary host memory.
    void* take(const Backend* backend, int device, std::size_t bytes) {
        std::lock_guard<std::mutex> lock(mutex_);
        forget_parents_chunks();
        auto& free = free_[Key{backend, device, bytes}];
        if (free.empty()) return nullptr;
        void* chunk = free.back();
        free.pop_back();
        pooled_bytes_ -= bytes;
        return chunk;
    }

    // True when the pool kept `chunk`; false when the caller must free it.
    bool keep(const Backend* backend, int device, std::size_t bytes, void* chunk) noexcept {
        try {
            std::lock_guard<std::mutex> lock(mutex_);
            forget_parents_chunks();
            auto& free = free_[Key{backend, device, bytes}];
            if (free.size() >= kPooledChunksPerKey || pooled_bytes_ + bytes > kPooledBytes) return false;
            free.push_back(chunk);
            pooled_bytes_ += bytes;
            return true;
        } catch (...) {
            return false;
        }
    }

private:
    using Key = std::tuple<const Backend*, int, std::size_t>;
    // After fork() the pooled chunks are the parent's (pinned by its driver): forgotten here.
    void forget_parents_chunks() {
        if (generation_ != process_generation()) {
            free_.clear();
            pooled_bytes_ = 0;
            generation_ = process_generation();
        }
    }
    std::mutex mutex_;
    std::map<Key, std::vector<void*>> free_;
    std::size_t pooled_bytes_ = 0;
    unsigned generation_ = process_generation();
};

StagingPool& staging_pool() {
    static StagingPool* pool = new StagingPool(); // used until the process ends, never destroyed
    return *pool;
}

constexpr std::size_t kHostAlignment = 256; // as the contract's allocations

void free_chunk(Backend* backend, int device, void* chunk) noexcept {
    if (backend == nullptr) {
        std::free(chunk);
        return;
    }
    gpucore_message ignored;
    ignored.text[0] = '\0';
    backend->invoke("StagingBuffers", ignored, backend->api().deallocate, device, GPUCORE_MEMORY_PINNED_HOST,
                    chunk);
}

} // namespace

StagingBuffers::StagingBuffers(const std::vector<StagingSide>& preferred, std::size_t chunk_bytes,
                               std::size_t count, const char* operation)
    : chunk_bytes_(chunk_bytes) {
    chunks_.reserve(count);
    for (const StagingSide& side : preferred) {
        if (side.backend == nullptr || !side.backend->properties(side.device).supports_pinned_host) continue;
        if (allocate(side.backend, side.device, count, operation)) return;
    }
    allocate(nullptr, -1, count, operation);
}

// Fills chunks_ from `backend`'s pinned memory (nullptr: ordinary host memory). False, with
// nothing held, when the plugin answers not_supported; any other failure throws.
bool StagingBuffers::allocate(Backend* backend, int device, std::size_t count, const char* operation) {
    backend_ = backend;
    device_ = device;
    try {
        while (chunks_.size() < count) {
            void* chunk = staging_pool().take(backend, device, chunk_bytes_);
            if (chunk == nullptr && backend != nullptr) {
                backend->call(operation, device, backend->api().allocate, device, GPUCORE_MEMORY_PINNED_HOST,
                              chunk_bytes_, &chunk);
            } else if (chunk == nullptr) {
                const std::size_t rounded = (chunk_bytes_ + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
                chunk = rounded >= chunk_bytes_ ? std::aligned_alloc(kHostAlignment, rounded) : nullptr;
                if (chunk == nullptr) {
                    throw Error(ErrorCode::out_of_memory, operation, "", -1,
                                "cannot allocate " + std::to_string(chunk_bytes_) +
                                    " bytes of host memory to stage the copy through");
                }
            }
            chunks_.push_back(chunk);
        }
        return true;
    } catch (const Error& e) {
        release();
        if (backend != nullptr && e.code() == ErrorCode::not_supported) return false;
        throw;
    } catch (...) {
        release();
        throw;
    }
}

StagingBuffers::~StagingBuffers() { release(); }

void StagingBuffers::release() noexcept {
    for (void* chunk : chunks_) {
        if (!staging_pool().keep(backend_, device_, chunk_bytes_, chunk)) free_chunk(backend_, device_, chunk);
    }
    chunks_.clear();
}

} // namespace gpucore::detail

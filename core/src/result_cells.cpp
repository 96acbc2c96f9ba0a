// SPDX-License-Identifier: Apache-2.0
#include "result_cells.hpp"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "access.hpp"
#include "process_fork.hpp"

namespace gpucore::detail {
namespace {

// More than this many idle cells of one device are freed on return: as many as threads making
// blocking calls on the device at once, in practice.
constexpr std::size_t kPooledCellsPerDevice = 16;

class CellPool {
public:
    // An idle cell of `device`, or a null Allocation when there is none.
    Allocation take(const Device& device) {
        std::lock_guard<std::mutex> lock(mutex_);
        forget_parents_cells();
        auto found = idle_.find(key(device));
        if (found == idle_.end() || found->second.empty()) return Allocation();
        Allocation cell = std::move(found->second.back());
        found->second.pop_back();
        return cell;
    }

    // Keeps `cell` for the next call; leaves it with the caller (who frees it) when the pool is
    // full or cannot grow.
    void keep(Allocation& cell) noexcept {
        try {
            std::lock_guard<std::mutex> lock(mutex_);
            forget_parents_cells();
            auto& idle = idle_[key(cell.device())];
            if (idle.size() >= kPooledCellsPerDevice) return;
            idle.reserve(kPooledCellsPerDevice);
            idle.push_back(std::move(cell));
        } catch (...) {
        }
    }

private:
    using Key = std::pair<const Backend*, int>;
    static Key key(const Device& device) noexcept { return {Access::backend(device), Access::index(device)}; }
    // After fork() the idle cells are the parent's: forgotten (an Allocation of another process
    // generation is not freed when destroyed).
    void forget_parents_cells() {
        if (generation_ != process_generation()) {
            idle_.clear();
            generation_ = process_generation();
        }
    }
    std::mutex mutex_;
    std::map<Key, std::vector<Allocation>> idle_;
    unsigned generation_ = process_generation();
};

CellPool& cell_pool() {
    static CellPool* pool = new CellPool(); // used until the process ends, never destroyed
    return *pool;
}

} // namespace

ResultCell::ResultCell(const Device& device, const char* operation) : allocation_(cell_pool().take(device)) {
    if (allocation_.valid()) return;
    try {
        allocation_ = Allocation(device, MemoryKind::device, kBytes);
    } catch (const Error& e) {
        throw Error(e.code(), operation, e.backend(), e.device(),
                    "cannot allocate the " + std::to_string(kBytes) + " bytes of device memory its result goes to: " +
                        e.cause());
    }
}

ResultCell::~ResultCell() {
    if (reusable_) cell_pool().keep(allocation_);
}

} // namespace gpucore::detail

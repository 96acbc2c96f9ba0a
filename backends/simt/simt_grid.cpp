// SPDX-License-Identifier: Apache-2.0
// The workers that run blocks: a fixed pool of threads (the device's "multiprocessors"). A grid
// is offered to every worker; each claims blocks one at a time until none is left, so blocks of
// one grid run concurrently, in no fixed order, as on a GPU.
#include <atomic>
#include <vector>

#include "simt_internal.hpp"

namespace gpucore::simt {
namespace {

struct Grid {
    const std::function<void()>* body = nullptr;
    dim3 grid;
    dim3 block;
    std::size_t blocks = 0;
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::mutex mutex;
    std::condition_variable done;
    std::size_t finished = 0; // guarded by mutex
    std::string fault;        // guarded by mutex
};

class WorkerPool {
public:
    WorkerPool() {
        const int count = worker_count();
        for (int i = 0; i < count; ++i) workers_.emplace_back([this] { work(); });
    }
    ~WorkerPool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        offered_.notify_all();
        for (std::thread& worker : workers_) worker.join();
    }
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    std::string run(const std::shared_ptr<Grid>& grid) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            if (stopping_) {
                // At process exit the workers are gone: the caller runs the grid itself, so a
                // stream destroyed late still finishes its work.
                lock.unlock();
                run_blocks(*grid);
                return grid->fault;
            }
            grids_.push_back(grid);
        }
        offered_.notify_all();
        std::unique_lock<std::mutex> lock(grid->mutex);
        grid->done.wait(lock, [&] { return grid->finished == grid->blocks; });
        return grid->fault;
    }

private:
    void work() {
        for (;;) {
            std::shared_ptr<Grid> grid;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                offered_.wait(lock, [this] { return stopping_ || !grids_.empty(); });
                if (grids_.empty()) return; // stopping, and every grid offered has been run
                grid = grids_.front();
            }
            run_blocks(*grid);
            std::lock_guard<std::mutex> lock(mutex_);
            if (!grids_.empty() && grids_.front() == grid) grids_.pop_front(); // all claimed
        }
    }

    static void run_body(void* body) { (*static_cast<std::function<void()>*>(body))(); }

    static void run_blocks(Grid& grid) {
        const std::size_t per_plane = static_cast<std::size_t>(grid.grid.x) * grid.grid.y;
        for (;;) {
            const std::size_t b = grid.next.fetch_add(1, std::memory_order_relaxed);
            if (b >= grid.blocks) return;
            std::string fault;
            if (!grid.failed.load(std::memory_order_relaxed)) {
                BlockLaunch launch;
                launch.warp_size = GPUCORE_SIMT_WARP_SIZE;
                launch.block_idx = dim3(static_cast<unsigned>(b % grid.grid.x),
                                        static_cast<unsigned>((b / grid.grid.x) % grid.grid.y),
                                        static_cast<unsigned>(b / per_plane));
                launch.block_dim = grid.block;
                launch.grid_dim = grid.grid;
                fault = run_block(&run_body, const_cast<std::function<void()>*>(grid.body), launch);
                if (!fault.empty()) grid.failed.store(true, std::memory_order_relaxed);
            }
            std::lock_guard<std::mutex> lock(grid.mutex);
            if (!fault.empty() && grid.fault.empty()) grid.fault = std::move(fault);
            if (++grid.finished == grid.blocks) grid.done.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable offered_;
    std::deque<std::shared_ptr<Grid>> grids_;
    bool stopping_ = false;
    std::vector<std::thread> workers_;
};

} // namespace

std::string run_grid(const std::function<void()>& body, dim3 grid, dim3 block) {
    try {
        static WorkerPool pool; // joined at exit
        auto job = std::make_shared<Grid>();
        job->body = &body;
        job->grid = grid;
        job->block = block;
        job->blocks = static_cast<std::size_t>(grid.x) * grid.y * grid.z;
        return pool.run(job);
    } catch (const std::exception& e) {
        return std::string("the grid could not start: ") + e.what();
    }
}

} // namespace gpucore::simt

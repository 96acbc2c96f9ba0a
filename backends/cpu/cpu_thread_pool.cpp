// SPDX-License-Identifier: Apache-2.0
#include "cpu_thread_pool.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>

#include "cpu_poll.hpp"
#include "gpucore/plugin_support.hpp"

namespace gpucore::cpu {
namespace {

// One parallel_for call. Lives on the caller's stack; the caller unlinks it from the queue and waits
// until no worker is inside before it returns.
struct Job {
    std::size_t count = 0;
    std::size_t grain = 1;
    const std::function<void(std::size_t, std::size_t)>* body = nullptr;
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error; // the first exception; written once, under error_mutex
    std::mutex error_mutex;
    int seats = 0; // workers that may still join (pool mutex)
    // Workers working on it now: written under the pool mutex, read without it by the caller's
    // poll.
    std::atomic<int> inside{0};

    void work() noexcept {
        while (!failed.load(std::memory_order_relaxed)) {
            const std::size_t begin = next.fetch_add(grain, std::memory_order_relaxed);
            if (begin >= count) return;
            try {
                (*body)(begin, std::min(count, begin + grain));
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
                failed.store(true, std::memory_order_relaxed);
            }
        }
    }
};

class Pool {
public:
    // Runs `job` with up to `helpers` workers besides the calling thread.
    void run(Job& job, int helpers) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            start_workers(max_threads() - 1); // all at once: the thread count stays flat afterwards
            job.seats = std::min(helpers, workers_);
            if (job.seats > 0) push(&job);
        }
        if (job.seats > 0) work_ready_.notify_all();
        job.work();
        std::unique_lock<std::mutex> lock(mutex_);
        auto it = std::find(queue_.begin(), queue_.end(), &job);
        if (it != queue_.end()) erase(it);
        if (job.inside.load(std::memory_order_relaxed) == 0) return;
        // The helpers are finishing their last grabs: poll for them before sleeping.
        lock.unlock();
        poll_until([&] { return job.inside.load(std::memory_order_acquire) == 0; });
        lock.lock();
        job_left_.wait(lock, [&] { return job.inside.load(std::memory_order_relaxed) == 0; });
    }

private:
    // Starts workers until there are `wanted` (mutex_ held). A thread that cannot be started (the
    // process or user is at its thread limit) is not an error: the job runs with fewer threads, and
    // starting is tried again no sooner than a second later.
    void start_workers(int wanted) {
        if (workers_ >= wanted) return;
        const auto now = std::chrono::steady_clock::now();
        if (now < retry_after_) return;
        try {
            while (workers_ < wanted) {
                std::thread([this] { run_worker(); }).detach();
                ++workers_;
            }
        } catch (const std::system_error&) {
            retry_after_ = now + std::chrono::seconds(1);
        } catch (const std::bad_alloc&) {
            retry_after_ = now + std::chrono::seconds(1);
        }
    }

    void run_worker() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            if (queue_.empty()) {
                // Jobs often come back to back (one per call): poll for the next before sleeping.
                lock.unlock();
                poll_until([&] { return queued_.load(std::memory_order_acquire) > 0; });
                lock.lock();
            }
            work_ready_.wait(lock, [&] { return !queue_.empty(); });
            Job* job = queue_.front();
            if (--job->seats == 0) erase(queue_.begin());
            job->inside.fetch_add(1, std::memory_order_relaxed);
            lock.unlock();
            job->work();
            lock.lock();
            if (job->inside.fetch_sub(1, std::memory_order_release) == 1) job_left_.notify_all();
        }
    }

    // The queue's changes (mutex_ held), mirrored in queued_ for the workers' poll.
    void push(Job* job) {
        queue_.push_back(job);
        queued_.store(queue_.size(), std::memory_order_release);
    }
    void erase(std::deque<Job*>::iterator it) {
        queue_.erase(it);
        queued_.store(queue_.size(), std::memory_order_release);
    }

    std::mutex mutex_;
    std::condition_variable work_ready_;
    std::condition_variable job_left_;
    std::deque<Job*> queue_;
    std::atomic<std::size_t> queued_{0}; // queue_.size(), read without mutex_ by polling workers
    // Workers run until the process ends, detached: the pool is never destroyed (a worker may
    // still be waiting when static destructors run).
    int workers_ = 0;
    std::chrono::steady_clock::time_point retry_after_{};
};

// The pool lives in static storage, constructed in place: never destroyed, and after fork() the
// child constructs a fresh one over it without running the old destructor (the old mutex may be
// held by a thread that does not exist in the child, its queue may name jobs of the parent). What
// the old pool's queue held is leaked in the child: the price of not touching it.
alignas(Pool) unsigned char g_pool_storage[sizeof(Pool)];
std::once_flag g_pool_once;
std::atomic<int> g_max_threads_override{0};

void reset_pool_in_child() noexcept { new (g_pool_storage) Pool(); }

Pool& pool() {
    std::call_once(g_pool_once, [] {
        new (g_pool_storage) Pool();
        pthread_atfork(nullptr, nullptr, reset_pool_in_child);
    });
    return *std::launder(reinterpret_cast<Pool*>(g_pool_storage));
}

int default_max_threads() noexcept {
    if (const char* text = plugin::environment_value("OMP_NUM_THREADS")) {
        char* end = nullptr;
        const long value = std::strtol(text, &end, 10);
        if (end != text && value > 0 && value <= 4096) return static_cast<int>(value);
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
    const unsigned hardware = std::thread::hardware_concurrency();
    return hardware > 0 ? static_cast<int>(std::min(hardware, 4096u)) : 1;
}

} // namespace

int max_threads() noexcept {
    const int forced = g_max_threads_override.load(std::memory_order_relaxed);
    if (forced > 0) return forced;
    static const int threads = default_max_threads();
    return threads;
}

void set_max_threads(int threads) noexcept {
    g_max_threads_override.store(std::max(0, threads), std::memory_order_relaxed);
}

void parallel_for(std::size_t count, std::size_t grain, int threads,
                  const std::function<void(std::size_t, std::size_t)>& body) {
    if (count == 0) return;
    grain = std::max<std::size_t>(grain, 1);
    const std::size_t grabs = (count + grain - 1) / grain;
    threads = std::min<int>(threads, max_threads());
    if (threads <= 1 || grabs <= 1) {
        for (std::size_t begin = 0; begin < count; begin += grain) body(begin, std::min(count, begin + grain));
        return;
    }
    Job job;
    job.count = count;
    job.grain = grain;
    job.body = &body;
    const int helpers = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads) - 1, grabs - 1));
    pool().run(job, helpers);
    if (job.error) std::rethrow_exception(job.error);
}

} // namespace gpucore::cpu

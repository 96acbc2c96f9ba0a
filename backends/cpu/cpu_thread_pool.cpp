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

// The most threads a job may use, whatever the machine or OMP_NUM_THREADS says.
constexpr int kMostThreads = 4096;

// One parallel_for call. Lives on the caller's stack; the caller unlinks it from the queue and waits
// until no worker is inside before it returns.
//
// The items are split into one contiguous range per expected thread. Each thread takes its own
// range's grabs first, then helps with the others' (a thread that shares its core with another
// process is left behind, not waited for). A job asking for n helpers takes pool workers 1..n,
// each starting on the range of its own number, so calls that repeat over data that fits in the
// caches find each part in the cache of the core that read it last time, as with a static OpenMP
// schedule. The caller never waits for a helper to join: if one is busy elsewhere, the others and
// the caller take its range.
struct Job {
    static constexpr int kMaxRanges = 64;
    struct alignas(64) Range { // a cache line each: the threads' grabs do not contend
        std::atomic<std::size_t> next{0};
        std::size_t end = 0;
    };

    std::size_t grain = 1;
    const std::function<void(std::size_t, std::size_t)>* body = nullptr;
    int ranges = 1;
    Range range[kMaxRanges];
    std::atomic<bool> failed{false};
    std::exception_ptr error; // the first exception; written once, under error_mutex
    std::mutex error_mutex;
    int helpers = 0; // the workers it asks for: numbers 1..helpers (set before it is queued)
    int seats = 0;   // of those, how many may still join (pool mutex)
    // Workers working on it now: raised under the pool mutex, lowered without it; the caller waits
    // for zero.
    std::atomic<int> inside{0};

    // Splits [0, count) into `parts` ranges of whole grabs, so every grab is one that a single
    // shared counter would hand out.
    void split(std::size_t count, int parts) {
        ranges = std::clamp(parts, 1, kMaxRanges);
        const std::size_t grabs = (count + grain - 1) / grain;
        const auto total = static_cast<std::size_t>(ranges);
        for (std::size_t r = 0; r < total; ++r) {
            range[r].next.store(grabs * r / total * grain, std::memory_order_relaxed);
            range[r].end = std::min(count, grabs * (r + 1) / total * grain);
        }
    }

    // The caller's home range is 0; pool worker `id` (1..helpers) starts on range `id`.
    int home_of(int id) const noexcept { return ranges > 1 ? 1 + (id - 1) % (ranges - 1) : 0; }

    void work(int home) noexcept {
        for (int k = 0; k < ranges; ++k) {
            Range& r = range[(home + k) % ranges];
            while (!failed.load(std::memory_order_relaxed)) {
                const std::size_t begin = r.next.fetch_add(grain, std::memory_order_relaxed);
                if (begin >= r.end) break;
                try {
                    (*body)(begin, std::min(r.end, begin + grain));
                } catch (...) {
                    std::lock_guard<std::mutex> lock(error_mutex);
                    if (!error) error = std::current_exception();
                    failed.store(true, std::memory_order_relaxed);
                }
            }
        }
    }
};

// A pause between looks at a lock that another core holds.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

class Pool {
public:
    // Runs `job` over [0, count) with up to `helpers` workers besides the calling thread.
    void run(Job& job, std::size_t count, int helpers) {
        std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
        lock_briefly_held(lock);
        start_workers(max_threads() - 1); // all at once: the thread count stays flat afterwards
        const int seats = std::min(helpers, workers_);
        job.helpers = seats;
        job.seats = seats;
        job.split(count, seats + 1);
        if (seats > 0) push(&job);
        const int last_bucket = seats > 0 ? sleepers_through(seats) : -1;
        lock.unlock();
        for (int b = 0; b <= last_bucket; ++b) bucket_wake_[b].notify_all();
        job.work(0);
        lock_briefly_held(lock);
        auto it = std::find(queue_.begin(), queue_.end(), &job);
        if (it != queue_.end()) erase(it);
        if (job.inside.load(std::memory_order_acquire) == 0) return;
        // The helpers are finishing their last grabs: poll for them before sleeping.
        lock.unlock();
        poll_until([&] { return job.inside.load(std::memory_order_acquire) == 0; });
        lock.lock();
        job_left_.wait(lock, [&] { return job.inside.load(std::memory_order_acquire) == 0; });
    }

private:
    // How often a thread tries a held mutex before it blocks (lock_briefly_held).
    static constexpr int kSpinsBeforeBlocking = 200;

    // Starts workers until there are `wanted` (mutex_ held). A thread that cannot be started (the
    // process or user is at its thread limit) is not an error: the job runs with fewer threads, and
    // starting is tried again no sooner than a second later.
    void start_workers(int wanted) {
        if (workers_ >= wanted) return;
        const auto now = std::chrono::steady_clock::now();
        if (now < retry_after_) return;
        try {
            while (workers_ < wanted) {
                std::thread([this, id = workers_ + 1] { run_worker(id); }).detach();
                ++workers_;
            }
        } catch (const std::system_error&) {
            retry_after_ = now + std::chrono::seconds(1);
        } catch (const std::bad_alloc&) {
            retry_after_ = now + std::chrono::seconds(1);
        }
    }

    void run_worker(int id) {
        for (;;) {
            Job& job = take_seat(id);
            job.work(job.home_of(id));
            leave(job);
        }
    }

    // Waits for a job that asks for worker `id` and takes a seat in it.
    Job& take_seat(int id) {
        // Jobs often come back to back (one per call): poll for the next before sleeping.
        poll_until([&] { return widest_.load(std::memory_order_acquire) >= id; });
        std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
        lock_briefly_held(lock);
        const int bucket = bucket_of(id);
        auto it = queue_.end();
        while ((it = std::find_if(queue_.begin(), queue_.end(), [&](const Job* job) { return job->helpers >= id; })) ==
               queue_.end()) {
            ++bucket_sleepers_[bucket];
            bucket_wake_[bucket].wait(lock);
            --bucket_sleepers_[bucket];
        }
        Job* job = *it;
        if (--job->seats == 0) erase(it);
        job->inside.fetch_add(1, std::memory_order_relaxed);
        return *job;
    }

    // Workers whose poll ran out sleep by bucket: numbers 2^b .. 2^(b+1) - 1 in bucket b. A job
    // asking for workers 1..n wakes buckets 0..bucket_of(n): at most log2(n) + 1 notifications,
    // and fewer than n workers woken that it does not need. Waking every sleeper for every job
    // would have the others contend for the mutex, only to sleep again, call after call.
    static int bucket_of(int id) noexcept {
        int bucket = 0;
        while (id >>= 1) ++bucket;
        return bucket;
    }
    // The last bucket with sleepers that a job asking for workers 1..helpers wakes, or -1 (mutex_
    // held). The caller notifies after releasing the mutex: a worker that would sleep meanwhile
    // sees the queued job first.
    int sleepers_through(int helpers) const noexcept {
        int last = -1;
        for (int b = 0; b <= bucket_of(helpers); ++b) {
            if (bucket_sleepers_[b] > 0) last = b;
        }
        return last;
    }

    // Leaves `job` without the mutex, so a job's helpers do not queue for it on their way out. The
    // last one out wakes the caller in case it sleeps: taking the mutex first orders the
    // notification after the caller's last look at `inside`, which it makes holding the mutex.
    // The job may be gone once `inside` is zero: only the pool is touched after that.
    void leave(Job& job) {
        if (job.inside.fetch_sub(1, std::memory_order_release) != 1) return;
        { std::lock_guard<std::mutex> lock(mutex_); }
        job_left_.notify_all();
    }

    // Takes the mutex, trying a little before blocking: it is held for a few instructions at a
    // time, while a thread that blocks sleeps in the kernel, and waking it costs tens of
    // microseconds on a virtual machine (cpu_poll.hpp). When a job is queued, every polling
    // worker wants the mutex at once.
    static void lock_briefly_held(std::unique_lock<std::mutex>& lock) {
        for (int attempt = 0; attempt < kSpinsBeforeBlocking; ++attempt) {
            if (lock.try_lock()) return;
            cpu_relax();
        }
        lock.lock();
    }

    // The queue's changes (mutex_ held), mirrored in widest_ for the workers' poll.
    void push(Job* job) {
        queue_.push_back(job);
        update_widest();
    }
    void erase(std::deque<Job*>::iterator it) {
        queue_.erase(it);
        update_widest();
    }
    void update_widest() {
        int widest = 0;
        for (const Job* job : queue_) widest = std::max(widest, job->helpers);
        widest_.store(widest, std::memory_order_release);
    }

    // A bucket for every worker number (below kMostThreads).
    static constexpr int kBuckets = 13;
    static_assert(kMostThreads <= (1 << kBuckets), "a bucket for every worker");

    std::mutex mutex_;
    std::condition_variable bucket_wake_[kBuckets];
    int bucket_sleepers_[kBuckets] = {}; // mutex_
    std::condition_variable job_left_;
    std::deque<Job*> queue_;
    // The most helpers a queued job asks for (0: none queued), read without mutex_ by polling
    // workers: worker `id` has a job to join when it is at least `id`.
    std::atomic<int> widest_{0};
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
        if (end != text && value > 0 && value <= kMostThreads) return static_cast<int>(value);
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::clamp(CPU_COUNT(&set), 1, kMostThreads);
    const unsigned hardware = std::thread::hardware_concurrency();
    return hardware > 0 ? static_cast<int>(std::min<unsigned>(hardware, kMostThreads)) : 1;
}

} // namespace

int max_threads() noexcept {
    const int forced = g_max_threads_override.load(std::memory_order_relaxed);
    if (forced > 0) return forced;
    static const int threads = default_max_threads();
    return threads;
}

void set_max_threads(int threads) noexcept {
    g_max_threads_override.store(std::clamp(threads, 0, kMostThreads), std::memory_order_relaxed);
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
    job.grain = grain;
    job.body = &body;
    const int helpers = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads) - 1, grabs - 1));
    pool().run(job, count, helpers);
    if (job.error) std::rethrow_exception(job.error);
}

} // namespace gpucore::cpu

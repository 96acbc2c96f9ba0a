// SPDX-License-Identifier: Apache-2.0
#include "simt_block.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <boost/context/detail/fcontext.hpp>
#include <cstring>
#include <deque>
#include <map>
#include <new>
#include <vector>

// Every stack switch is announced to the sanitizers that track stacks: AddressSanitizer (which
// stack is live, for its redzones) and ThreadSanitizer (which fiber runs). Boost.Context's
// low-level fcontext is used, not its fiber class, because fcontext makes no switch of its own
// that could not be annotated.
#if defined(__SANITIZE_ADDRESS__)
#define GPUCORE_SIMT_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define GPUCORE_SIMT_TSAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUCORE_SIMT_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define GPUCORE_SIMT_TSAN 1
#endif
#endif
#if defined(GPUCORE_SIMT_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(GPUCORE_SIMT_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace gpucore::simt {
namespace {

namespace fctx = boost::context::detail;

#if defined(GPUCORE_SIMT_ASAN)
constexpr std::size_t kStackBytes = 512 * 1024; // instrumented frames are several times larger
#else
constexpr std::size_t kStackBytes = 128 * 1024;
#endif

// A fiber stack with an inaccessible guard page below it: an overflow faults at once.
class FiberStack {
public:
    FiberStack() {
        page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        size_ = (kStackBytes + page_ - 1) / page_ * page_;
        void* base = mmap(nullptr, size_ + page_, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (base == MAP_FAILED) throw std::bad_alloc();
        base_ = static_cast<unsigned char*>(base);
        if (mprotect(base_, page_, PROT_NONE) != 0) {
            munmap(base_, size_ + page_);
            throw std::bad_alloc();
        }
    }
    ~FiberStack() {
        if (base_ != nullptr) munmap(base_, size_ + page_);
    }
    FiberStack(FiberStack&& other) noexcept
        : base_(std::exchange(other.base_, nullptr)), size_(other.size_), page_(other.page_) {}
    FiberStack(const FiberStack&) = delete;
    FiberStack& operator=(const FiberStack&) = delete;
    FiberStack& operator=(FiberStack&&) = delete;

    unsigned char* bottom() const { return base_ + page_; }
    unsigned char* top() const { return base_ + page_ + size_; }
    std::size_t size() const { return size_; }

private:
    unsigned char* base_ = nullptr;
    std::size_t size_ = 0;
    std::size_t page_ = 0;
};

enum class Wait { running, barrier, shuffle, exited };

// Thrown at a thread's wait point to unwind it when its block is abandoned after a fault.
struct BlockAborted {};

class BlockRunner;

struct GpuThread {
    ThreadPosition position;
    unsigned index = 0;
    unsigned lane = 0;
    unsigned warp = 0;
    Wait wait = Wait::running;
    const char* file = nullptr; // call site of the barrier or shuffle it waits in
    int line = 0;
    alignas(16) unsigned char shuffle_in[kShuffleBytes];
    alignas(16) unsigned char shuffle_out[kShuffleBytes];
    std::size_t shuffle_bytes = 0;
    int shuffle_mask = 0;
    int shuffle_width = 0;
    bool aborting = false;
    fctx::fcontext_t self = nullptr;      // resumes this thread (null: not started)
    fctx::fcontext_t scheduler = nullptr; // resumes the scheduler, from inside the thread
    const std::function<void()>* body = nullptr;
    BlockRunner* runner = nullptr;
    const FiberStack* stack = nullptr;
    void* asan_fake_stack = nullptr;
    const void* asan_from_bottom = nullptr;
    std::size_t asan_from_size = 0;
    void* tsan_fiber = nullptr;
};

thread_local GpuThread* t_current = nullptr;

std::string site(const char* file, int line) {
    const char* base = file != nullptr ? std::strrchr(file, '/') : nullptr;
    return std::string(base != nullptr ? base + 1 : (file != nullptr ? file : "?")) + ":" +
           std::to_string(line);
}

std::string text_of(const dim3& d) {
    return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

void fiber_entry(fctx::transfer_t from);

class BlockRunner {
public:
    BlockRunner() {
#if defined(GPUCORE_SIMT_TSAN)
        tsan_self_ = __tsan_get_current_fiber();
#endif
    }
    ~BlockRunner() {
#if defined(GPUCORE_SIMT_TSAN)
        for (void* fiber : tsan_fibers_) __tsan_destroy_fiber(fiber);
#endif
    }
    BlockRunner(const BlockRunner&) = delete;
    BlockRunner& operator=(const BlockRunner&) = delete;

    std::string run(const std::function<void()>& body, const BlockLaunch& launch);

    void record_fault(std::string text) {
        if (fault_.empty()) fault_ = std::move(text);
    }
    void* tsan_self() const { return tsan_self_; }

private:
    void prepare(const std::function<void()>& body, const BlockLaunch& launch, unsigned n);
    // Queues thread i; called in ascending order of i, it keeps this block's order.
    void make_ready(unsigned i) {
        if (descending_) ready_.push_front(i);
        else ready_.push_back(i);
    }
    void resume(GpuThread& t);
    void thread_exited(GpuThread& t);
    void shuffle_arrived(GpuThread& t);
    void exchange(unsigned warp);
    void release_barrier();
    std::string describe_deadlock() const;
    void abort_threads();

    std::vector<FiberStack> stacks_;
    std::vector<void*> tsan_fibers_;
    void* tsan_self_ = nullptr;
    std::vector<GpuThread> threads_;
    std::deque<unsigned> ready_;
    std::vector<unsigned> warp_arrivals_;
    std::vector<unsigned> warp_ended_;
    unsigned threads_in_block_ = 0;
    unsigned live_ = 0;
    unsigned barrier_arrivals_ = 0;
    std::string fault_;
    std::string block_name_;
    bool descending_ = false; // this block resumes its threads from the highest index down
};

// ---- switches -------------------------------------------------------------------------------------

// From inside a GPU thread to its scheduler; returns when the scheduler resumes this thread.
void yield_to_scheduler(GpuThread& t) {
#if defined(GPUCORE_SIMT_ASAN)
    __sanitizer_start_switch_fiber(&t.asan_fake_stack, t.asan_from_bottom, t.asan_from_size);
#endif
#if defined(GPUCORE_SIMT_TSAN)
    __tsan_switch_to_fiber(t.runner->tsan_self(), 0);
#endif
    const fctx::transfer_t back = fctx::jump_fcontext(t.scheduler, nullptr);
    t.scheduler = back.fctx;
#if defined(GPUCORE_SIMT_ASAN)
    __sanitizer_finish_switch_fiber(t.asan_fake_stack, &t.asan_from_bottom, &t.asan_from_size);
#endif
    if (t.aborting) throw BlockAborted{};
}

void fiber_entry(fctx::transfer_t from) {
    auto* t = static_cast<GpuThread*>(from.data);
    t->scheduler = from.fctx;
#if defined(GPUCORE_SIMT_ASAN)
    __sanitizer_finish_switch_fiber(nullptr, &t->asan_from_bottom, &t->asan_from_size);
#endif
    if (!t->aborting) {
        try {
            (*t->body)();
        } catch (const BlockAborted&) {
        } catch (const std::exception& e) {
            t->runner->record_fault("thread " + text_of(t->position.thread_idx) +
                                    " threw: " + e.what());
        } catch (...) {
            t->runner->record_fault("thread " + text_of(t->position.thread_idx) +
                                    " threw an exception");
        }
    }
    t->wait = Wait::exited;
    // This stack is finished with: the sanitizer forgets it (a null fake-stack slot).
#if defined(GPUCORE_SIMT_ASAN)
    __sanitizer_start_switch_fiber(nullptr, t->asan_from_bottom, t->asan_from_size);
#endif
#if defined(GPUCORE_SIMT_TSAN)
    __tsan_switch_to_fiber(t->runner->tsan_self(), 0);
#endif
    fctx::jump_fcontext(t->scheduler, nullptr);
}

void BlockRunner::resume(GpuThread& t) {
    if (t.self == nullptr) {
        t.self = fctx::make_fcontext(t.stack->top(), t.stack->size(), &fiber_entry);
    }
    t_current = &t;
#if defined(GPUCORE_SIMT_ASAN)
    void* fake_stack = nullptr;
    __sanitizer_start_switch_fiber(&fake_stack, t.stack->bottom(), t.stack->size());
#endif
#if defined(GPUCORE_SIMT_TSAN)
    __tsan_switch_to_fiber(t.tsan_fiber, 0);
#endif
    const fctx::transfer_t back = fctx::jump_fcontext(t.self, &t);
#if defined(GPUCORE_SIMT_ASAN)
    __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
    t.self = back.fctx;
    t_current = nullptr;
}

// ---- the scheduler --------------------------------------------------------------------------------

void BlockRunner::prepare(const std::function<void()>& body, const BlockLaunch& launch, unsigned n) {
    while (stacks_.size() < n) {
        stacks_.emplace_back();
#if defined(GPUCORE_SIMT_TSAN)
        tsan_fibers_.push_back(__tsan_create_fiber(0));
#else
        tsan_fibers_.push_back(nullptr);
#endif
    }
    if (threads_.size() < n) threads_.resize(n);
    const unsigned bx = launch.block_dim.x;
    const unsigned by = launch.block_dim.y;
    const auto width = static_cast<unsigned>(GPUCORE_SIMT_WARP_SIZE);
    // Even blocks run their threads in ascending order, odd blocks in descending order: a read
    // of another thread's write that lacks a barrier in between sees the old value in one of the
    // two, whichever thread is the lower.
    const std::size_t linear_block =
        launch.block_idx.x + static_cast<std::size_t>(launch.grid_dim.x) *
                                 (launch.block_idx.y + static_cast<std::size_t>(launch.grid_dim.y) * launch.block_idx.z);
    descending_ = linear_block % 2 == 1;
    ready_.clear();
    for (unsigned i = 0; i < n; ++i) {
        GpuThread& t = threads_[i];
        t = GpuThread{};
        t.position.thread_idx = dim3(i % bx, (i / bx) % by, i / (bx * by));
        t.position.block_idx = launch.block_idx;
        t.position.block_dim = launch.block_dim;
        t.position.grid_dim = launch.grid_dim;
        t.index = i;
        t.lane = i % width;
        t.warp = i / width;
        t.body = &body;
        t.runner = this;
        t.stack = &stacks_[i];
        t.tsan_fiber = tsan_fibers_[i];
        make_ready(i);
    }
    const unsigned warps = (n + width - 1) / width;
    warp_arrivals_.assign(warps, 0);
    warp_ended_.assign(warps, 0);
    threads_in_block_ = n;
    live_ = n;
    barrier_arrivals_ = 0;
    fault_.clear();
    block_name_ = "block " + text_of(launch.block_idx);
}

std::string BlockRunner::run(const std::function<void()>& body, const BlockLaunch& launch) {
    const unsigned n = launch.block_dim.x * launch.block_dim.y * launch.block_dim.z;
    try {
        prepare(body, launch, n);
    } catch (const std::bad_alloc&) {
        return "no memory for the fiber stacks of " + std::to_string(n) + " threads";
    }
    while (!ready_.empty() && fault_.empty()) {
        GpuThread& t = threads_[ready_.front()];
        ready_.pop_front();
        resume(t);
        switch (t.wait) {
        case Wait::exited: thread_exited(t); break;
        case Wait::barrier: ++barrier_arrivals_; break;
        case Wait::shuffle: shuffle_arrived(t); break;
        case Wait::running: record_fault("a thread left the scheduler while running"); break;
        }
        if (fault_.empty() && barrier_arrivals_ > 0 && barrier_arrivals_ == live_) release_barrier();
    }
    if (fault_.empty() && live_ > 0) fault_ = describe_deadlock();
    if (!fault_.empty()) {
        abort_threads();
        return block_name_ + ": " + fault_;
    }
    return {};
}

void BlockRunner::thread_exited(GpuThread& t) {
    --live_;
    ++warp_ended_[t.warp];
    if (warp_arrivals_[t.warp] > 0) {
        for (unsigned i = 0; i < threads_in_block_; ++i) {
            const GpuThread& other = threads_[i];
            if (other.warp == t.warp && other.wait == Wait::shuffle) {
                record_fault("lane " + std::to_string(t.lane) + " of warp " +
                             std::to_string(t.warp) + " ended while lane " +
                             std::to_string(other.lane) + " waits in the shuffle at " +
                             site(other.file, other.line) +
                             ": a shuffle needs every lane of its warp");
                return;
            }
        }
    }
}

void BlockRunner::shuffle_arrived(GpuThread& t) {
    const auto width = static_cast<unsigned>(GPUCORE_SIMT_WARP_SIZE);
    const unsigned first = t.warp * width;
    const unsigned lanes = std::min(width, threads_in_block_ - first);
    if (lanes < width) {
        record_fault("shuffle at " + site(t.file, t.line) + " in warp " + std::to_string(t.warp) +
                     ", which has " + std::to_string(lanes) + " of " + std::to_string(width) +
                     " lanes (the block is not a whole number of warps)");
        return;
    }
    if (warp_ended_[t.warp] > 0) {
        record_fault("shuffle at " + site(t.file, t.line) + " in warp " + std::to_string(t.warp) +
                     " after " + std::to_string(warp_ended_[t.warp]) +
                     " of its lanes ended: a shuffle needs every lane of its warp");
        return;
    }
    if (++warp_arrivals_[t.warp] == width) exchange(t.warp);
}

void BlockRunner::exchange(unsigned warp) {
    const auto width = static_cast<unsigned>(GPUCORE_SIMT_WARP_SIZE);
    GpuThread* lanes = &threads_[warp * width];
    for (unsigned l = 1; l < width; ++l) {
        const GpuThread& a = lanes[0];
        const GpuThread& b = lanes[l];
        if (b.line != a.line || std::strcmp(b.file, a.file) != 0 ||
            b.shuffle_bytes != a.shuffle_bytes) {
            record_fault("lanes of warp " + std::to_string(warp) + " are in different shuffles: lane 0 at " +
                         site(a.file, a.line) + ", lane " + std::to_string(l) + " at " +
                         site(b.file, b.line));
            return;
        }
    }
    for (unsigned l = 0; l < width; ++l) {
        const GpuThread& t = lanes[l];
        const auto segment = static_cast<unsigned>(t.shuffle_width);
        if (t.shuffle_width <= 0 || segment > width || (segment & (segment - 1)) != 0) {
            record_fault("shuffle at " + site(t.file, t.line) + " with width " +
                         std::to_string(t.shuffle_width) + ": not a power of two up to " +
                         std::to_string(width));
            return;
        }
    }
    for (unsigned l = 0; l < width; ++l) {
        GpuThread& t = lanes[l];
        const auto segment = static_cast<unsigned>(t.shuffle_width);
        const unsigned segment_end = (l / segment + 1) * segment;
        unsigned source = l ^ static_cast<unsigned>(t.shuffle_mask);
        if (source >= segment_end) source = l; // past its segment: a lane keeps its own value
        std::memcpy(t.shuffle_out, lanes[source].shuffle_in, t.shuffle_bytes);
    }
    for (unsigned l = 0; l < width; ++l) {
        lanes[l].wait = Wait::running;
        make_ready(warp * width + l);
    }
    warp_arrivals_[warp] = 0;
}

void BlockRunner::release_barrier() {
    const GpuThread* first = nullptr;
    for (unsigned i = 0; i < threads_in_block_; ++i) {
        const GpuThread& t = threads_[i];
        if (t.wait != Wait::barrier) continue;
        if (first == nullptr) {
            first = &t;
        } else if (t.line != first->line || std::strcmp(t.file, first->file) != 0) {
            record_fault("threads wait at different __syncthreads: thread " +
                         text_of(first->position.thread_idx) + " at " +
                         site(first->file, first->line) + ", thread " +
                         text_of(t.position.thread_idx) + " at " + site(t.file, t.line) +
                         " (a barrier in divergent code)");
            return;
        }
    }
    if (live_ < threads_in_block_) {
        record_fault("__syncthreads at " + site(first->file, first->line) + " reached by " +
                     std::to_string(live_) + " of " + std::to_string(threads_in_block_) +
                     " threads; the others have ended (a barrier in divergent code)");
        return;
    }
    for (unsigned i = 0; i < threads_in_block_; ++i) {
        threads_[i].wait = Wait::running;
        make_ready(i);
    }
    barrier_arrivals_ = 0;
}

std::string BlockRunner::describe_deadlock() const {
    // Waiting threads grouped by what they wait in and where: "32 threads (first (0,0,0)) wait ...".
    std::map<std::string, std::pair<unsigned, unsigned>> groups; // text -> (count, first index)
    for (unsigned i = 0; i < threads_in_block_; ++i) {
        const GpuThread& t = threads_[i];
        std::string what;
        if (t.wait == Wait::barrier) what = "wait at __syncthreads " + site(t.file, t.line);
        else if (t.wait == Wait::shuffle) what = "wait in the shuffle at " + site(t.file, t.line);
        else continue;
        auto [it, inserted] = groups.try_emplace(what, 0u, i);
        ++it->second.first;
    }
    std::string text = "deadlock, no thread can go on:";
    for (const auto& [what, group] : groups) {
        const GpuThread& t = threads_[group.second];
        text += " " + std::to_string(group.first) + " thread(s) (first " +
                text_of(t.position.thread_idx) + ", warp " + std::to_string(t.warp) + ") " + what + ";";
    }
    text += " a shuffle completes only when its whole warp arrives and a barrier only when the "
            "whole block does (a barrier or shuffle in warp-divergent code)";
    return text;
}

void BlockRunner::abort_threads() {
    for (unsigned i = 0; i < threads_in_block_; ++i) {
        GpuThread& t = threads_[i];
        if (t.wait == Wait::exited) continue;
        t.aborting = true;
        resume(t);
    }
    ready_.clear();
}

} // namespace

const ThreadPosition& current_position() noexcept { return t_current->position; }

void block_barrier(const char* file, int line) {
    GpuThread& t = *t_current;
    t.wait = Wait::barrier;
    t.file = file;
    t.line = line;
    yield_to_scheduler(t);
}

void warp_shuffle_xor(void* value, std::size_t bytes, int lane_mask, int width, const char* file,
                      int line) {
    GpuThread& t = *t_current;
    t.wait = Wait::shuffle;
    t.file = file;
    t.line = line;
    t.shuffle_bytes = bytes;
    t.shuffle_mask = lane_mask;
    t.shuffle_width = width;
    std::memcpy(t.shuffle_in, value, bytes);
    yield_to_scheduler(t);
    std::memcpy(value, t.shuffle_out, bytes);
}

std::string run_block(const std::function<void()>& body, const BlockLaunch& launch) {
    thread_local BlockRunner runner;
    return runner.run(body, launch);
}

} // namespace gpucore::simt

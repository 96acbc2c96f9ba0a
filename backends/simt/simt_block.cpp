// SPDX-License-Identifier: Apache-2.0
#include "gpucore/kernel/cpu.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <boost/context/detail/fcontext.hpp>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
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
    const char* file = nullptr; // call site of the barrier or warp exchange it waits in
    int line = 0;
    alignas(16) unsigned char shuffle_in[kShuffleBytes];
    alignas(16) unsigned char shuffle_out[kShuffleBytes];
    std::size_t shuffle_bytes = 0;
    ExchangeMode exchange_mode = ExchangeMode::xor_lane;
    int shuffle_operand = 0;
    int shuffle_width = 0;
    bool aborting = false;
    fctx::fcontext_t self = nullptr;      // resumes this thread (null: not started)
    fctx::fcontext_t scheduler = nullptr; // resumes the scheduler, from inside the thread
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
void direct_entry(fctx::transfer_t from);

// Runs the blocks of one OS thread. A block starts in direct mode: one fiber runs its threads one
// after another as plain calls, in index order. The first barrier or warp exchange a thread
// reaches turns the block into fiber mode: that fiber becomes the thread's own, the threads before
// it have ended, and each thread after it gets a fiber of its own; the scheduler then runs them
// until every thread ends.
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

    std::string run(void (*loop)(void*, DirectThreads&), void (*body)(void*), void* user, const BlockLaunch& launch);

    void record_fault(std::string text) {
        if (fault_.empty()) fault_ = std::move(text);
    }
    void* tsan_self() const { return tsan_self_; }
    void (*body_of() const)(void*) { return body_; }
    void* user_of() const { return user_; }

    // Direct mode: runs the threads from the first one on, until they end or one of them reaches
    // a barrier or warp exchange (then switches to fiber mode); on the direct fiber.
    void run_direct(fctx::fcontext_t scheduler);
    bool direct() const { return direct_threads_.direct; }
    // In direct mode: the current thread reached a barrier or warp exchange. Makes the block a
    // fiber-mode block in which the current thread waits there; returns that thread.
    GpuThread& leave_direct_mode();

private:
    void ensure_stacks(unsigned n);
    void prepare_fibers(unsigned first_live);
    // Queues thread i; called in ascending order of i, it keeps this block's order.
    void make_ready(unsigned i) {
        if (descending_) ready_.push_front(i);
        else ready_.push_back(i);
    }
    void resume(GpuThread& t);
    void arrived(GpuThread& t);
    void thread_exited(GpuThread& t);
    void shuffle_arrived(GpuThread& t);
    void exchange(unsigned warp);
    void release_barrier();
    std::string describe_deadlock() const;
    void abort_threads();

    // A deque: growing it never moves a stack, so a thread's `stack` pointer stays valid when
    // a block that went to fibers needs more stacks than the ones before it.
    std::deque<FiberStack> stacks_;
    std::vector<void*> tsan_fibers_;
    void* tsan_self_ = nullptr;
    std::vector<GpuThread> threads_;
    std::deque<unsigned> ready_;
    std::vector<unsigned> warp_arrivals_;
    std::vector<unsigned> warp_ended_;
    unsigned threads_in_block_ = 0;
    unsigned width_ = 32;
    unsigned live_ = 0;
    unsigned barrier_arrivals_ = 0;
    std::string fault_;
    bool descending_ = false; // this block resumes its threads from the highest index down
    ThreadPosition block_position_;
    // Dynamic shared memory, 16-byte aligned: allocated with the aligned new[], so freed with the
    // aligned delete[].
    struct AlignedDelete {
        void operator()(unsigned char* p) const noexcept { ::operator delete[](p, std::align_val_t{16}); }
    };
    std::unique_ptr<unsigned char[], AlignedDelete> shared_;
    std::size_t shared_capacity_ = 0;

    // Direct mode.
    void (*loop_)(void*, DirectThreads&) = nullptr;
    void (*body_)(void*) = nullptr;
    void* user_ = nullptr;
    DirectThreads direct_threads_;
    GpuThread direct_thread_; // stands for the running thread (stack, sanitizer state) until fiber mode
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

// The last switch of a fiber: back to its scheduler, never to return.
[[noreturn]] void leave_fiber(GpuThread& t) {
    // This stack is finished with: the sanitizer forgets it (a null fake-stack slot).
#if defined(GPUCORE_SIMT_ASAN)
    __sanitizer_start_switch_fiber(nullptr, t.asan_from_bottom, t.asan_from_size);
#endif
#if defined(GPUCORE_SIMT_TSAN)
    __tsan_switch_to_fiber(t.runner->tsan_self(), 0);
#endif
    fctx::jump_fcontext(t.scheduler, nullptr);
    __builtin_unreachable();
}

// Runs f() as GPU thread `t` (or, in direct mode, as the threads it runs); a fault it raises is
// recorded.
template <class F>
void run_guarded(GpuThread& t, F&& f) {
    try {
        f();
    } catch (const BlockAborted&) {
    } catch (const std::exception& e) {
        t.runner->record_fault("thread " + text_of(t_execution.position.thread_idx) + " threw: " + e.what());
    } catch (...) {
        t.runner->record_fault("thread " + text_of(t_execution.position.thread_idx) + " threw an exception");
    }
}

void fiber_entry(fctx::transfer_t from) {
    auto* t = static_cast<GpuThread*>(from.data);
    t->scheduler = from.fctx;
#if defined(GPUCORE_SIMT_ASAN)
    __sanitizer_finish_switch_fiber(nullptr, &t->asan_from_bottom, &t->asan_from_size);
#endif
    BlockRunner& runner = *t->runner;
    if (!t->aborting) run_guarded(*t, [&] { runner.body_of()(runner.user_of()); });
    t->wait = Wait::exited;
    leave_fiber(*t);
}

void direct_entry(fctx::transfer_t from) {
    auto* runner = static_cast<BlockRunner*>(from.data);
    runner->run_direct(from.fctx);
}

void BlockRunner::resume(GpuThread& t) {
    if (t.self == nullptr) {
        t.self = fctx::make_fcontext(t.stack->top(), t.stack->size(), &fiber_entry);
    }
    t_current = &t;
    t_execution.position = t.position;
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

// ---- direct mode ----------------------------------------------------------------------------------

void BlockRunner::run_direct(fctx::fcontext_t scheduler) {
    GpuThread& d = direct_thread_;
    d.scheduler = scheduler;
#if defined(GPUCORE_SIMT_ASAN)
    __sanitizer_finish_switch_fiber(nullptr, &d.asan_from_bottom, &d.asan_from_size);
#endif
    // The loop returns when the threads have ended, one of them went to fiber mode, or a thread
    // faulted (the block stops there).
    if (loop_ != nullptr) run_guarded(d, [&] { loop_(user_, direct_threads_); });
    else run_guarded(d, [&] { run_direct_threads(direct_threads_, [&] { body_(user_); }); });
    if (!direct_threads_.direct) {
        // This fiber became the fiber of a thread that synchronised; that thread has ended.
        GpuThread& t = threads_[direct_threads_.index];
        t.wait = Wait::exited;
        leave_fiber(t);
    }
    d.wait = Wait::exited;
    leave_fiber(d);
}

GpuThread& BlockRunner::leave_direct_mode() {
    const dim3 at = t_execution.position.thread_idx;
    const dim3 dim = block_position_.block_dim;
    const unsigned k = at.x + dim.x * (at.y + dim.y * at.z);
    direct_threads_.index = k;
    prepare_fibers(k);
    GpuThread& t = threads_[k];
    // The direct fiber goes on as thread k: its stack, its scheduler, its sanitizer state.
    t.stack = direct_thread_.stack;
    t.tsan_fiber = direct_thread_.tsan_fiber;
    t.scheduler = direct_thread_.scheduler;
    t.asan_from_bottom = direct_thread_.asan_from_bottom;
    t.asan_from_size = direct_thread_.asan_from_size;
    t.self = nullptr; // set by run() when the fiber yields
    direct_threads_.direct = false;
    t_current = &t;
    return t;
}

// ---- the scheduler --------------------------------------------------------------------------------

void BlockRunner::ensure_stacks(unsigned n) {
    while (stacks_.size() < n) {
        stacks_.emplace_back();
#if defined(GPUCORE_SIMT_TSAN)
        tsan_fibers_.push_back(__tsan_create_fiber(0));
#else
        tsan_fibers_.push_back(nullptr);
#endif
    }
}

// Fiber mode: threads before `first_live` have ended; thread `first_live` runs on the direct
// fiber (stack 0); every later thread i gets stack i and is ready.
void BlockRunner::prepare_fibers(unsigned first_live) {
    const unsigned n = threads_in_block_;
    ensure_stacks(n);
    if (threads_.size() < n) threads_.resize(n);
    const unsigned bx = block_position_.block_dim.x;
    const unsigned by = block_position_.block_dim.y;
    // Even blocks run their threads in ascending order, odd blocks in descending order: a read
    // of another thread's write that lacks a barrier in between sees the old value in one of the
    // two, whichever thread is the lower.
    const dim3 b = block_position_.block_idx;
    const dim3 g = block_position_.grid_dim;
    const std::size_t linear_block = b.x + static_cast<std::size_t>(g.x) * (b.y + static_cast<std::size_t>(g.y) * b.z);
    descending_ = linear_block % 2 == 1;
    ready_.clear();
    const unsigned warps = (n + width_ - 1) / width_;
    warp_arrivals_.assign(warps, 0);
    warp_ended_.assign(warps, 0);
    for (unsigned i = 0; i < n; ++i) {
        GpuThread& t = threads_[i];
        t = GpuThread{};
        t.position = block_position_;
        t.position.thread_idx = dim3(i % bx, (i / bx) % by, i / (bx * by));
        t.index = i;
        t.lane = i % width_;
        t.warp = i / width_;
        t.runner = this;
        if (i < first_live) {
            t.wait = Wait::exited;
            ++warp_ended_[t.warp];
        } else if (i > first_live) {
            t.stack = &stacks_[i];
            t.tsan_fiber = tsan_fibers_[i];
            make_ready(i);
        }
    }
    live_ = n - first_live;
    barrier_arrivals_ = 0;
}

std::string BlockRunner::run(void (*loop)(void*, DirectThreads&), void (*body)(void*), void* user,
                             const BlockLaunch& launch) {
    const unsigned n = launch.block_dim.x * launch.block_dim.y * launch.block_dim.z;
    loop_ = loop;
    body_ = body;
    user_ = user;
    threads_in_block_ = n;
    width_ = launch.warp_size;
    fault_.clear();
    block_position_ = ThreadPosition{dim3(0, 0, 0), launch.block_idx, launch.block_dim, launch.grid_dim};
    t_execution.position = block_position_;
    t_execution.warp_size = launch.warp_size;
    try {
        if (launch.shared_bytes > shared_capacity_) {
            shared_.reset(new (std::align_val_t{16}) unsigned char[launch.shared_bytes]);
            shared_capacity_ = launch.shared_bytes;
        }
        ensure_stacks(1);
    } catch (const std::bad_alloc&) {
        return "no memory for the block's shared memory or fiber stack";
    }
    t_execution.dynamic_shared = shared_.get();

    // Direct mode, on the direct fiber (stack 0).
    direct_threads_ = DirectThreads{};
    direct_thread_ = GpuThread{};
    direct_thread_.runner = this;
    direct_thread_.stack = &stacks_[0];
    direct_thread_.tsan_fiber = tsan_fibers_[0];
    t_current = &direct_thread_;
    {
        const fctx::fcontext_t start = fctx::make_fcontext(stacks_[0].top(), stacks_[0].size(), &direct_entry);
#if defined(GPUCORE_SIMT_ASAN)
        void* fake_stack = nullptr;
        __sanitizer_start_switch_fiber(&fake_stack, stacks_[0].bottom(), stacks_[0].size());
#endif
#if defined(GPUCORE_SIMT_TSAN)
        __tsan_switch_to_fiber(tsan_fibers_[0], 0);
#endif
        const fctx::transfer_t back = fctx::jump_fcontext(start, this);
#if defined(GPUCORE_SIMT_ASAN)
        __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
        t_current = nullptr;
        if (direct_threads_.direct) return fault_.empty() ? std::string() : "block " + text_of(launch.block_idx) + ": " + fault_;
        // Fiber mode: the direct fiber now waits as the thread it was running.
        GpuThread& t = threads_[direct_threads_.index];
        t.self = back.fctx;
        arrived(t);
    }

    while (!ready_.empty() && fault_.empty()) {
        GpuThread& t = threads_[ready_.front()];
        ready_.pop_front();
        resume(t);
        arrived(t);
    }
    if (fault_.empty() && live_ > 0) fault_ = describe_deadlock();
    if (!fault_.empty()) {
        abort_threads();
        return "block " + text_of(launch.block_idx) + ": " + fault_;
    }
    return {};
}

// Thread t has come back to the scheduler: it ended, or waits.
void BlockRunner::arrived(GpuThread& t) {
    switch (t.wait) {
    case Wait::exited: thread_exited(t); break;
    case Wait::barrier: ++barrier_arrivals_; break;
    case Wait::shuffle: shuffle_arrived(t); break;
    case Wait::running: record_fault("a thread left the scheduler while running"); break;
    }
    if (fault_.empty() && barrier_arrivals_ > 0 && barrier_arrivals_ == live_) release_barrier();
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
    const unsigned width = width_;
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
    const unsigned width = width_;
    GpuThread* lanes = &threads_[warp * width];
    for (unsigned l = 1; l < width; ++l) {
        const GpuThread& a = lanes[0];
        const GpuThread& b = lanes[l];
        if (b.line != a.line || std::strcmp(b.file, a.file) != 0 ||
            b.shuffle_bytes != a.shuffle_bytes || b.exchange_mode != a.exchange_mode) {
            record_fault("lanes of warp " + std::to_string(warp) + " are in different warp operations: lane 0 at " +
                         site(a.file, a.line) + ", lane " + std::to_string(l) + " at " +
                         site(b.file, b.line));
            return;
        }
    }
    for (unsigned l = 0; l < width; ++l) {
        const GpuThread& t = lanes[l];
        const auto segment = static_cast<unsigned>(t.shuffle_width);
        if (t.shuffle_width <= 0 || segment > width || (segment & (segment - 1)) != 0) {
            record_fault("warp operation at " + site(t.file, t.line) + " with width " +
                         std::to_string(t.shuffle_width) + ": not a power of two up to " +
                         std::to_string(width));
            return;
        }
    }
    if (lanes[0].exchange_mode == ExchangeMode::ballot) {
        std::uint64_t bits = 0;
        for (unsigned l = 0; l < width; ++l) {
            if (lanes[l].shuffle_in[0] != 0) bits |= std::uint64_t{1} << l;
        }
        for (unsigned l = 0; l < width; ++l) std::memcpy(lanes[l].shuffle_out, &bits, sizeof bits);
    }
    for (unsigned l = 0; l < width && lanes[0].exchange_mode != ExchangeMode::ballot; ++l) {
        GpuThread& t = lanes[l];
        const auto segment = static_cast<unsigned>(t.shuffle_width);
        const unsigned first = l / segment * segment;
        const long long own = l;
        long long source = own;
        // As the hardware: a mask or offset counts by its low log2(warp width) bits only.
        const long long low_bits = static_cast<unsigned>(t.shuffle_operand) & (width - 1);
        switch (t.exchange_mode) {
        case ExchangeMode::xor_lane: source = own ^ low_bits; break;
        case ExchangeMode::from_lane: {
            const long long w = segment;
            source = first + ((t.shuffle_operand % w) + w) % w;
            break;
        }
        case ExchangeMode::down: source = own + low_bits; break;
        case ExchangeMode::up: source = own - low_bits; break;
        case ExchangeMode::ballot: break;
        }
        // As on CUDA and HIP: a lane may read from earlier segments with xor but keeps its own
        // value where the source lies past its segment's end, or before its start with up.
        const bool before = t.exchange_mode == ExchangeMode::up && source < static_cast<long long>(first);
        if (before || source >= static_cast<long long>(first + segment)) source = own;
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

GPUCORE_SIMT_CONSTANT_INIT thread_local ExecutionState t_execution;

void block_barrier(const char* file, int line) {
    BlockRunner& runner = *t_current->runner;
    GpuThread& t = runner.direct() ? runner.leave_direct_mode() : *t_current;
    t.wait = Wait::barrier;
    t.file = file;
    t.line = line;
    yield_to_scheduler(t);
}

void warp_exchange(void* value, std::size_t bytes, ExchangeMode mode, int operand, int width, const char* file,
                   int line) {
    BlockRunner& runner = *t_current->runner;
    GpuThread& t = runner.direct() ? runner.leave_direct_mode() : *t_current;
    t.wait = Wait::shuffle;
    t.file = file;
    t.line = line;
    t.shuffle_bytes = bytes;
    t.exchange_mode = mode;
    t.shuffle_operand = operand;
    t.shuffle_width = width;
    std::memcpy(t.shuffle_in, value, bytes);
    yield_to_scheduler(t);
    std::memcpy(value, t.shuffle_out, bytes);
}

std::string run_block(void (*thread_loop)(void*, DirectThreads&), void (*thread_body)(void*), void* user,
                      const BlockLaunch& launch) {
    // On the heap: the module's TLS block stays small enough for the loader's static TLS room,
    // where the kernels' reads of their position are plain loads.
    thread_local std::unique_ptr<BlockRunner> runner;
    try {
        if (!runner) runner = std::make_unique<BlockRunner>();
    } catch (const std::bad_alloc&) {
        return "no memory for the block runner";
    }
    return runner->run(thread_loop, thread_body, user, launch);
}

std::string run_block(void (*thread_body)(void*), void* user, const BlockLaunch& launch) {
    return run_block(nullptr, thread_body, user, launch);
}

} // namespace gpucore::simt

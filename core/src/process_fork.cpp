// SPDX-License-Identifier: Apache-2.0
#include "process_fork.hpp"

#include <pthread.h>

#include <atomic>
#include <mutex>
#include <string>

#include "backend.hpp"

namespace gpucore::detail {
namespace {

std::atomic<unsigned> g_generation{0};

// The backends to reset in a child: a list that is only ever pushed to, so the child handler can
// walk it without taking a lock (a lock held by another thread at fork() would never be released).
struct TrackedBackend {
    Backend* backend;
    TrackedBackend* next;
};
std::atomic<TrackedBackend*> g_tracked{nullptr};
std::once_flag g_handler_once;

void in_child_after_fork() noexcept {
    g_generation.fetch_add(1, std::memory_order_relaxed);
    for (TrackedBackend* t = g_tracked.load(std::memory_order_acquire); t != nullptr; t = t->next) {
        t->backend->streams().forget_inherited_streams();
    }
}

} // namespace

unsigned process_generation() noexcept { return g_generation.load(std::memory_order_relaxed); }

void track_backend_for_fork(Backend* backend) {
    std::call_once(g_handler_once, [] { pthread_atfork(nullptr, nullptr, in_child_after_fork); });
    auto* node = new TrackedBackend{backend, g_tracked.load(std::memory_order_relaxed)}; // never freed
    while (!g_tracked.compare_exchange_weak(node->next, node, std::memory_order_release,
                                            std::memory_order_relaxed)) {
    }
}

void require_this_process(unsigned generation, const char* what, const char* operation) {
    if (generation != process_generation()) {
        throw Error(ErrorCode::invalid_argument, operation, "", -1,
                    std::string(what) +
                        " was created by the parent process before fork(); a child process must "
                        "create its own Streams, Events and Buffers");
    }
}

} // namespace gpucore::detail

// SPDX-License-Identifier: Apache-2.0
// fork() support: a child process may use gpucore with objects it creates itself.
//
// The child has one thread: the worker threads behind the parent's streams (the cpu backend's and
// the internal copy stream's) do not exist there. A pthread_atfork child handler therefore makes
// every backend forget the streams it knew (so the child creates its own on first use) and starts
// a new process generation. Streams, Events and Buffers remember the generation they were created
// in: used in the child, one inherited from the parent is an Error; destroyed there, it is
// forgotten without calling the backend (the backend's objects belong to the parent).
#pragma once

namespace gpucore::detail {

class Backend;

// 0 in the process that loaded gpucore, one more in each child of a fork() after that.
unsigned process_generation() noexcept;

// Makes the fork() child handler reset `backend`'s stream registry. Backends live until the
// process ends. Thread-safe.
void track_backend_for_fork(Backend* backend);

// Error(invalid_argument) naming `operation` when `generation` is not this process's: `what` (e.g.
// "the stream") was created by the parent process before fork().
void require_this_process(unsigned generation, const char* what, const char* operation);

} // namespace gpucore::detail

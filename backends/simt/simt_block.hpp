// SPDX-License-Identifier: Apache-2.0
// One block of a grid on the calling OS thread: every GPU thread of the block is a fiber, run by
// a deterministic scheduler (threads in order, each until it waits or ends). A __syncthreads
// completes when every thread of the block waits at the same barrier; a shuffle completes when
// every lane of its warp has arrived, and involves no other warp. What a GPU cannot complete
// (a barrier some threads never reach, a shuffle without its whole warp, a deadlock between them)
// ends the block with a fault that names the call sites.
#pragma once

#include <functional>
#include <string>

#include "simt_runtime.hpp"

namespace gpucore::simt {

struct BlockLaunch {
    dim3 block_idx;
    dim3 block_dim;
    dim3 grid_dim;
};

// Runs `body` once per thread of the block; returns "" or the fault's description. Each OS thread
// has its own runner (fiber stacks are kept for the next block). Not reentrant.
std::string run_block(const std::function<void()>& body, const BlockLaunch& launch);

} // namespace gpucore::simt

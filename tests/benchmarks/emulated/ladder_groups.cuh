// SPDX-License-Identifier: Apache-2.0
// The cooperative-groups tiles of the ladder's tiled-partition kernel, emulated (see gpu_vendor.hpp
// here): a tile's shuffle exchanges among its own lanes only, as on the GPU.
#pragma once

#include "gpu_vendor.hpp"

namespace ladder {

struct ThreadBlock {};
inline ThreadBlock this_thread_block() { return {}; }

template <int kLanes>
struct Tile {
    unsigned thread_rank() const { return emulated::thread_in_block() % kLanes; }
    // Lane + delta's value, or the lane's own where that is past the tile (the CUDA rule).
    template <class T>
    T shfl_down(T value, unsigned delta) const {
        return emulated::exchange(value, kLanes, [=](unsigned lane) { return lane + delta < static_cast<unsigned>(kLanes) ? lane + delta : lane; });
    }
};
template <int kLanes>
Tile<kLanes> tiled_partition(ThreadBlock) {
    return {};
}

} // namespace ladder

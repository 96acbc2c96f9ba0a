// SPDX-License-Identifier: Apache-2.0
// Slot: copy_peer, a copy between two devices of this plugin. Peer-to-peer (NVLink, PCIe P2P,
// xGMI) where the runtime says the two devices can reach each other's memory; the runtime stages
// the copy through the host otherwise.
#include <mutex>
#include <set>
#include <utility>

#include "gpu_error.hpp"
#include "plugin_handles.hpp"
#include "plugin_state.hpp"
#include "plugin_table.hpp"
#include "slot_guard.hpp"

namespace gpucore::gpu {
namespace {

// Peer access is a property of an ordered pair of devices that lasts the process: it is asked for
// once per pair, the first time a copy needs it.
class PeerAccess {
public:
    void enable_once(int device, int peer) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (settled_.count({device, peer}) != 0) return;
        int can_access = 0;
        GPUCORE_GPU_CHECK(gpuDeviceCanAccessPeer(&can_access, device, peer));
        if (can_access != 0) {
            DeviceScope scope(device);
            const gpuError_t err = gpuDeviceEnablePeerAccess(peer, 0);
            if (err == gpuErrorPeerAccessAlreadyEnabled) {
                (void)gpuGetLastError(); // the application enabled it: not a failure to report later
            } else {
                GPUCORE_GPU_CHECK(err);
            }
        }
        settled_.insert({device, peer});
    }

private:
    std::mutex mutex_;
    std::set<std::pair<int, int>> settled_;
};

PeerAccess& peer_access() {
    static PeerAccess* access = new PeerAccess(); // used until the process ends, never destroyed
    return *access;
}

gpucore_status copy_peer(void* dst, int dst_device, const void* src, int src_device, size_t bytes,
                         gpucore_stream stream, gpucore_message* msg) {
    return guarded(msg, stream->device, [&] {
        ensure_usable(dst_device);
        ensure_usable(src_device);
        if (bytes == 0) return;
        if (dst_device != src_device) {
            peer_access().enable_once(dst_device, src_device);
            peer_access().enable_once(src_device, dst_device);
        }
        DeviceScope scope(stream->device);
        GPUCORE_GPU_CHECK(gpuMemcpyPeerAsync(dst, dst_device, src, src_device, bytes, stream->stream));
    });
}

} // namespace

void fill_peer_slots(gpucore_plugin_api& table) noexcept { table.copy_peer = copy_peer; }

} // namespace gpucore::gpu

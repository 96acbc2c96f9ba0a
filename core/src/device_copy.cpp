// SPDX-License-Identifier: Apache-2.0
#include "device_copy.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "access.hpp"
#include "device_work_fence.hpp"
#include "environment.hpp"
#include "staging_buffers.hpp"

namespace gpucore::detail {
namespace {

// Large enough that per-chunk overhead (an event wait, two enqueues) is noise at tens of GB/s,
// small enough that the first and last chunk, which cannot overlap, cost little.
constexpr std::size_t kDefaultChunkBytes = std::size_t{32} << 20;
constexpr std::size_t kSmallestChunkBytes = 4096;
// Chunks in flight: one being read from the source, one being written to the destination, and
// one of slack so that neither link waits for the host to react.
constexpr std::size_t kStagingDepth = 3;

std::size_t staging_chunk_bytes(const char* operation) {
    const auto text = environment_variable(env_staging_chunk_bytes);
    if (!text || text->empty()) return kDefaultChunkBytes;
    constexpr std::size_t most = std::size_t{1} << 40;
    std::size_t value = 0;
    bool valid = true;
    for (const char ch : *text) { // digits only: no sign, space or suffix, and no wrap-around
        valid = valid && ch >= '0' && ch <= '9' && value <= most;
        if (valid) value = value * 10 + static_cast<std::size_t>(ch - '0');
    }
    if (!valid || value == 0 || value > most) {
        throw Error(ErrorCode::invalid_argument, operation, "", -1,
                    std::string(env_staging_chunk_bytes) + "='" + *text +
                        "' is not a number of bytes from 1 to 2^40");
    }
    return value;
}

// The built-in cpu backend's memory is ordinary host memory: page-locking staging memory helps
// only the other side of the copy.
bool memory_is_host_memory(const Backend& backend) { return backend.source() == "built-in"; }

void copy_peer(const DeviceRange& dst, const DeviceRange& src, Stream* stream, const char* operation) {
    Backend& backend = *Access::backend(dst.device);
    const int to = Access::index(dst.device);
    const int from = Access::index(src.device);
    const auto slot = backend.api().copy_peer;
    if (stream != nullptr) {
        // Later blocking calls on the stream's device must wait for this copy as for any op.
        const EnqueueNote note(*stream);
        const int stream_device = Access::index(Access::device(*stream));
        const DeviceWorkFence other_side(backend, stream_device == to ? from : to, operation);
        other_side.order_before(Access::handle(*stream), stream_device, operation);
        backend.call(operation, stream_device, slot, dst.data, to, src.data, from, dst.bytes,
                     Access::handle(*stream));
        return;
    }
    // Captured before the internal stream is taken: no registry lock is held while waiting for it.
    // run_blocking itself orders the internal stream after the destination device's streams.
    const DeviceWorkFence source_side(backend, from, operation);
    backend.streams().run_blocking(to, operation, [&](gpucore_stream internal) {
        source_side.order_before(internal, to, operation);
        backend.call(operation, to, slot, dst.data, to, src.data, from, dst.bytes, internal);
    });
}

// Waits for `stream` and reports the first failure of its work under `operation`.
void finish(Backend& backend, const Stream& stream, const char* operation) {
    backend.streams().synchronize_stream(Access::index(Access::device(stream)), Access::handle(stream), operation);
}

void copy_staged(const DeviceRange& dst, const DeviceRange& src, const char* operation) {
    Backend& reader_backend = *Access::backend(src.device);
    Backend& writer_backend = *Access::backend(dst.device);
    const int from = Access::index(src.device);
    const int to = Access::index(dst.device);
    const std::size_t bytes = dst.bytes;

    const DeviceWorkFence source_side(reader_backend, from, operation);
    const DeviceWorkFence destination_side(writer_backend, to, operation);

    // Pinned memory of the side that moves data over a link; the source's when both do. A side
    // without pinned memory leaves it to the other, and ordinary host memory serves when neither
    // has any.
    const bool stage_on_source = !memory_is_host_memory(reader_backend) || memory_is_host_memory(writer_backend);
    const StagingSide source_side_pinned{&reader_backend, from}, destination_side_pinned{&writer_backend, to};
    const std::vector<StagingSide> preferred =
        stage_on_source ? std::vector<StagingSide>{source_side_pinned, destination_side_pinned}
                        : std::vector<StagingSide>{destination_side_pinned, source_side_pinned};
    // A copy smaller than a chunk stages through a power of two at least its size, so the pool
    // holds few distinct sizes whatever sizes are copied.
    std::size_t fitting = kSmallestChunkBytes;
    while (fitting < bytes && fitting < kDefaultChunkBytes) fitting *= 2;
    const std::size_t chunk = std::min(staging_chunk_bytes(operation), std::max(fitting, bytes));
    const std::size_t chunks = bytes / chunk + (bytes % chunk != 0 ? 1 : 0);
    const std::size_t depth = std::min(kStagingDepth, chunks);
    // Declared before the streams: destroyed after them, once their work has finished.
    const StagingBuffers staging(preferred, chunk, depth, operation);

    Stream reader(src.device);
    Stream writer(dst.device);
    std::vector<Event> read;    // read[slot]: the source's copy into staging chunk `slot` ended
    std::vector<Event> written; // written[slot]: the destination's copy out of it ended
    for (std::size_t i = 0; i < depth; ++i) {
        read.emplace_back(src.device);
        written.emplace_back(dst.device);
    }
    source_side.order_before(Access::handle(reader), from, operation);
    destination_side.order_before(Access::handle(writer), to, operation);

    const auto* source = static_cast<const unsigned char*>(src.data);
    auto* destination = static_cast<unsigned char*>(dst.data);
    auto length_of = [&](std::size_t k) { return std::min(chunk, bytes - k * chunk); };
    // Enqueues the read of chunk `next_read` into its staging slot, once the slot's previous chunk
    // has been written out.
    std::size_t next_read = 0;
    auto enqueue_read = [&] {
        const std::size_t slot = next_read % depth;
        if (next_read >= depth) {
            writer_backend.call(operation, to, writer_backend.api().event_synchronize, Access::handle(written[slot]));
        }
        reader_backend.call(operation, from, reader_backend.api().copy, staging.chunk(slot), source + next_read * chunk,
                            length_of(next_read), GPUCORE_COPY_DEVICE_TO_HOST, Access::handle(reader));
        reader_backend.call(operation, from, reader_backend.api().event_record, Access::handle(read[slot]),
                            Access::handle(reader));
        ++next_read;
    };
    // Reads run up to depth - 1 chunks ahead of the writes. Chunk k's write is enqueued before the
    // host waits for chunk k - 1's write to free a slot, so the destination always has a copy
    // queued behind the one it is doing and never idles while the host reacts.
    const std::size_t first_reads = depth > 1 ? depth - 1 : depth; // at least chunk 0's, when there is one
    while (next_read < first_reads) enqueue_read();
    for (std::size_t k = 0; k < chunks; ++k) {
        const std::size_t slot = k % depth;
        reader_backend.call(operation, from, reader_backend.api().event_synchronize, Access::handle(read[slot]));
        writer_backend.call(operation, to, writer_backend.api().copy, destination + k * chunk, staging.chunk(slot),
                            length_of(k), GPUCORE_COPY_HOST_TO_DEVICE, Access::handle(writer));
        writer_backend.call(operation, to, writer_backend.api().event_record, Access::handle(written[slot]),
                            Access::handle(writer));
        while (next_read < chunks && next_read < k + depth) enqueue_read();
    }
    // Both streams are waited for before a failure is raised (the staging memory goes back to the
    // pool only when no transfer uses it); the source side's failure comes first.
    std::optional<Error> failure;
    for (auto [backend, stream] : {std::pair<Backend*, const Stream*>{&reader_backend, &reader},
                                   std::pair<Backend*, const Stream*>{&writer_backend, &writer}}) {
        try {
            finish(*backend, *stream, operation);
        } catch (const Error& e) {
            if (!failure) failure = e;
            else failure = Error(failure->code(), operation, failure->backend(), failure->device(),
                                 failure->cause() + "; then: " + e.what());
        }
    }
    if (failure) throw *failure;
}

} // namespace

void copy_between_devices(const DeviceRange& dst, const DeviceRange& src, Stream* stream, const char* operation) {
    try {
        const bool same_backend = Access::backend(dst.device) == Access::backend(src.device);
        if (same_backend && Access::backend(dst.device)->api().copy_peer != nullptr) {
            copy_peer(dst, src, stream, operation);
        } else {
            copy_staged(dst, src, operation);
        }
    } catch (const Error& e) {
        throw Error(e.code(), operation, e.backend(), e.device(),
                    "copy from " + src.device.to_string() + " to " + dst.device.to_string() + ": " + e.cause());
    }
}

} // namespace gpucore::detail

// SPDX-License-Identifier: Apache-2.0
// ResultCell: the few bytes a blocking call computes its value into and reads it back from (the
// blocking reduce): device memory, and pinned host memory to copy it to where the device has it
// (a copy into pageable memory costs the caller a staged transfer). Each stream keeps one cell,
// allocated by its first blocking reduce and freed with the stream (take_result_cell), because
// allocating and freeing device memory on every call costs more than a small reduction: the free
// first synchronizes every stream of the device. The cell is only ever used on its own stream, so
// stream order keeps one call's work off the next call's value, also after a failed call.
#pragma once

#include <cstddef>

#include "gpucore/buffer.hpp"
#include "gpucore/stream.hpp"
#include "stream_ordering.hpp"

namespace gpucore::detail {

class ResultCell {
public:
    // Room for one element of any dtype.
    static constexpr std::size_t kBytes = 8;

    // The cell of the valid `stream`, for work enqueued on that stream only. A call that finds it
    // in use by another thread gets a cell of its own (device memory only), freed as a Buffer is.
    // Throws Error(operation) when a cell cannot be allocated.
    ResultCell(const Stream& stream, const char* operation);
    ~ResultCell();
    ResultCell(const ResultCell&) = delete;
    ResultCell& operator=(const ResultCell&) = delete;

    // The device memory the work writes the value to.
    MemoryRange device() const noexcept { return MemoryRange(memory().device); }
    // The pinned host memory to copy the value to; nullptr where there is none.
    void* host() const noexcept { return memory().host.data(); }

private:
    const ResultCellMemory& memory() const noexcept { return record_ != nullptr ? record_->result_cell : own_; }
    StreamRecord* record_ = nullptr; // set while this call holds the stream's cell
    ResultCellMemory own_;
};

// Takes the stream's cell out of `record`, for Stream's destructor to free once the stream is
// destroyed (Allocation::free_now: its work, the only work that used the cell, has finished).
ResultCellMemory take_result_cell(StreamRecord& record) noexcept;

} // namespace gpucore::detail

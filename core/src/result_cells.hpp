// SPDX-License-Identifier: Apache-2.0
// ResultCell: the few bytes of device memory a blocking call computes its value into before
// reading it back (the blocking reduce). Cells are pooled per device, because allocating and
// freeing device memory on every call costs more than a small reduction: the free first
// synchronizes every stream of the device.
#pragma once

#include <cstddef>

#include "gpucore/buffer.hpp"
#include "gpucore/device.hpp"

namespace gpucore::detail {

class ResultCell {
public:
    // Room for one element of any dtype.
    static constexpr std::size_t kBytes = 8;

    // A cell of device memory on `device`, from the pool or newly allocated. Throws
    // Error(operation) when it cannot be allocated.
    ResultCell(const Device& device, const char* operation);
    // Back to the pool after reusable(); otherwise freed as a Buffer is (after the device's
    // streams finished), since queued work may still write to it.
    ~ResultCell();
    ResultCell(const ResultCell&) = delete;
    ResultCell& operator=(const ResultCell&) = delete;

    MemoryRange range() const noexcept { return MemoryRange(allocation_); }
    // The caller has waited for every use of the cell: the next call may have it.
    void reusable() noexcept { reusable_ = true; }

private:
    Allocation allocation_;
    bool reusable_ = false;
};

} // namespace gpucore::detail

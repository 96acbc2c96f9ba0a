// SPDX-License-Identifier: Apache-2.0
#include "result_cell.hpp"

#include <string>
#include <utility>

#include "access.hpp"

namespace gpucore::detail {
namespace {

Allocation allocate_cell(const Device& device, MemoryKind kind, const char* operation) {
    try {
        return Allocation(device, kind, ResultCell::kBytes);
    } catch (const Error& e) {
        throw Error(e.code(), operation, e.backend(), e.device(),
                    "cannot allocate the " + std::to_string(ResultCell::kBytes) + " bytes of " + to_string(kind) +
                        " memory its value goes to: " + e.cause());
    }
}

// Device memory, and pinned host memory where the device supports it.
ResultCellMemory allocate_cells(const Device& device, const char* operation) {
    ResultCellMemory memory;
    memory.device = allocate_cell(device, MemoryKind::device, operation);
    if (Access::backend(device)->properties(Access::index(device)).supports_pinned_host) {
        memory.host = allocate_cell(device, MemoryKind::pinned_host, operation);
    }
    return memory;
}

} // namespace

ResultCell::ResultCell(const Stream& stream, const char* operation) {
    StreamRecord& record = Access::record(stream);
    {
        std::lock_guard<std::mutex> lock(record.result_cell_mutex);
        if (!record.result_cell_in_use) {
            if (!record.result_cell.device.valid()) record.result_cell = allocate_cells(Access::device(stream), operation);
            record.result_cell_in_use = true;
            record_ = &record;
            return;
        }
    }
    own_.device = allocate_cell(Access::device(stream), MemoryKind::device, operation);
}

ResultCell::~ResultCell() {
    if (record_ == nullptr) return;
    std::lock_guard<std::mutex> lock(record_->result_cell_mutex);
    record_->result_cell_in_use = false;
}

ResultCellMemory take_result_cell(StreamRecord& record) noexcept {
    std::lock_guard<std::mutex> lock(record.result_cell_mutex);
    return std::move(record.result_cell);
}

} // namespace gpucore::detail

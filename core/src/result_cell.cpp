// SPDX-License-Identifier: Apache-2.0
#include "result_cell.hpp"

#include <string>
#include <utility>

#include "access.hpp"

namespace gpucore::detail {
namespace {

Allocation allocate_cell(const Device& device, const char* operation) {
    try {
        return Allocation(device, MemoryKind::device, ResultCell::kBytes);
    } catch (const Error& e) {
        throw Error(e.code(), operation, e.backend(), e.device(),
                    "cannot allocate the " + std::to_string(ResultCell::kBytes) +
                        " bytes of device memory its value goes to: " + e.cause());
    }
}

// Device memory, and pinned host memory where the device supports it. The pinned part only saves
// time: without it (none, or its allocation fails) the value is copied to the caller directly.
ResultCellMemory allocate_cells(const Device& device, const char* operation) {
    ResultCellMemory memory;
    memory.device = allocate_cell(device, operation);
    if (Access::backend(device)->properties(Access::index(device)).supports_pinned_host) {
        try {
            memory.host = Allocation(device, MemoryKind::pinned_host, ResultCell::kBytes);
        } catch (const Error&) {
        }
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
    own_.device = allocate_cell(Access::device(stream), operation);
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

// SPDX-License-Identifier: Apache-2.0
// The operations: every argument is validated here, so plugins may trust what they receive.
#include "gpucore/ops.hpp"

#include <cstring>
#include <limits>

#include "access.hpp"
#include "memory_range_checks.hpp"
#include "process_fork.hpp"
#include "result_cell.hpp"

namespace gpucore::detail {

namespace {

// Validation shared by every operation; throws Error(invalid_argument) naming `operation`.
class OpCheck {
public:
    OpCheck(const char* operation, Stream& stream) : operation_(operation), stream_(stream) {
        require_valid(stream, operation);
        backend_ = Access::backend(Access::device(stream));
        device_ = Access::index(Access::device(stream));
    }
    // Whatever the operation did past validation, the stream may now hold its work: the next
    // blocking call of the device waits for it (a spurious note costs that call one event).
    ~OpCheck() { note_enqueued(stream_); }
    OpCheck(const OpCheck&) = delete;
    OpCheck& operator=(const OpCheck&) = delete;

    void buffer(const MemoryRange& range, const char* which) const {
        if (!range.valid() && !range.released()) {
            fail(std::string("buffer '") + which + "' is a null (default-constructed or moved-from) Buffer or a null view");
        }
        require_usable(range, [which] { return std::string("buffer '") + which + "'"; }, operation_);
        if (range.device() != Access::device(stream_)) {
            fail(std::string("buffer '") + which + "' is on " + range.device().to_string() +
                 " but the stream is on " + Access::device(stream_).to_string());
        }
        require_plugin_takes(range, operation_);
    }

    // Error when `out` shares any byte with `in` (the operation reads `in` while writing `out`).
    void disjoint(const MemoryRange& in, const MemoryRange& out, const char* what) const {
        if (overlap(in, out)) fail(what);
    }

    std::size_t product(std::size_t rows, std::size_t cols) const {
        if (cols != 0 && rows > std::numeric_limits<std::size_t>::max() / cols) {
            fail("rows * cols overflows size_t (rows: " + std::to_string(rows) +
                 ", cols: " + std::to_string(cols) + ")");
        }
        return rows * cols;
    }

    // rows * cols (overflow-checked), after checking that buffer `which` holds exactly that many.
    std::size_t matrix(std::size_t held, const char* which, std::size_t rows, std::size_t cols) const {
        const std::size_t elements = product(rows, cols);
        if (held != elements) {
            fail(std::string(which) + " holds " + std::to_string(held) + " elements but rows * cols = " +
                 std::to_string(rows) + " * " + std::to_string(cols) + " = " + std::to_string(elements));
        }
        return elements;
    }

    // The plugin's reduce op. A value outside the enum (an integer cast to ReduceOp) is an error,
    // not silently a sum.
    gpucore_reduce_op reduce_op(ReduceOp op) const {
        switch (op) {
        case ReduceOp::sum: return GPUCORE_REDUCE_SUM;
        case ReduceOp::min: return GPUCORE_REDUCE_MIN;
        case ReduceOp::max: return GPUCORE_REDUCE_MAX;
        case ReduceOp::prod: return GPUCORE_REDUCE_PROD;
        }
        fail("unknown reduce op " + std::to_string(static_cast<int>(op)));
    }

    // The plugin's dtype id. A value outside the list (an integer cast to DType) is
    // invalid_argument; a dtype added after the plugin's ABI minor is not_supported, so the plugin
    // never receives an id its header did not have.
    gpucore_dtype dtype(DType dtype) const {
        if (!is_known(dtype)) fail("unknown dtype " + std::to_string(static_cast<int>(dtype)));
        if (abi_minor_of(dtype) > backend_->abi_minor()) {
            throw Error(ErrorCode::not_supported, operation_, backend_->name(), device_,
                        std::string("the backend's plugin was built against ABI ") + std::to_string(GPUCORE_PLUGIN_ABI_MAJOR) +
                            "." + std::to_string(backend_->abi_minor()) + ", which has no dtype " + to_string(dtype) +
                            " (added in 1." + std::to_string(abi_minor_of(dtype)) + ")");
        }
        return static_cast<gpucore_dtype>(static_cast<int>(dtype));
    }

    [[noreturn]] void fail(const std::string& cause) const {
        throw Error(ErrorCode::invalid_argument, operation_, backend_->name(), device_, cause);
    }

    // The operation's slot, or Error(not_supported) when the backend does not implement it.
    template <class Slot>
    Slot slot(Slot gpucore_plugin_api::*member) const {
        return backend_->optional_slot(member, operation_, device_);
    }

    // Enqueues the operation: slot(args..., stream, message); an error it returns names the
    // operation, the backend and the device.
    template <class Slot, class... Args>
    void call(Slot op_slot, Args... args) const {
        backend_->call(operation_, device_, op_slot, args..., Access::handle(stream_));
    }

private:
    const char* operation_;
    Stream& stream_;
    Backend* backend_ = nullptr;
    int device_ = -1;
};

} // namespace

void vector_add(Stream& stream, DType dtype, const MemoryRange& a, const MemoryRange& b,
                const MemoryRange& c, std::size_t n_a, std::size_t n_b, std::size_t n_c) {
    const OpCheck check("vector_add", stream);
    const auto slot = check.slot(&gpucore_plugin_api::vector_add);
    const gpucore_dtype plugin_dtype = check.dtype(dtype);
    check.buffer(a, "a");
    check.buffer(b, "b");
    check.buffer(c, "c");
    if (n_a != n_b || n_a != n_c) {
        check.fail("buffer lengths differ (a: " + std::to_string(n_a) + ", b: " + std::to_string(n_b) +
                   ", c: " + std::to_string(n_c) + ")");
    }
    if (n_a == 0) return;
    // c == a (or b) exactly is an element-wise update in place; any other overlap would make the
    // result depend on the order in which elements are computed.
    for (const MemoryRange* input : {&a, &b}) {
        if (!identical(*input, c) && overlap(*input, c)) {
            check.fail(std::string("c partly overlaps ") + (input == &a ? "a" : "b") +
                       " (c may be exactly a or b, or not overlap them)");
        }
    }
    check.call(slot, plugin_dtype, static_cast<const void*>(a.data()), static_cast<const void*>(b.data()),
               c.data(), n_a);
}

void transpose(Stream& stream, DType dtype, const MemoryRange& in, const MemoryRange& out,
               std::size_t n_in, std::size_t n_out, std::size_t rows, std::size_t cols) {
    const OpCheck check("transpose", stream);
    const auto slot = check.slot(&gpucore_plugin_api::transpose);
    const gpucore_dtype plugin_dtype = check.dtype(dtype);
    check.buffer(in, "in");
    check.buffer(out, "out");
    const std::size_t elements = check.matrix(n_in, "in", rows, cols);
    check.matrix(n_out, "out", rows, cols);
    if (elements == 0) return;
    if (identical(in, out)) check.fail("in and out are the same buffer (transpose does not work in place)");
    check.disjoint(in, out, "in and out overlap (transpose does not work in place)");
    check.call(slot, plugin_dtype, static_cast<const void*>(in.data()), out.data(), rows, cols);
}

void reduce(Stream& stream, DType dtype, ReduceOp op, const MemoryRange& in, const MemoryRange& out,
            std::size_t n_in, std::size_t n_out) {
    const OpCheck check("reduce", stream);
    const auto slot = check.slot(&gpucore_plugin_api::reduce);
    const gpucore_dtype plugin_dtype = check.dtype(dtype);
    check.buffer(in, "in");
    check.buffer(out, "out");
    if (n_out == 0) check.fail("out is empty (it must hold at least 1 element)");
    const gpucore_reduce_op plugin_op = check.reduce_op(op);
    check.disjoint(in, out, "out overlaps in (a reduction does not work in place)");
    // n_in == 0 still runs: the plugin writes the identity to out[0].
    check.call(slot, plugin_dtype, plugin_op, static_cast<const void*>(in.data()), n_in, out.data());
}

void reduce_value(Stream& stream, DType dtype, ReduceOp op, const MemoryRange& in, std::size_t n_in, void* value) {
    order_after_device_work(stream, "reduce");
    const ResultCell cell(stream, "reduce");
    const std::size_t bytes = size_of(dtype);
    reduce(stream, dtype, op, in, cell.device(), n_in, 1);
    void* host = cell.host() != nullptr ? cell.host() : value;
    copy_to_host(cell.device().part(0, bytes, "reduce"), host, bytes, &stream);
    stream.synchronize();
    if (host != value) std::memcpy(value, host, bytes);
}

void reduce_rows(Stream& stream, DType dtype, ReduceOp op, const MemoryRange& in, const MemoryRange& out,
                 std::size_t n_in, std::size_t n_out, std::size_t rows, std::size_t cols) {
    const OpCheck check("reduce_rows", stream);
    const auto slot = check.slot(&gpucore_plugin_api::reduce_rows);
    const gpucore_dtype plugin_dtype = check.dtype(dtype);
    check.buffer(in, "in");
    check.buffer(out, "out");
    check.matrix(n_in, "in", rows, cols);
    if (n_out != rows) {
        check.fail("out holds " + std::to_string(n_out) + " elements but there are " + std::to_string(rows) +
                   " rows");
    }
    const gpucore_reduce_op plugin_op = check.reduce_op(op);
    if (rows == 0) return;
    check.disjoint(in, out, "out overlaps in (a reduction does not work in place)");
    // cols == 0 still runs: the plugin writes the identity to every out[r].
    check.call(slot, plugin_dtype, plugin_op, static_cast<const void*>(in.data()), rows, cols,
               out.data());
}

void order_after_device_work(Stream& stream, const char* operation) {
    require_valid(stream, operation);
    const Device& device = Access::device(stream);
    Access::backend(device)->streams().order_after_other_streams(Access::index(device), Access::handle(stream), operation);
}

} // namespace gpucore::detail

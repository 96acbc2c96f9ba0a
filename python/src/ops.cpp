// SPDX-License-Identifier: Apache-2.0
// The operations. With stream=..., each is enqueued on that stream and returns at once (the
// C++ calls); without, it is blocking: ordered after all work queued before on the device (as the
// C++ blocking calls are), and returns when done, the GIL released while it waits. Outputs that
// are not given are allocated on the input's device.
#include <cstring>
#include <optional>
#include <type_traits>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "python_buffer.hpp"

namespace gpucore::python {

namespace {

template <class Enqueue>
void run(const Device& device, Stream* stream, const char* operation, Enqueue&& enqueue) {
    if (stream != nullptr) {
        enqueue(*stream);
        return;
    }
    Stream& internal = blocking_stream(device);
    detail::order_after_device_work(internal, operation);
    enqueue(internal);
    synchronize(internal);
}

const PyBuffer* output_of(const py::object& out, const char* operation) {
    if (out.is_none()) return nullptr;
    if (!py::isinstance<PyBuffer>(out))
        throw py::type_error(std::string(operation) + ": out is a gpucore.Buffer or None, not " +
                             py::repr(out).cast<std::string>());
    return &out.cast<const PyBuffer&>();
}

void same_dtype(const char* operation, const PyBuffer& in, const PyBuffer& other, const char* other_name) {
    if (in.dtype() != other.dtype())
        fail(ErrorCode::invalid_argument, operation, in.device(),
             std::string("dtypes differ (input ") + python_name(in.dtype()) + ", " + other_name + " " +
                 python_name(other.dtype()) + ")");
}

// rows and cols of a row-major matrix operand: given (both), or the shape of a 2-D buffer.
std::pair<std::size_t, std::size_t> matrix_shape(const char* operation, const PyBuffer& in,
                                                 const std::optional<std::size_t>& rows,
                                                 const std::optional<std::size_t>& cols) {
    if (rows.has_value() != cols.has_value())
        fail(ErrorCode::invalid_argument, operation, in.device(), "give both rows and cols, or neither");
    if (rows) return {*rows, *cols};
    if (in.shape().size() != 2)
        fail(ErrorCode::invalid_argument, operation, in.device(),
             "the input has shape " + shape_text(in.shape()) + ": a 2-D buffer, or rows= and cols=, is needed");
    return {in.shape()[0], in.shape()[1]};
}

py::object host_value(DType dtype, const void* value) {
    return visit(dtype, [&](auto tag) -> py::object {
        using T = typename decltype(tag)::type;
        T v;
        std::memcpy(&v, value, sizeof(T));
        if constexpr (std::is_integral_v<T>) return py::int_(v);
        else return py::float_(static_cast<double>(v));
    });
}

py::object vector_add_op(const PyBuffer& a, const PyBuffer& b, const py::object& out_arg, Stream* stream) {
    const char* op = "vector_add";
    const PyBuffer* out = output_of(out_arg, op);
    same_dtype(op, a, b, "b");
    if (a.shape() != b.shape() || (out != nullptr && out->shape() != a.shape()))
        fail(ErrorCode::invalid_argument, op, a.device(),
             "shapes differ (a: " + shape_text(a.shape()) + ", b: " + shape_text(b.shape()) +
                 (out ? ", out: " + shape_text(out->shape()) : std::string()) + ")");
    py::object result = out_arg;
    if (out == nullptr) {
        result = py::cast(PyBuffer::allocate(a.device(), a.shape(), a.dtype()));
        out = &result.cast<const PyBuffer&>();
    }
    same_dtype(op, a, *out, "out");
    run(a.device(), stream, op, [&](Stream& s) {
        detail::vector_add(s, a.dtype(), a.range(op), b.range(op), out->range(op), a.size(), b.size(), out->size());
    });
    return result;
}

py::object transpose_op(const PyBuffer& in, const py::object& out_arg, std::optional<std::size_t> rows_arg,
                        std::optional<std::size_t> cols_arg, Stream* stream) {
    const char* op = "transpose";
    const PyBuffer* out = output_of(out_arg, op);
    const auto [rows, cols] = matrix_shape(op, in, rows_arg, cols_arg);
    py::object result = out_arg;
    if (out == nullptr) {
        result = py::cast(PyBuffer::allocate(in.device(), {cols, rows}, in.dtype()));
        out = &result.cast<const PyBuffer&>();
    }
    same_dtype(op, in, *out, "out");
    if (out->shape().size() == 2 && (out->shape()[0] != cols || out->shape()[1] != rows))
        fail(ErrorCode::invalid_argument, op, in.device(),
             "out has shape " + shape_text(out->shape()) + ", the transpose of " + std::to_string(rows) + " x " +
                 std::to_string(cols) + " is " + shape_text({cols, rows}));
    run(in.device(), stream, op, [&](Stream& s) {
        detail::transpose(s, in.dtype(), in.range(op), out->range(op), in.size(), out->size(), rows, cols);
    });
    return result;
}

py::object reduce_op(const PyBuffer& in, const py::object& op_arg, const py::object& out_arg, Stream* stream) {
    const char* op = "reduce";
    const ReduceOp reduce_op = to_reduce_op(op_arg);
    const PyBuffer* out = output_of(out_arg, op);
    if (out != nullptr) {
        same_dtype(op, in, *out, "out");
        run(in.device(), stream, op, [&](Stream& s) {
            detail::reduce(s, in.dtype(), reduce_op, in.range(op), out->range(op), in.size(), out->size());
        });
        return out_arg;
    }
    // The value, as the C++ blocking reduce gives it (on `stream` when given: that stream is then
    // synchronized).
    alignas(8) unsigned char host[8] = {};
    Stream& s = stream != nullptr ? *stream : blocking_stream(in.device());
    const detail::MemoryRange range = in.range(op);
    {
        py::gil_scoped_release release;
        detail::reduce_value(s, in.dtype(), reduce_op, range, in.size(), host);
    }
    return host_value(in.dtype(), host);
}

py::object reduce_rows_op(const PyBuffer& in, const py::object& op_arg, const py::object& out_arg,
                          std::optional<std::size_t> rows_arg, std::optional<std::size_t> cols_arg, Stream* stream) {
    const char* op = "reduce_rows";
    const ReduceOp reduce_op = to_reduce_op(op_arg);
    const PyBuffer* out = output_of(out_arg, op);
    const auto [rows, cols] = matrix_shape(op, in, rows_arg, cols_arg);
    py::object result = out_arg;
    if (out == nullptr) {
        result = py::cast(PyBuffer::allocate(in.device(), {rows}, in.dtype()));
        out = &result.cast<const PyBuffer&>();
    }
    same_dtype(op, in, *out, "out");
    run(in.device(), stream, op, [&](Stream& s) {
        detail::reduce_rows(s, in.dtype(), reduce_op, in.range(op), out->range(op), in.size(), out->size(), rows, cols);
    });
    return result;
}

} // namespace

void bind_ops(py::module_& m) {
    m.def("vector_add", &vector_add_op, py::arg("a"), py::arg("b"), py::arg("out") = py::none(), py::kw_only(),
          py::arg("stream") = nullptr,
          "out = a + b element-wise (equal shapes and dtypes; integers wrap). out may be a or b. Returns out.");
    m.def("transpose", &transpose_op, py::arg("x"), py::arg("out") = py::none(), py::kw_only(),
          py::arg("rows") = py::none(), py::arg("cols") = py::none(), py::arg("stream") = nullptr,
          "out (cols x rows) = x (rows x cols) transposed, row-major; rows and cols from a 2-D x. Returns out.");
    m.def("reduce", &reduce_op, py::arg("x"), py::arg("op") = "sum", py::arg("out") = py::none(), py::kw_only(),
          py::arg("stream") = nullptr,
          "op ('sum', 'min', 'max', 'prod') over all of x. Without out: returns the value (blocking, on "
          "stream if given). With out: writes out[0] and returns out (asynchronous on stream).");
    m.def("reduce_rows", &reduce_rows_op, py::arg("x"), py::arg("op") = "sum", py::arg("out") = py::none(),
          py::kw_only(), py::arg("rows") = py::none(), py::arg("cols") = py::none(), py::arg("stream") = nullptr,
          "out[r] = op over row r of x (rows x cols, row-major). Returns out (rows elements).");
}

} // namespace gpucore::python

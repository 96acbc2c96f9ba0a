// SPDX-License-Identifier: Apache-2.0
// gpucore.Error: what every gpucore::Error becomes in Python, with the C++ error's parts as
// attributes (code, operation, backend, device, cause) and its what() as the message.
#include "bindings.hpp"
#include "python_buffer.hpp"

namespace gpucore::python {

namespace {

// Created once per process with the module; a borrowed reference lives in the module too.
PyObject* error_type = nullptr;

void raise_python_error(const Error& error) {
    py::object instance = py::reinterpret_borrow<py::object>(error_type)(error.what());
    instance.attr("code") = to_string(error.code());
    instance.attr("operation") = error.operation();
    instance.attr("backend") = error.backend();
    instance.attr("device") = error.device();
    instance.attr("cause") = error.cause();
    PyErr_SetObject(error_type, instance.ptr());
}

} // namespace

[[noreturn]] void fail(ErrorCode code, const char* operation, const Device& device, const std::string& cause) {
    if (!device.valid()) throw Error(code, operation, "", -1, cause);
    throw Error(code, operation, device.backend_name(), device.index(), cause);
}

void bind_errors(py::module_& m) {
    error_type = PyErr_NewExceptionWithDoc(
        "gpucore.Error",
        "Raised by every gpucore call that fails. str(e) reads '<operation> on <backend>:<device>: "
        "<cause> [<code>]'. Attributes: code ('invalid_argument', 'out_of_memory', "
        "'backend_unavailable', 'plugin_error', 'device_error', 'not_supported'), operation, "
        "backend ('' when none), device (-1 when none), cause.",
        PyExc_RuntimeError, nullptr);
    if (error_type == nullptr) throw py::error_already_set();
    m.add_object("Error", py::handle(error_type));
    py::register_exception_translator([](std::exception_ptr thrown) {
        try {
            if (thrown) std::rethrow_exception(thrown);
        } catch (const Error& error) {
            raise_python_error(error);
        } catch (const py::cast_error& error) {
            // pybind11 reports an argument of the wrong type found inside a call as RuntimeError.
            PyErr_SetString(PyExc_TypeError, error.what());
        }
    });
}

} // namespace gpucore::python

// SPDX-License-Identifier: Apache-2.0
// The pieces of the extension module gpucore._gpucore, one file each; module.cpp calls them in
// this order (a later piece may use the Python types of an earlier one). A new piece is one more
// file with one more bind_* function declared here and called from module.cpp.
#pragma once

#include <pybind11/pybind11.h>

namespace gpucore::python {

namespace py = pybind11;

void bind_errors(py::module_& m);  // gpucore.Error and the translation of gpucore::Error
void bind_dtypes(py::module_& m);  // DType (float32 ... bfloat16), ReduceOp, MemoryKind
void bind_device(py::module_& m);  // Device, devices(), default_device(), backends() ...
void bind_stream(py::module_& m);  // Stream, Event, elapsed_ms()
void bind_buffer(py::module_& m);  // Buffer: allocation, views, host copies, NumPy
void bind_ops(py::module_& m);     // vector_add, transpose, reduce, reduce_rows
void bind_kernel_module(py::module_& m); // Module, Kernel, KernelParameter: your own kernels
void bind_dlpack(py::module_& m);  // Buffer.__dlpack__/__dlpack_device__, from_dlpack()
void bind_timing(py::module_& m);  // _timing: the C++ side of python/benchmarks/bench_python.py

} // namespace gpucore::python

// SPDX-License-Identifier: Apache-2.0
// gpucore._gpucore: the extension behind the Python package `gpucore` (python/gpucore/__init__.py
// re-exports it). A thin layer over the C++ API: each piece is bound in its own file.
#include "bindings.hpp"

#include "gpucore/version.hpp"

PYBIND11_MODULE(_gpucore, m) {
    namespace gp = gpucore::python;
    m.doc() = "gpucore: one API for NVIDIA, AMD and CPU devices (C++ library bindings)";
    m.attr("__version__") = gpucore::version().string;
    gp::bind_errors(m);
    gp::bind_dtypes(m);
    gp::bind_device(m);
    gp::bind_stream(m);
    gp::bind_buffer(m);
    gp::bind_ops(m);
    gp::bind_kernel_module(m);
    gp::bind_dlpack(m);
    gp::bind_timing(m);
}

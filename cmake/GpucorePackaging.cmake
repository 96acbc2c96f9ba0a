# SPDX-License-Identifier: Apache-2.0
# Debian packages, one per install component: `cpack -G DEB` in the build folder makes
#   libgpucore0          component runtime      libgpucore.so.N (with the built-in cpu backend)
#   libgpucore-dev       component dev          headers, CMake package, gpucore.pc, plugin SDK,
#                                               kernel modules (dialect, gpucore_add_kernel_module,
#                                               libgpucore_kernel_cpu.a), gpucore-conformance
#   gpucore-plugin-cuda  component plugin_cuda  libgpucore-cuda.so   (when the CUDA plugin is built)
#   gpucore-plugin-hip   component plugin_hip   libgpucore-hip.so    (when the HIP plugin is built)
#   gpucore-tools        component tools        the gpucore command and the examples
#   python3-gpucore      component python       the Python package gpucore (when the module is built)
# Dependencies on system libraries come from dpkg-shlibdeps over the packaged ELF files (so
# libgpucore0 gets libspdlog1.10, libfmt9, libgomp1 ... and the hip plugin libamdhip64-5, exactly as
# they are linked); dependencies between our packages are exact-version ones from the component
# DEPENDS below. Only these components are packaged: anything installed without a component
# (nothing should be) stays out of every package, and test plugins are never installed at all
# (gpucore_add_plugin in cmake/GpucorePlugin.cmake).
set(gpucore_components runtime dev)
if(TARGET gpucore-cuda)
  list(APPEND gpucore_components plugin_cuda)
endif()
if(TARGET gpucore-hip)
  list(APPEND gpucore_components plugin_hip)
endif()
if(TARGET gpucore_cli)
  list(APPEND gpucore_components tools)
endif()
if(TARGET gpucore_python)
  list(APPEND gpucore_components python)
endif()

set(CPACK_PACKAGE_NAME gpucore)
set(CPACK_PACKAGE_VENDOR "gpucore")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPackDeb would put it before every package's description;
# the first line of each component's description is its package's synopsis instead.
set(CPACK_PACKAGE_CONTACT "gpucore maintainers <maintainers@gpucore.invalid>")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_COMPONENTS_ALL ${gpucore_components})

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Our own programs link libgpucore.so.N from the build, which no installed package provides yet:
# dpkg-shlibdeps finds it here and leaves it to the exact-version dependency on libgpucore0.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libgpucore${PROJECT_VERSION_MAJOR})
string(JOIN "\n" CPACK_COMPONENT_RUNTIME_DESCRIPTION
  "gpucore runtime library with the built-in CPU backend"
  "One C++ API (Device, Buffer, Stream, Event; vector_add, transpose, reduce,"
  "reduce_rows) for NVIDIA, AMD or the CPU, with the backend chosen at run time."
  "The CUDA and HIP backends are separate plugin packages.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libgpucore-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DEPENDS runtime)
string(JOIN "\n" CPACK_COMPONENT_DEV_DESCRIPTION
  "gpucore development files and plugin SDK"
  "Headers, CMake package (find_package(gpucore)), pkg-config file, the plugin"
  "contract and gpucore_add_plugin(), the kernel dialect with"
  "gpucore_add_kernel_module() and the static CPU execution its modules link, and"
  "gpucore-conformance, which runs the conformance suite on a plugin.")

set(CPACK_DEBIAN_PLUGIN_CUDA_PACKAGE_NAME gpucore-plugin-cuda)
set(CPACK_COMPONENT_PLUGIN_CUDA_DEPENDS runtime)
string(JOIN "\n" CPACK_COMPONENT_PLUGIN_CUDA_DESCRIPTION
  "gpucore CUDA backend plugin"
  "Runs gpucore on NVIDIA GPUs. The CUDA runtime is linked in; an NVIDIA driver is"
  "needed.")

set(CPACK_DEBIAN_PLUGIN_HIP_PACKAGE_NAME gpucore-plugin-hip)
set(CPACK_COMPONENT_PLUGIN_HIP_DEPENDS runtime)
string(JOIN "\n" CPACK_COMPONENT_PLUGIN_HIP_DESCRIPTION
  "gpucore HIP backend plugin"
  "Runs gpucore on AMD GPUs through the HIP runtime (libamdhip64).")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME gpucore-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_COMPONENT_TOOLS_DEPENDS runtime)
string(JOIN "\n" CPACK_COMPONENT_TOOLS_DESCRIPTION
  "gpucore command and examples"
  "`gpucore info`, `gpucore run`, `gpucore bench`, and the example programs (device"
  "query, vector add, transpose, reductions, streams, unified memory).")

set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-gpucore)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_COMPONENT_PYTHON_DEPENDS runtime)
# The extension is built for one interpreter version (its file name carries the ABI tag), and
# NumPy is what from_numpy/to_numpy return; dpkg-shlibdeps adds the C/C++ libraries.
if(TARGET gpucore_python)
  math(EXPR gpucore_python_next_minor "${Python3_VERSION_MINOR} + 1")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS
      "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}), python3 (<< ${Python3_VERSION_MAJOR}.${gpucore_python_next_minor}), python3-numpy")
endif()
string(JOIN "\n" CPACK_COMPONENT_PYTHON_DESCRIPTION
  "gpucore Python bindings"
  "import gpucore: devices, buffers, streams and the operations from Python, with"
  "zero-copy exchange with NumPy, PyTorch and CuPy through DLPack.")

include(CPack)

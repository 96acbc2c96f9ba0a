# SPDX-License-Identifier: Apache-2.0
# Resolves GPUCORE_ENABLE_CUDA / GPUCORE_ENABLE_HIP (ON, OFF, AUTO) into GPUCORE_HAVE_CUDA / _HIP.
# ON fails the configure when the toolkit is missing; AUTO builds the plugin when it is found.
include(CheckLanguage)

set(GPUCORE_HAVE_CUDA OFF)
if(NOT GPUCORE_ENABLE_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(GPUCORE_HAVE_CUDA ON)
  elseif(GPUCORE_ENABLE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GPUCORE_ENABLE_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()

include(${CMAKE_CURRENT_LIST_DIR}/GpucoreHip.cmake)
gpucore_resolve_hip("${GPUCORE_ENABLE_HIP}")
message(STATUS "gpucore: CUDA plugin ${GPUCORE_HAVE_CUDA}, HIP plugin ${GPUCORE_HAVE_HIP}")

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

set(GPUCORE_HAVE_HIP OFF)
if(NOT GPUCORE_ENABLE_HIP STREQUAL "OFF")
  find_program(GPUCORE_HIPCC hipcc)
  if(GPUCORE_HIPCC)
    set(GPUCORE_HAVE_HIP ON)
  elseif(GPUCORE_ENABLE_HIP STREQUAL "ON")
    message(FATAL_ERROR "GPUCORE_ENABLE_HIP=ON but hipcc was not found")
  endif()
endif()
message(STATUS "gpucore: CUDA plugin ${GPUCORE_HAVE_CUDA}, HIP plugin ${GPUCORE_HAVE_HIP}")

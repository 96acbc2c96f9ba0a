# SPDX-License-Identifier: Apache-2.0
# The project's warning level, applied per target (never to third-party code).
# GPUCORE_WARNING_FLAGS is also passed to compilers that CMake does not drive (hipcc, backends/hip).
set(GPUCORE_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
add_library(gpucore_warnings INTERFACE)
target_compile_options(gpucore_warnings INTERFACE
  "$<$<COMPILE_LANGUAGE:C,CXX>:${GPUCORE_WARNING_FLAGS}>")

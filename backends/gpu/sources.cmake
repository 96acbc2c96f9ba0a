# SPDX-License-Identifier: Apache-2.0
# The sources of a GPU plugin, shared by the CUDA build (backends/cuda) and the HIP build
# (backends/hip): both compile exactly these files.
#   GPUCORE_GPU_DIR             include directory (the vendor header and the kernels)
#   GPUCORE_GPU_KERNEL_SOURCES  device code, launchers and the operations' slots (.cu; HIP
#                               compiles them as HIP)
#   GPUCORE_GPU_HOST_SOURCES    host-only glue (.cpp; uses the vendor runtime API only)
#   GPUCORE_GPU_ENTRY_SOURCE    the exported entry point, compiled into the plugin module itself
set(GPUCORE_GPU_DIR ${CMAKE_CURRENT_LIST_DIR})
set(GPUCORE_GPU_KERNEL_SOURCES
  ${GPUCORE_GPU_DIR}/launch_elementwise.cu
  ${GPUCORE_GPU_DIR}/launch_transpose.cu
  ${GPUCORE_GPU_DIR}/launch_reduce.cu
  ${GPUCORE_GPU_DIR}/launch_reduce_rows.cu
  ${GPUCORE_GPU_DIR}/launch_rows_sub_warp.cu
  ${GPUCORE_GPU_DIR}/launch_rows_warp.cu
  ${GPUCORE_GPU_DIR}/launch_rows_block.cu)
set(GPUCORE_GPU_HOST_SOURCES
  ${GPUCORE_GPU_DIR}/gpu_error.cpp
  ${GPUCORE_GPU_DIR}/reduce_rows_plan.cpp
  ${GPUCORE_GPU_DIR}/scratch_pool.cpp
  ${GPUCORE_GPU_DIR}/plugin_state.cpp
  ${GPUCORE_GPU_DIR}/slots_devices.cpp
  ${GPUCORE_GPU_DIR}/slots_memory.cpp
  ${GPUCORE_GPU_DIR}/slots_peer.cpp
  ${GPUCORE_GPU_DIR}/slots_streams.cpp)
set(GPUCORE_GPU_ENTRY_SOURCE ${GPUCORE_GPU_DIR}/plugin_entry.cpp)

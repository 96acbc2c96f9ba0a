# SPDX-License-Identifier: Apache-2.0
# HIP without CMake's HIP language, shared by the HIP plugin (backends/hip) and kernel modules
# (GpucoreKernelModule.cmake, also installed for projects that build modules):
#
# CMake 3.25's HIP language cannot find Debian's ROCm layout (it wants /usr/lib/cmake/hip-lang),
# so hipcc is driven directly: one custom command per kernel file, compiled as HIP for every
# offload target, header dependencies from hipcc's depfile. The objects are linked by the project's
# C++ compiler with the HIP runtime (libamdhip64).
#
#   gpucore_resolve_hip(<ON|OFF|AUTO>)  sets GPUCORE_HAVE_HIP (and the cache entry GPUCORE_HIPCC);
#                                       ON without hipcc is a configure error
#   gpucore_check_hip_architectures(<context> <arch>...)  refuses anything but gfxNNN[:feature+-]
#   gpucore_find_hip_runtime()          sets GPUCORE_HIP_INCLUDE_DIR and GPUCORE_AMDHIP64_LIBRARY
#   gpucore_hipcc_objects(<out_var> <object_dir> SOURCES ... ARCHITECTURES ... [FLAGS ...]
#                         [DEPENDS ...])
#                                       one object per source in <object_dir>; <out_var> lists them
include_guard(GLOBAL)

set(GPUCORE_HIP_ARCHITECTURES "gfx908;gfx90a;gfx1030" CACHE STRING
    "AMD offload targets of the HIP plugin and of HIP kernel modules (hipcc --offload-arch), e.g. gfx90a;gfx1030")

function(gpucore_resolve_hip enable)
  set(have OFF)
  if(NOT enable STREQUAL "OFF")
    find_program(GPUCORE_HIPCC hipcc)
    if(GPUCORE_HIPCC)
      set(have ON)
    elseif(enable STREQUAL "ON")
      message(FATAL_ERROR "GPUCORE_ENABLE_HIP=ON but hipcc was not found")
    endif()
  endif()
  set(GPUCORE_HAVE_HIP ${have} PARENT_SCOPE)
endfunction()

function(gpucore_check_hip_architectures context)
  if(NOT ARGN)
    message(FATAL_ERROR "${context}: no AMD offload target: name at least one, such as gfx90a")
  endif()
  foreach(arch IN LISTS ARGN)
    if(NOT arch MATCHES "^gfx[0-9a-f]+(:[a-z]+[+-])*$")
      message(FATAL_ERROR "${context}: '${arch}' is not an AMD target (gfx90a, gfx90a:xnack+, ...)")
    endif()
  endforeach()
endfunction()

# The HIP runtime and its headers, from Debian or /opt/rocm, found beside hipcc first.
function(gpucore_find_hip_runtime)
  get_filename_component(hipcc_dir "${GPUCORE_HIPCC}" DIRECTORY)
  find_path(GPUCORE_HIP_INCLUDE_DIR hip/hip_runtime_api.h HINTS ${hipcc_dir}/../include /opt/rocm/include)
  find_library(GPUCORE_AMDHIP64_LIBRARY amdhip64 HINTS ${hipcc_dir}/../lib /opt/rocm/lib)
  if(NOT GPUCORE_HIP_INCLUDE_DIR OR NOT GPUCORE_AMDHIP64_LIBRARY)
    message(FATAL_ERROR "hipcc was found (${GPUCORE_HIPCC}) but not the HIP runtime: "
                        "headers '${GPUCORE_HIP_INCLUDE_DIR}', library '${GPUCORE_AMDHIP64_LIBRARY}' "
                        "(Debian: apt-get install libamdhip64-dev)")
  endif()
endfunction()

function(gpucore_hipcc_objects out_var object_dir)
  cmake_parse_arguments(ARG "" "" "SOURCES;ARCHITECTURES;FLAGS;DEPENDS" ${ARGN})
  # What CMake would give a CXX target of the same build type, plus position-independent code and
  # hidden symbols: the objects go into shared objects that export one entry point.
  set(flags -x hip -std=c++17 -fPIC -fvisibility=hidden -fvisibility-inlines-hidden ${ARG_FLAGS}
      "$<IF:$<CONFIG:Debug>,-O0,-O3>" "$<$<NOT:$<CONFIG:Debug>>:-DNDEBUG>"
      "$<$<CONFIG:Debug,RelWithDebInfo>:-g>")
  foreach(arch IN LISTS ARG_ARCHITECTURES)
    list(APPEND flags --offload-arch=${arch})
  endforeach()
  file(MAKE_DIRECTORY ${object_dir})
  set(objects)
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(name ${source} NAME_WE)
    set(object ${object_dir}/${name}.o)
    add_custom_command(
      OUTPUT ${object}
      COMMAND ${GPUCORE_HIPCC} ${flags} -MD -MT ${object} -MF ${object}.d -c ${source} -o ${object}
      MAIN_DEPENDENCY ${source}
      DEPENDS ${ARG_DEPENDS}
      DEPFILE ${object}.d
      COMMENT "hipcc ${name} for ${ARG_ARCHITECTURES}"
      COMMAND_EXPAND_LISTS VERBATIM)
    list(APPEND objects ${object})
  endforeach()
  set(${out_var} ${objects} PARENT_SCOPE)
endfunction()

# SPDX-License-Identifier: Apache-2.0
# gpucore_add_kernel_module(NAME SOURCES src... [OUTPUT_DIRECTORY dir] [CUDA_ARCHITECTURES arch...]
#                           [HIP_ARCHITECTURES gfx...])
#
# Builds the kernel module NAME from kernels written in gpucore's kernel dialect
# (gpucore/kernel.hpp, registered with GPUCORE_MODULE_KERNEL), one file per kind of backend this
# machine can build for:
#   NAME.gpucore-cpu.so   always (the kernels compiled as C++, run by the CPU execution)
#   NAME.gpucore-cuda.so  when the CUDA language is enabled (nvcc), for CUDA_ARCHITECTURES
#                         (default: CMAKE_CUDA_ARCHITECTURES)
#   NAME.gpucore-hip.so   when HIP is enabled (GPUCORE_HAVE_HIP: hipcc found, see below), for
#                         HIP_ARCHITECTURES (default: GPUCORE_HIP_ARCHITECTURES, the HIP plugin's
#                         gfx908;gfx90a;gfx1030)
# into OUTPUT_DIRECTORY (default: CMAKE_RUNTIME_OUTPUT_DIRECTORY, else the current binary
# folder): put them beside the program that loads them, in a folder of GPUCORE_MODULE_PATH, or in
# <libdir>/gpucore/modules. The target NAME builds them all.
# Each file's manifest (name, kind, targets) is generated here from the build's own settings.
#
# In gpucore's own build HIP follows GPUCORE_ENABLE_HIP as the HIP plugin does. A project that
# finds an installed gpucore gets the same choice here: GPUCORE_ENABLE_HIP is ON, OFF or AUTO
# (default: build HIP modules when hipcc is found).
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/GpucoreHip.cmake)
if(NOT GPUCORE_BUILDING_GPUCORE)
  set(GPUCORE_ENABLE_HIP AUTO CACHE STRING "Build kernel modules for AMD GPUs: ON, OFF or AUTO (when hipcc is found)")
  gpucore_resolve_hip("${GPUCORE_ENABLE_HIP}")
endif()

# Sets `out_var` to one generated unit per source, `<folder>/<prefix><name><extension>`, that
# includes the source: each kind compiles the same files in its own language.
function(gpucore_kernel_module_units out_var folder prefix extension)
  set(units)
  foreach(source IN LISTS ARGN)
    get_filename_component(absolute ${source} ABSOLUTE)
    get_filename_component(base ${source} NAME_WE)
    set(unit ${folder}/${prefix}${base}${extension})
    file(CONFIGURE OUTPUT ${unit} CONTENT "#include \"${absolute}\"\n")
    list(APPEND units ${unit})
  endforeach()
  set(${out_var} ${units} PARENT_SCOPE)
endfunction()

# Adds ${name}_module_${kind}, the file `<out>/<name>.gpucore-<kind>.so` built from ARGN: the
# manifest's definitions, hidden symbols, only the entry exported (version script `exports`); the
# target `name` builds it.
function(gpucore_kernel_module_file name kind target_text out exports)
  set(target ${name}_module_${kind})
  add_library(${target} MODULE ${ARGN})
  target_compile_definitions(${target} PRIVATE
    GPUCORE_MODULE_NAME="${name}" GPUCORE_MODULE_KIND="${kind}" GPUCORE_MODULE_TARGETS="${target_text}")
  target_compile_features(${target} PRIVATE cxx_std_17)
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME "${name}.gpucore-${kind}" PREFIX "" SUFFIX ".so"
    LIBRARY_OUTPUT_DIRECTORY "${out}"
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_link_options(${target} PRIVATE "LINKER:--version-script=${exports}")
  add_dependencies(${name} ${target})
endfunction()

function(gpucore_add_kernel_module name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "SOURCES;CUDA_ARCHITECTURES;HIP_ARCHITECTURES" ${ARGN})
  if(NOT name MATCHES "^[A-Za-z0-9_.-]+$")
    message(FATAL_ERROR "gpucore_add_kernel_module: '${name}' is not a module name ([A-Za-z0-9_.-])")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "gpucore_add_kernel_module(${name}): no SOURCES")
  endif()
  set(out ${ARG_OUTPUT_DIRECTORY})
  if(NOT out)
    set(out ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
  endif()
  if(NOT out)
    set(out ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/gpucore_module_${name})
  set(entry ${generated}/module_entry.cpp)
  file(CONFIGURE OUTPUT ${entry} CONTENT "#include <gpucore/module_entry.hpp>\n")
  # Each file exports its entry point and nothing else: the kernels' own symbols (HIP keeps them
  # visible whatever -fvisibility says) must not bind to another module's or the program's.
  set(exports ${generated}/module.map)
  file(CONFIGURE OUTPUT ${exports} CONTENT "{\n  global: gpucore_module_entry_v*;\n  local: *;\n};\n")
  add_custom_target(${name} ALL)

  # The CPU module: every source compiled as C++ (a .cu file through a generated .cpp).
  if(TARGET gpucore::kernel_cpu)
    gpucore_kernel_module_units(units ${generated} cpu_ .cpp ${ARG_SOURCES})
    gpucore_kernel_module_file(${name} cpu "${CMAKE_SYSTEM_PROCESSOR}" "${out}" ${exports} ${units} ${entry})
    target_link_libraries(${name}_module_cpu PRIVATE gpucore::kernel_cpu)
    # #pragma unroll is nvcc's and hipcc's.
    target_compile_options(${name}_module_cpu PRIVATE -Wno-unknown-pragmas)
    target_link_options(${name}_module_cpu PRIVATE "LINKER:--no-undefined")
  endif()

  # The CUDA module.
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("CUDA" IN_LIST languages)
    set(archs ${ARG_CUDA_ARCHITECTURES})
    if(NOT archs)
      set(archs ${CMAKE_CUDA_ARCHITECTURES})
    endif()
    # CMake's spelling to the device code the file holds: 90 -> sm_90 compute_90; 90-real -> sm_90.
    set(targets)
    foreach(arch IN LISTS archs)
      string(REGEX MATCH "^[0-9]+[a-z]?" number "${arch}")
      if(arch MATCHES "-virtual$")
        list(APPEND targets compute_${number})
      elseif(arch MATCHES "-real$")
        list(APPEND targets sm_${number})
      else()
        list(APPEND targets sm_${number} compute_${number})
      endif()
    endforeach()
    list(JOIN targets " " target_text)
    gpucore_kernel_module_units(units ${generated} cuda_ .cu ${ARG_SOURCES})
    gpucore_kernel_module_file(${name} cuda "${target_text}" "${out}" ${exports} ${units} ${entry})
    target_link_libraries(${name}_module_cuda PRIVATE gpucore::plugin_sdk)
    set_target_properties(${name}_module_cuda PROPERTIES
      CUDA_ARCHITECTURES "${archs}"
      # Static cudart: the module loads where no CUDA runtime is installed, as the plugin does.
      CUDA_RUNTIME_LIBRARY Static
      CUDA_VISIBILITY_PRESET hidden)
  endif()

  # The HIP module: hipcc compiles the kernels for every target; the entry is plain C++.
  if(GPUCORE_HAVE_HIP)
    set(archs ${ARG_HIP_ARCHITECTURES})
    if(NOT archs)
      set(archs ${GPUCORE_HIP_ARCHITECTURES})
    endif()
    gpucore_check_hip_architectures("gpucore_add_kernel_module(${name}) HIP_ARCHITECTURES" ${archs})
    gpucore_find_hip_runtime()
    # The manifest names each target without its features (gfx90a:xnack+ -> gfx90a): the loader
    # compares the device's base target, as the HIP runtime picks a code object by it.
    set(targets)
    foreach(arch IN LISTS archs)
      string(REGEX REPLACE ":.*" "" base "${arch}")
      list(APPEND targets ${base})
    endforeach()
    list(REMOVE_DUPLICATES targets)
    list(JOIN targets " " target_text)
    # The dialect headers, wherever gpucore is: its source tree or an installed prefix.
    set(sdk gpucore::plugin_sdk)
    get_target_property(aliased ${sdk} ALIASED_TARGET)
    if(aliased)
      set(sdk ${aliased})
    endif()
    gpucore_kernel_module_units(units ${generated} hip_ .cu ${ARG_SOURCES})
    list(TRANSFORM ARG_SOURCES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/ REGEX "^[^/]" OUTPUT_VARIABLE sources)
    gpucore_hipcc_objects(objects ${generated}/hipcc
      SOURCES ${units}
      ARCHITECTURES ${archs}
      FLAGS "-I$<JOIN:$<TARGET_PROPERTY:${sdk},INTERFACE_INCLUDE_DIRECTORIES>,$<SEMICOLON>-I>"
      DEPENDS ${sources})
    gpucore_kernel_module_file(${name} hip "${target_text}" "${out}" ${exports} ${entry} ${objects})
    target_link_libraries(${name}_module_hip PRIVATE gpucore::plugin_sdk ${GPUCORE_AMDHIP64_LIBRARY})
    target_link_options(${name}_module_hip PRIVATE "LINKER:--no-undefined")
  endif()
endfunction()

# SPDX-License-Identifier: Apache-2.0
# cmake -DPLUGIN=<libgpucore-hip.so> -DARCHITECTURES=<gfx908;...> -DREADELF=<readelf> -P check_plugin_file.cmake
#
# Checks the built HIP plugin file itself, with binutils' readelf (independent of gpucore's own
# ELF reading):
#  - the dynamic symbol table defines exactly one global symbol, the entry point;
#  - it depends on libamdhip64 (the HIP runtime, loaded from the system) and has no RPATH/RUNPATH
#    (an empty RUNPATH entry would make the loader search the working directory);
#  - it embeds a code object for every offload target it was built for.
foreach(var PLUGIN ARCHITECTURES READELF)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_plugin_file.cmake: -D${var}=... is required")
  endif()
endforeach()
set(failures "")

# readelf --dyn-syms -W: Num: Value Size Type Bind Vis Ndx Name
execute_process(COMMAND ${READELF} --dyn-syms -W ${PLUGIN}
                OUTPUT_VARIABLE symbols RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "readelf --dyn-syms ${PLUGIN} failed (${status})")
endif()
string(REPLACE "\n" ";" lines "${symbols}")
set(exported "")
foreach(line IN LISTS lines)
  if(line MATCHES "^ *[0-9]+: +[0-9a-f]+ +[0-9]+ +[A-Z_]+ +(GLOBAL|WEAK|GNU_UNIQUE) +[A-Z]+ +([A-Z]+|[0-9]+) +([^ ]+)")
    if(NOT CMAKE_MATCH_2 STREQUAL "UND")
      list(APPEND exported "${CMAKE_MATCH_3}")
    endif()
  endif()
endforeach()
if(NOT exported STREQUAL "gpucore_plugin_entry_v1")
  string(APPEND failures "exported symbols are [${exported}], want only gpucore_plugin_entry_v1\n")
endif()

execute_process(COMMAND ${READELF} -d -W ${PLUGIN} OUTPUT_VARIABLE dynamic RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "readelf -d ${PLUGIN} failed (${status})")
endif()
if(NOT dynamic MATCHES "\\(NEEDED\\)[^\n]*\\[libamdhip64\\.so")
  string(APPEND failures "no NEEDED entry for libamdhip64\n")
endif()
if(dynamic MATCHES "\\((RPATH|RUNPATH)\\)[^\n]*")
  string(APPEND failures "has an ${CMAKE_MATCH_1}: ${CMAKE_MATCH_0}\n")
endif()

# Offload bundle entries name their target: "hipv4-amdgcn-amd-amdhsa--gfx90a".
file(STRINGS ${PLUGIN} bundle_ids REGEX "amdgcn-amd-amdhsa--gfx")
foreach(arch IN LISTS ARCHITECTURES)
  string(REPLACE "+" "\\+" arch_pattern "${arch}")
  if(NOT bundle_ids MATCHES "amdgcn-amd-amdhsa--${arch_pattern}([^:a-z0-9]|$)")
    string(APPEND failures "no code object for ${arch}\n")
  endif()
endforeach()

if(failures)
  message(FATAL_ERROR "${PLUGIN}:\n${failures}")
endif()
message(STATUS "${PLUGIN}: exports only gpucore_plugin_entry_v1, needs libamdhip64, no RUNPATH, "
               "code objects for ${ARCHITECTURES}")

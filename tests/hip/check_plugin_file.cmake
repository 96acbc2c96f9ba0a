# SPDX-License-Identifier: Apache-2.0
# cmake -DPLUGIN=<libgpucore-hip.so> -DARCHITECTURES=<gfx908;...> -DREADELF=<readelf>
#       [-DENTRY=<symbol>] [-DMANIFEST=<line;line...>] -P check_plugin_file.cmake
#
# Checks a built HIP plugin or HIP kernel module file itself, with binutils' readelf (independent
# of gpucore's own ELF reading):
#  - the dynamic symbol table defines exactly one global symbol, the entry point ENTRY (default:
#    the plugin's, gpucore_plugin_entry_v1);
#  - a kernel module's manifest section holds each of the MANIFEST lines;
#  - it depends on libamdhip64 (the HIP runtime, loaded from the system) and has no RPATH/RUNPATH
#    (an empty RUNPATH entry would make the loader search the working directory);
#  - it embeds a code object for every offload target it was built for.
foreach(var PLUGIN ARCHITECTURES READELF)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_plugin_file.cmake: -D${var}=... is required")
  endif()
endforeach()
set(failures "")
if(NOT DEFINED ENTRY)
  set(ENTRY gpucore_plugin_entry_v1)
endif()

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
if(NOT exported STREQUAL ENTRY)
  string(APPEND failures "exported symbols are [${exported}], want only ${ENTRY}\n")
endif()

if(DEFINED MANIFEST)
  execute_process(COMMAND ${READELF} -p .gpucore_module ${PLUGIN} OUTPUT_VARIABLE dump RESULT_VARIABLE status)
  # readelf prints the section's text with each newline as the two characters "\n".
  string(REPLACE "\\n" "\n" dump "${dump}")
  foreach(line IN LISTS MANIFEST)
    string(FIND "${dump}" "${line}\n" at)
    if(status OR at EQUAL -1)
      string(APPEND failures "no manifest line '${line}' in section .gpucore_module:\n${dump}\n")
    endif()
  endforeach()
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
message(STATUS "${PLUGIN}: exports only ${ENTRY}, needs libamdhip64, no RUNPATH, "
               "code objects for ${ARCHITECTURES}")

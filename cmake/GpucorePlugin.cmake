# SPDX-License-Identifier: Apache-2.0
# The plugin SDK's CMake side, used by gpucore's own build and installed with the CMake package
# (find_package(gpucore) includes it), so in-tree and third-party plugins are built the same way.
#
# gpucore_add_plugin(<target> SOURCES <files...>
#                    [VERSION <x.y.z>] [OUTPUT_DIRECTORY <dir>]
#                    [INSTALL_DESTINATION <dir>] [COMPONENT <name>] [NO_INSTALL])
#
# Builds a backend plugin as a MODULE library named lib<target>.so that exports the entry symbol and
# nothing else (linker version script), refuses unresolved symbols at link time, and compiles with
# GPUCORE_PLUGIN_VERSION_STRING defined to the plugin's release ("1.2.3"; VERSION, default: the
# calling project's version) for the table's `version` text.
#
# Installing:
# - Out of tree (a third-party plugin): installed by default into INSTALL_DESTINATION, default
#   <libdir>/gpucore/plugins under the plugin's own install prefix (the folder libgpucore searches
#   when both share a prefix; otherwise name it in GPUCORE_PLUGIN_PATH). NO_INSTALL skips it.
# - In gpucore's own build: installed only when a COMPONENT is named (the packaged plugins do), so
#   test plugins and fixtures are never installed, whatever their CMakeLists forget.
# OUTPUT_DIRECTORY: where the build puts the file. In gpucore's build the default is the plugin
# folder beside libgpucore (discovered by default); test plugins name another folder.
include(GNUInstallDirs)

set(GPUCORE_PLUGIN_VERSION_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/plugin.map)

# Defines GPUCORE_PLUGIN_VERSION_STRING for <target>: the release its table's `version` reports.
function(gpucore_plugin_version target version)
  if(NOT version MATCHES "^[0-9]+(\\.[0-9]+)*$")
    message(FATAL_ERROR "gpucore_plugin_version(${target}): '${version}' is not a version such as 1.2.3 "
                        "(give VERSION, or a VERSION in the project() call)")
  endif()
  target_compile_definitions(${target} PRIVATE GPUCORE_PLUGIN_VERSION_STRING="${version}")
endfunction()

function(gpucore_add_plugin target)
  cmake_parse_arguments(ARG "NO_INSTALL" "VERSION;OUTPUT_DIRECTORY;INSTALL_DESTINATION;COMPONENT"
                        "SOURCES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gpucore_add_plugin(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "gpucore_add_plugin(${target}): no SOURCES")
  endif()
  if(NOT ARG_VERSION)
    set(ARG_VERSION "${PROJECT_VERSION}")
  endif()

  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE gpucore::plugin_sdk)
  gpucore_plugin_version(${target} "${ARG_VERSION}")
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(NOT ARG_OUTPUT_DIRECTORY AND GPUCORE_PLUGIN_OUTPUT_DIR)
    set(ARG_OUTPUT_DIRECTORY ${GPUCORE_PLUGIN_OUTPUT_DIR})
  endif()
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  endif()
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${GPUCORE_PLUGIN_VERSION_SCRIPT}" "LINKER:--no-undefined")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${GPUCORE_PLUGIN_VERSION_SCRIPT})

  if(ARG_NO_INSTALL)
    return()
  endif()
  if(GPUCORE_BUILDING_GPUCORE AND NOT ARG_COMPONENT)
    return() # gpucore's own build installs only the plugins it packages
  endif()
  if(NOT ARG_INSTALL_DESTINATION)
    set(ARG_INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/gpucore/plugins)
  endif()
  set(component_args)
  if(ARG_COMPONENT)
    set(component_args COMPONENT ${ARG_COMPONENT})
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION ${ARG_INSTALL_DESTINATION} ${component_args})
endfunction()

# gpucore_add_plugin(<target> SOURCES <files...> [OUTPUT_DIRECTORY <dir>] [NO_INSTALL])
# Builds a backend plugin as a MODULE library in the plugin folder beside libgpucore (build and
# install tree), exporting the entry symbol and nothing else (linker version script).
# OUTPUT_DIRECTORY and NO_INSTALL are for plugins that must not be discovered by default (the
# template plugin the tests load through GPUCORE_PLUGIN_PATH).
set(GPUCORE_PLUGIN_VERSION_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/plugin.map)

function(gpucore_add_plugin target)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_DIRECTORY" "SOURCES" ${ARGN})
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY ${GPUCORE_PLUGIN_OUTPUT_DIR})
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE gpucore::plugin_sdk)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${GPUCORE_PLUGIN_VERSION_SCRIPT}" "LINKER:--no-undefined")
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION ${GPUCORE_PLUGIN_INSTALL_DIR})
  endif()
endfunction()

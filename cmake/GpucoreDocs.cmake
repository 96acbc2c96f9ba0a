# SPDX-License-Identifier: Apache-2.0
# `cmake --build build --target docs`: the API reference (HTML) from the public headers, with
# Doxygen, into <build>/docs/api/html. Any Doxygen warning (an undocumented public name, a broken
# reference) fails the target, so CI keeps the reference complete (tests/packaging runs it).
# The headers keep the project's comment style (// and /* */); docs/api/comment_filter.py shows
# Doxygen those comments as documentation.
find_package(Doxygen QUIET)
find_package(Python3 QUIET COMPONENTS Interpreter) # runs the filter (an executable script)
if(NOT DOXYGEN_FOUND OR NOT Python3_Interpreter_FOUND)
  message(STATUS "gpucore: doxygen or python3 not found: no `docs` target (apt-get install doxygen)")
  return()
endif()

set(GPUCORE_DOCS_OUTPUT_DIR ${CMAKE_BINARY_DIR}/docs/api)
set(GPUCORE_DOCS_INPUTS
  ${PROJECT_SOURCE_DIR}/core/include/gpucore
  ${GPUCORE_GENERATED_INCLUDE_DIR}/gpucore/version.hpp
  ${PROJECT_SOURCE_DIR}/plugins/include/gpucore
  ${PROJECT_SOURCE_DIR}/docs/api/mainpage.md)
# Every path is quoted in the Doxyfile: the source and build trees may lie under folders whose
# names hold spaces. Doxygen runs the filter through the shell without quoting it, so the filter
# is copied beside the Doxyfile and named relative to the working directory (no spaces there).
set(GPUCORE_DOCS_INPUT "")
foreach(input ${GPUCORE_DOCS_INPUTS})
  string(APPEND GPUCORE_DOCS_INPUT " \"${input}\"")
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/docs/api/comment_filter.py ${GPUCORE_DOCS_OUTPUT_DIR}/comment_filter.py COPYONLY)
set(GPUCORE_DOCS_FILTER "./comment_filter.py")
configure_file(${PROJECT_SOURCE_DIR}/docs/api/Doxyfile.in ${GPUCORE_DOCS_OUTPUT_DIR}/Doxyfile @ONLY)

file(GLOB gpucore_public_headers CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/core/include/gpucore/*.hpp ${PROJECT_SOURCE_DIR}/plugins/include/gpucore/*)
add_custom_command(
  OUTPUT ${GPUCORE_DOCS_OUTPUT_DIR}/html/index.html
  COMMAND ${DOXYGEN_EXECUTABLE} ${GPUCORE_DOCS_OUTPUT_DIR}/Doxyfile
  DEPENDS ${gpucore_public_headers} ${GPUCORE_GENERATED_INCLUDE_DIR}/gpucore/version.hpp
          ${PROJECT_SOURCE_DIR}/docs/api/mainpage.md ${PROJECT_SOURCE_DIR}/docs/api/comment_filter.py
          ${PROJECT_SOURCE_DIR}/docs/api/Doxyfile.in
  WORKING_DIRECTORY ${GPUCORE_DOCS_OUTPUT_DIR}
  COMMENT "Doxygen: API reference in ${GPUCORE_DOCS_OUTPUT_DIR}/html (warnings are errors)"
  VERBATIM)
add_custom_target(docs DEPENDS ${GPUCORE_DOCS_OUTPUT_DIR}/html/index.html)

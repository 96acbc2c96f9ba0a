# SPDX-License-Identifier: Apache-2.0
# Resolves GPUCORE_ENABLE_PYTHON (ON, OFF, AUTO) into GPUCORE_HAVE_PYTHON, and finds what the
# Python module (python/) builds with: a Python 3 interpreter with its development files, and the
# pybind11 and DLPack headers (Debian: python3-dev, pybind11-dev, libdlpack-dev).
#
# The interpreter: Python3_EXECUTABLE when given (-DPython3_EXECUTABLE=/opt/venv/bin/python),
# else /usr/bin/python3 where it exists, else the first python3 on PATH. /usr/bin/python3 comes
# first because it is the interpreter Debian's packages (python3-numpy, python3-pytest,
# python3-gpucore) serve; a pyenv or conda python3 earlier on PATH has neither numpy nor pytest.
#
# Sets: GPUCORE_HAVE_PYTHON, GPUCORE_PYTHON_INSTALL_DIR (cache, relative to the install prefix),
# GPUCORE_PYBIND11_TARGET (an interface target with the pybind11 headers), GPUCORE_DLPACK_INCLUDE_DIR.
set(GPUCORE_HAVE_PYTHON OFF)
if(GPUCORE_ENABLE_PYTHON STREQUAL "OFF")
  message(STATUS "gpucore: Python module OFF")
  return()
endif()

# "ON" makes every missing piece an error naming what to install; AUTO says what is missing.
macro(gpucore_python_missing what)
  if(GPUCORE_ENABLE_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "GPUCORE_ENABLE_PYTHON=ON but ${what}")
  endif()
  message(STATUS "gpucore: Python module OFF: ${what}")
  return()
endmacro()

if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python interpreter the gpucore module is built for")
endif()
find_package(Python3 3.8 COMPONENTS Interpreter Development.Module)
if(NOT Python3_Development.Module_FOUND)
  gpucore_python_missing("no Python 3 development files were found for ${Python3_EXECUTABLE} (Debian: python3-dev)")
endif()

# Header folders the interpreter knows: the pip package pybind11's, and the copies of pybind11 and
# dlpack.h that PyTorch ships in torch/include (a venv with torch has both).
execute_process(
  COMMAND ${Python3_EXECUTABLE} -c
    "import os, importlib.util as u\nfor m in ('pybind11', 'torch'):\n    try:\n        s = u.find_spec(m)\n    except Exception:\n        s = None\n    if s and s.origin:\n        print(os.path.join(os.path.dirname(s.origin), 'include'))"
  OUTPUT_VARIABLE gpucore_python_include_hints OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
string(REPLACE "\n" ";" gpucore_python_include_hints "${gpucore_python_include_hints}")

# pybind11: its CMake package (Debian's pybind11-dev), else its headers among the hints.
find_package(pybind11 2.6 CONFIG QUIET)
if(TARGET pybind11::headers)
  set(GPUCORE_PYBIND11_TARGET pybind11::headers)
else()
  find_path(GPUCORE_PYBIND11_INCLUDE_DIR pybind11/pybind11.h HINTS ${gpucore_python_include_hints})
  if(NOT GPUCORE_PYBIND11_INCLUDE_DIR)
    gpucore_python_missing("pybind11 was not found (Debian: pybind11-dev; or -DGPUCORE_PYBIND11_INCLUDE_DIR=...)")
  endif()
  add_library(gpucore_pybind11_headers INTERFACE)
  target_include_directories(gpucore_pybind11_headers SYSTEM INTERFACE ${GPUCORE_PYBIND11_INCLUDE_DIR})
  set(GPUCORE_PYBIND11_TARGET gpucore_pybind11_headers)
endif()

# dlpack.h: Debian's libdlpack-dev (DLPack 0.6), else PyTorch's copy. The module uses only the
# unversioned structs, which every DLPack release since 0.6 has.
find_path(GPUCORE_DLPACK_INCLUDE_DIR dlpack/dlpack.h HINTS ${gpucore_python_include_hints})
if(NOT GPUCORE_DLPACK_INCLUDE_DIR)
  gpucore_python_missing("dlpack/dlpack.h was not found (Debian: libdlpack-dev; or -DGPUCORE_DLPACK_INCLUDE_DIR=...)")
endif()

# Where `cmake --install` puts the package, relative to the prefix (so any prefix works and the
# installed tree can move): the interpreter's platlib under the prefix. Debian's and Ubuntu's
# interpreters (the ones with a deb_system scheme) search <prefix>/lib/python3.X/dist-packages
# for /usr and /usr/local, so `--prefix /usr/local` and the .deb (/usr) need no PYTHONPATH; other
# interpreters use their posix_prefix scheme's site-packages. Any other prefix: PYTHONPATH.
execute_process(
  COMMAND ${Python3_EXECUTABLE} -c
    "import sysconfig as s\np = s.get_path('platlib', 'posix_prefix', vars={'base': '/', 'platbase': '/'}).lstrip('/')\nprint(p.replace('site-packages', 'dist-packages') if 'deb_system' in s.get_scheme_names() else p)"
  OUTPUT_VARIABLE gpucore_python_dir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE gpucore_python_dir_result)
if(NOT gpucore_python_dir_result EQUAL 0 OR gpucore_python_dir STREQUAL "")
  set(gpucore_python_dir lib/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/site-packages)
endif()
set(GPUCORE_PYTHON_INSTALL_DIR ${gpucore_python_dir} CACHE STRING
    "Folder of the gpucore Python package, relative to the install prefix")

set(GPUCORE_HAVE_PYTHON ON)
message(STATUS "gpucore: Python module ON for ${Python3_EXECUTABLE} (${Python3_VERSION}), installed into <prefix>/${GPUCORE_PYTHON_INSTALL_DIR}")

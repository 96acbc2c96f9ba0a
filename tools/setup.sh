#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's first command: install dependencies, build, and run the main job (every operation,
# verified, on the default backend: GPU_BACKEND, or auto).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
tools/build.sh
"${GPUCORE_BUILD_DIR:-build}/bin/gpucore" info
"${GPUCORE_BUILD_DIR:-build}/bin/gpucore" run all

# Install the build, so `gpucore`, `#include <gpucore/gpucore.hpp>` and `import gpucore` work from
# anywhere: into /usr/local by default, where Debian's python3 finds the Python package
# (/usr/local/lib/python3.X/dist-packages) with no PYTHONPATH. GPUCORE_PREFIX picks another prefix
# (then PYTHONPATH=<prefix>/lib/python3.X/dist-packages, as printed); GPUCORE_PREFIX=none skips it.
prefix=${GPUCORE_PREFIX:-/usr/local}
if [ "$prefix" != none ]; then
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ] && ! { mkdir -p "$prefix" 2>/dev/null && [ -w "$prefix" ]; }; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" cmake --install "${GPUCORE_BUILD_DIR:-build}" --prefix "$prefix" >/dev/null
  echo "installed into $prefix"
  pydir=$(sed -n 's/^GPUCORE_PYTHON_INSTALL_DIR:STRING=//p' "${GPUCORE_BUILD_DIR:-build}/CMakeCache.txt")
  python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "${GPUCORE_BUILD_DIR:-build}/CMakeCache.txt")
  if [ -n "$pydir" ] && [ -f "$prefix/$pydir/gpucore/__init__.py" ]; then
    if (cd / && "$python" -c 'import gpucore' 2>/dev/null); then
      (cd / && "$python" -c 'import gpucore; print("python:", gpucore.__file__, gpucore.default_device())')
    else
      echo "python: export PYTHONPATH=$prefix/$pydir   (then: $python -c 'import gpucore')"
    fi
  fi
fi

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

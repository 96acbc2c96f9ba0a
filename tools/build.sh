#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures (once) and builds gpucore into ${GPUCORE_BUILD_DIR:-build}. Extra arguments go to the
# first configure, e.g. tools/build.sh -DGPUCORE_ENABLE_CUDA=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUCORE_BUILD_DIR:-build}
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake --build "$build" -j"$(nproc)"

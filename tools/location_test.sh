#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The test suite passes wherever the checkout lives. Clones this repository's HEAD under /tmp (a
# sticky world-writable folder: the plugin trust rule's "trusted sticky" case) into a folder whose
# name holds a space and non-ASCII letters, makes the source tree read-only, builds out of source
# (cpu only: the location is under test, not the toolkits) and runs the tests that depend on where
# files are: loader (trust rule), kernel modules (their search and trust), packaging (install,
# .debs, docs), Python and multidevice. Extra arguments
# go to ctest (e.g. -R to run more). CI runs it (.ci/run).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
base=$(mktemp -d "${GPUCORE_LOCATION_ROOT:-/tmp}/gpucore location tést.XXXXXX")
chmod 0755 "$base" # mktemp's 0700 would keep out the steps some tests run as user nobody
cleanup() { chmod -R u+w "$base" 2>/dev/null || true; rm -rf "$base"; }
trap cleanup EXIT
git clone --quiet "$repo" "$base/src"
chmod -R a-w "$base/src"
cmake -S "$base/src" -B "$base/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DGPUCORE_ENABLE_CUDA=OFF -DGPUCORE_ENABLE_HIP=OFF >"$base/configure.log" || { cat "$base/configure.log"; exit 1; }
cmake --build "$base/build" -j"$(nproc)"
ctest --test-dir "$base/build" --output-on-failure -j"$(nproc)" \
  -R '^(loader|packaging|multidevice|python)\.|^modules$|^examples\.module_' "$@"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's second command: build (if needed) and run every test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/build.sh
ctest --test-dir "${GPUCORE_BUILD_DIR:-build}" --output-on-failure -j"$(nproc)" "$@"

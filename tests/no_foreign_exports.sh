#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a built shared object exports a strong definition that is not gpucore's own: a symbol
# of the C++ runtime or of another library linked in statically (operator new, typeinfo of
# std::exception, libstdc++'s locale ids...) would interpose on the process's copy of that library
# for every object that loads after it in the same scope. Weak (vague-linkage) template
# instantiations are the compiler's normal output and are not checked.
# Usage: no_foreign_exports.sh <shared object>...   (every one named must exist; empty arguments,
# which CMake passes for the optional targets this build lacks, are skipped)
set -euo pipefail
status=0
for object in "$@"; do
  [ -n "$object" ] || continue
  if [ ! -e "$object" ]; then
    echo "$object: missing"; status=1; continue
  fi
  if ! symbols=$(nm -D --defined-only "$object" 2>&1); then
    echo "$object: nm cannot read its dynamic symbols: $symbols"; status=1; continue
  fi
  # Strong definitions: text, data, bss, read-only data, indirect functions.
  foreign=$(printf '%s\n' "$symbols" | awk '$2 ~ /^[TDBRi]$/ {print $3}' |
            grep -v -E '7gpucore|^gpucore_|^PyInit_' || true)
  if [ -n "$foreign" ]; then
    echo "$object exports $(printf '%s\n' "$foreign" | wc -l) symbols that are not gpucore's, e.g.:"
    printf '%s\n' "$foreign" | sed -n '1,5s/^/  /p'
    status=1
  else
    echo "$object: exports gpucore's symbols only"
  fi
done
exit $status

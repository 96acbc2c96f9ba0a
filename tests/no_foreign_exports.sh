#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a built shared object exports a strong definition that is not gpucore's own: a symbol
# of the C++ runtime or of another library linked in statically (operator new, typeinfo of
# std::exception, libstdc++'s locale ids...) would interpose on the process's copy of that library
# for every object that loads after it in the same scope. Weak (vague-linkage) template
# instantiations are the compiler's normal output and are not checked.
# Usage: no_foreign_exports.sh <shared object>...   (every one must exist)
set -euo pipefail
status=0
for object in "$@"; do
  if [ ! -e "$object" ]; then
    echo "$object: missing"; status=1; continue
  fi
  # Strong definitions: text, data, bss, read-only data, indirect functions.
  foreign=$(nm -D --defined-only "$object" | awk '$2 ~ /^[TDBRi]$/ {print $3}' |
            grep -v -E '7gpucore|^gpucore_|^PyInit_' || true)
  if [ -n "$foreign" ]; then
    echo "$object exports $(echo "$foreign" | wc -l) symbols that are not gpucore's, e.g.:"
    echo "$foreign" | head -5 | sed 's/^/  /'
    status=1
  else
    echo "$object: exports gpucore's symbols only"
  fi
done
exit $status

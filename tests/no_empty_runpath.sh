#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a built library or plugin carries an empty RUNPATH/RPATH entry: glibc reads an empty
# entry as the current directory, so a dependency dropped there would be loaded (DESIGN: never load
# from the current directory implicitly).
set -euo pipefail
status=0
for lib in "$@"; do
  [ -e "$lib" ] || continue
  path=$(readelf -d "$lib" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p')
  if [ -n "$path" ] && [[ ":$path:" =~ :: ]]; then
    echo "$lib: empty entry in RUNPATH [$path]"; status=1
  else
    echo "$lib: RUNPATH [${path}] ok"
  fi
done
exit $status

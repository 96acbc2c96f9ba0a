#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX licence lines: every source file (C, C++, CUDA/HIP sources and headers, CMake files, shell
# and Python scripts) starts with the comment `SPDX-License-Identifier: Apache-2.0` (after a
# shebang or Python coding line, which must stay first).
#
#   tools/spdx_headers.sh           adds the line to every source file that lacks it
#   tools/spdx_headers.sh --check   lists the files that lack it; exit 1 when there are any
#
# Files: those git tracks plus new ones it does not ignore (every file outside build folders when
# the tree is not a git checkout).
set -euo pipefail
cd "$(dirname "$0")/.."

TAG="SPDX-License-Identifier: Apache-2.0"
mode=add
case "${1:-}" in
  --check) mode=check ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

list_files() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files --cached --others --exclude-standard
  else
    find . -path './build*' -prune -o -path './.git' -prune -o -type f -print | sed 's|^\./||'
  fi
}

# The comment syntax of a file, or nothing when it is not a source file.
comment_style() {
  local file=$1
  case "$file" in
    *.h | *.c | *.h.in) echo c ;;
    *.hpp | *.cpp | *.cc | *.cu | *.cuh | *.hip | *.hpp.in | *.cpp.in) echo cpp ;;
    *CMakeLists.txt | *.cmake | *.cmake.in | *.sh | *.py) echo hash ;;
    *)
      # Scripts without an extension (.ci/run): a shell or Python shebang.
      if head -c 64 "$file" 2>/dev/null | head -1 | grep -Eq '^#!.*(bash|sh|python)'; then echo hash; fi ;;
  esac
}

# How many leading lines must stay first: a shebang, then a Python encoding declaration.
kept_lines() {
  local file=$1 keep=0
  if head -1 "$file" | grep -q '^#!'; then keep=1; fi
  if sed -n "$((keep + 1))p" "$file" | grep -Eq '^#.*coding[:=]'; then keep=$((keep + 1)); fi
  echo "$keep"
}

# The first line after those is the tag, alone in its comment.
has_tag() {
  local line
  line=$(sed -n "$(($(kept_lines "$1") + 1))p" "$1")
  [[ "$line" == "// $TAG" || "$line" == "/* $TAG */" || "$line" == "# $TAG" ]]
}

add_tag() {
  local file=$1 style=$2 line
  case "$style" in
    c) line="/* $TAG */" ;;
    cpp) line="// $TAG" ;;
    hash) line="# $TAG" ;;
  esac
  local tmp
  tmp=$(mktemp "$file.spdx.XXXXXX") # same folder: the rename below is atomic
  local keep
  keep=$(kept_lines "$file")
  {
    if [ "$keep" -gt 0 ]; then head -n "$keep" "$file"; fi
    echo "$line"
    tail -n +"$((keep + 1))" "$file"
  } >"$tmp"
  # A new file replaces the old one (a script being run, this one included, keeps reading the
  # old one), with the old one's mode (scripts stay executable).
  chmod --reference="$file" "$tmp"
  mv "$tmp" "$file"
}

missing=()
mapfile -t files < <(list_files) # listed before any file changes
for file in "${files[@]}"; do
  # Only regular files are rewritten (by temp + rename): a symlink, a device or a FIFO would be
  # replaced by a regular file.
  [ -f "$file" ] && [ ! -L "$file" ] || continue
  style=$(comment_style "$file")
  [ -n "$style" ] || continue
  has_tag "$file" && continue
  if [ "$mode" = check ]; then
    missing+=("$file")
  else
    add_tag "$file" "$style"
    echo "added: $file"
  fi
done

if [ "$mode" = check ] && [ ${#missing[@]} -gt 0 ]; then
  echo "files without '$TAG' (run tools/spdx_headers.sh to add it):" >&2
  printf '  %s\n' "${missing[@]}" >&2
  exit 1
fi
[ "$mode" = check ] && echo "spdx: every source file carries '$TAG'"
exit 0

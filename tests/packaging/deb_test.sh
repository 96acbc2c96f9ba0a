#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Debian packages with CPack and inspects them without installing anything on the
# machine: names, contents and Depends (dpkg-deb -I / -c), no test plugin in any package, then
# extracts them into a scratch root and runs the packaged command and a pkg-config consumer there.
#
#   deb_test.sh <build dir> <source dir> <scratch dir>
set -euo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
unset GPU_BACKEND GPUCORE_PLUGIN_PATH
export GPUCORE_LOG_LEVEL=warn

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }
# pkg-config escapes the spaces of a path with a backslash: its output read as shell words.
pkg_config_words() { eval "printf '%s\\n' $(pkg-config "$@")"; }
# The path ldd (or LD_TRACE_LOADED_OBJECTS) resolved library $1 to, read from its output on stdin;
# a path may hold spaces.
resolved_path() { awk -v n="$1" '$1 == n { s = $0; sub(/^[^>]*=> /, "", s); sub(/ \(0x[0-9a-f]+\)$/, "", s); print s }'; }
# Not a Debian-like system: nothing to check here (exit 77: ctest reports the test as skipped).
for tool in dpkg dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not found (Debian packages need dpkg-dev)"; exit 77; }
done
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
major=${version%%.*}
arch=$(dpkg --print-architecture)

step "cpack -G DEB"
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$scratch/debs" >"$scratch/cpack.log" 2>&1 \
  || { cat "$scratch/cpack.log"; fail "cpack"; }

deb_of() { echo "$scratch/debs/${1}_${version}_${arch}.deb"; }
depends_of() { dpkg-deb -f "$(deb_of "$1")" Depends; }
contents_of() { dpkg-deb -c "$(deb_of "$1")" | awk '{print $6}'; }

packages=("libgpucore$major" libgpucore-dev gpucore-tools)
# The GPU plugins are packaged when they were built in this tree.
plugin_dir=$(dirname "$(find "$build/lib" -maxdepth 1 -name 'libgpucore.so' | head -1)")/gpucore/plugins
for vendor in cuda hip; do
  if [ -f "$plugin_dir/libgpucore-$vendor.so" ]; then
    packages+=("gpucore-plugin-$vendor")
  else
    echo "SKIP gpucore-plugin-$vendor: the $vendor plugin is not built in $build (GPUCORE_ENABLE_${vendor^^} off or its compiler missing)"
    [ ! -e "$(deb_of "gpucore-plugin-$vendor")" ] || fail "gpucore-plugin-$vendor made without a $vendor plugin"
  fi
done

# python3-gpucore is packaged when the Python module was built in this tree.
python_module=$(find "$build/lib" -path '*/gpucore/_gpucore*.so' | head -1)
if [ -n "$python_module" ]; then
  packages+=(python3-gpucore)
else
  echo "SKIP python3-gpucore: the Python module is not built in $build (GPUCORE_ENABLE_PYTHON)"
fi

step "packages made: ${packages[*]}"
for p in "${packages[@]}"; do
  [ -f "$(deb_of "$p")" ] || { ls "$scratch/debs"; fail "no package $p"; }
  dpkg-deb -I "$(deb_of "$p")" >/dev/null || fail "dpkg-deb -I $p"
  echo "$p: Depends: $(depends_of "$p")"
done
made=$(cd "$scratch/debs" && ls ./*.deb | wc -l)
[ "$made" -eq "${#packages[@]}" ] || { ls "$scratch/debs"; fail "$made packages made, expected ${#packages[@]}"; }

# owner_of <library path>: the Debian package that owns it ("" when none does).
owner_of() {
  local path=$1 candidate
  for candidate in "$path" "$(readlink -f "$path")" "/usr$path" "${path#/usr}"; do
    dpkg -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1 && return 0
  done
  return 0
}
# expect_linked_packages <package> <ELF file>: the package depends on the owner of every library
# the file links directly.
expect_linked_packages() {
  local package=$1 file=$2 needed path owner names
  for needed in $(readelf -d "$file" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
    case "$needed" in ld-linux*) continue ;; esac # the dynamic loader (libc6)
    path=$(ldd "$file" | resolved_path "$needed" | grep '^/' || true)
    owner=""
    if [ -n "$path" ]; then owner=$(owner_of "$path"); fi
    if [ -z "$owner" ]; then
      echo "note: $needed ($path) belongs to no Debian package here; not checked"
      continue
    fi
    # The dependency names the owner or a virtual package it provides (libspdlog1.10 provides
    # libspdlog1.10-fmt9, the name its shlibs file gives dpkg-shlibdeps).
    names=$( (echo "$owner"; dpkg-query -W -f='${Provides}\n' "$owner" 2>/dev/null | tr ',' '\n') \
      | sed 's/(.*//; s/^ *//; s/ *$//' | grep -v '^$' | sed 's/[.+]/\\&/g' | paste -sd'|')
    depends_on "$package" "($names)"
  done
}

# has <package> <regex>: some packaged path matches; lacks: none does.
has() { contents_of "$1" | grep -Eq "$2" || fail "$1 lacks $2"; }
lacks() { if contents_of "$1" | grep -E "$2"; then fail "$1 holds the paths above (matching $2)"; fi; }
# depends_on <package> <dependency regex>
depends_on() { depends_of "$1" | tr ',' '\n' | grep -Eq "^ *$2( |$)" || fail "$1 does not depend on $2: $(depends_of "$1")"; }

step "libgpucore$major: the library with the cpu backend, nothing for developers"
has "libgpucore$major" "/libgpucore\.so\.$major$"
has "libgpucore$major" "/libgpucore\.so\.$version$"
has "libgpucore$major" "/gpucore/plugins/$"
lacks "libgpucore$major" '/include/|\.pc$|/cmake/|/libgpucore\.so$|/bin/'
# Every library libgpucore links directly (NEEDED) is a dependency through the package that owns it
# on this system (Debian 12: libspdlog1.10, libfmt9, libgomp1, libstdc++6, libgcc-s1, libc6).
expect_linked_packages "libgpucore$major" "$(find "$build/lib" -maxdepth 1 -name "libgpucore.so.$major" | head -1)"

step "libgpucore-dev: headers, CMake package, pkg-config, plugin SDK, conformance runner"
for path in '/include/gpucore/gpucore\.hpp$' '/include/gpucore/version\.hpp$' '/include/gpucore/plugin\.h$' \
            '/cmake/gpucore/gpucoreConfig\.cmake$' '/cmake/gpucore/GpucorePlugin\.cmake$' \
            '/cmake/gpucore/plugin\.map$' '/pkgconfig/gpucore\.pc$' '/libgpucore\.so$' \
            '/bin/gpucore-conformance$' '/cmake/gpucore/GpucoreKernelModule\.cmake$' \
            '/cmake/gpucore/GpucoreHip\.cmake$' '/include/gpucore/kernel\.hpp$' '/include/gpucore/module\.h$'; do
  has libgpucore-dev "$path"
done
# The CPU execution that kernel modules built for the CPU link, where it was built (Boost.Context).
if [ -n "$(find "$build" -maxdepth 1 -name libgpucore_kernel_cpu.a)" ]; then
  has libgpucore-dev '/libgpucore_kernel_cpu\.a$'
  has libgpucore-dev '/cmake/gpucore/gpucoreKernelCpuTargets\.cmake$'
fi
depends_on libgpucore-dev "libgpucore$major \(= $version\)"

step "gpucore-tools: the command and the examples"
has gpucore-tools '/bin/gpucore$'
has gpucore-tools '/gpucore/examples/vector_add$'
has gpucore-tools '/doc/gpucore/examples/vector_add\.cpp$'
depends_on gpucore-tools "libgpucore$major \(= $version\)"

for vendor in cuda hip; do
  p=gpucore-plugin-$vendor
  [[ " ${packages[*]} " == *" $p "* ]] || continue
  step "$p"
  has "$p" "/gpucore/plugins/libgpucore-$vendor\.so$"
  depends_on "$p" "libgpucore$major \(= $version\)"
done
if [[ " ${packages[*]} " == *" gpucore-plugin-hip "* ]]; then
  depends_on gpucore-plugin-hip 'libamdhip64-5'
  expect_linked_packages gpucore-plugin-hip "$plugin_dir/libgpucore-hip.so"
fi

if [[ " ${packages[*]} " == *" python3-gpucore "* ]]; then
  step "python3-gpucore: the Python package in the interpreter's dist-packages"
  has python3-gpucore '/usr/lib/python3[^/]*/dist-packages/gpucore/__init__\.py$'
  has python3-gpucore '/usr/lib/python3[^/]*/dist-packages/gpucore/_gpucore\.cpython-[^/]*\.so$'
  lacks python3-gpucore '/include/|/bin/|/libgpucore\.so'
  depends_on python3-gpucore "libgpucore$major \(= $version\)"
  depends_on python3-gpucore 'python3-numpy'
  depends_on python3-gpucore 'python3 \(>= [0-9.]+\)'
  expect_linked_packages python3-gpucore "$python_module"
fi

step "no test plugin in any package"
for p in "${packages[@]}"; do
  contents_of "$p" | { grep -E '/gpucore/plugins/.+' || true; } | while read -r path; do
    case "$(basename "$path")" in
      libgpucore-cuda.so | libgpucore-hip.so) ;;
      *) fail "$p ships $path in the plugin folder" ;;
    esac
  done
  lacks "$p" 'test-plugins|fixture|libgpucore-template|simt|wave'
done

step "extract into a scratch root and run the packaged command"
root=$scratch/root
for p in "${packages[@]}"; do dpkg-deb -x "$(deb_of "$p")" "$root"; done
"$root/usr/bin/gpucore" --version | grep -qx "gpucore $version" || fail "packaged gpucore --version"
"$root/usr/bin/gpucore" info >"$scratch/info.txt" || { cat "$scratch/info.txt"; fail "packaged gpucore info"; }
"$root/usr/bin/gpucore" run vector_add --n 65537 >"$scratch/run.txt" || { cat "$scratch/run.txt"; fail "packaged gpucore run"; }
# The command found libgpucore in the scratch root (RUNPATH $ORIGIN/../lib), not elsewhere.
libgpucore=$(find "$root" -name "libgpucore.so.$major" | head -1)
loaded=$(LD_TRACE_LOADED_OBJECTS=1 "$root/usr/bin/gpucore" | resolved_path "libgpucore.so.$major")
[ "$(readlink -f "$loaded")" = "$(readlink -f "$libgpucore")" ] \
  || fail "the packaged command loads '$loaded', not the packaged $libgpucore"

if [[ " ${packages[*]} " == *" python3-gpucore "* ]]; then
  step "import gpucore from the extracted python3-gpucore"
  python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
  package_dir=$(dirname "$(find "$root" -path '*/dist-packages/gpucore/__init__.py' | head -1)")
  PYTHONPATH=$(dirname "$package_dir") GPU_BACKEND=cpu "$python" - "$root" <<'PY' || fail "import gpucore from the packages"
import os, sys
import numpy as np
import gpucore
root = os.path.realpath(sys.argv[1])
# The path is the sixth field of a maps line, and may hold spaces.
loaded = [line.split(None, 5)[5].strip() for line in open("/proc/self/maps") if "libgpucore.so" in line]
assert loaded and all(os.path.realpath(p).startswith(root) for p in loaded), loaded
buffer = gpucore.from_numpy(np.arange(10, dtype=np.int32))
assert np.from_dlpack(buffer).ctypes.data == buffer.data_ptr
print("python3-gpucore:", gpucore.__version__, gpucore.default_device())
PY
fi

step "pkg-config consumer against the extracted libgpucore-dev"
pc=$(find "$root" -name gpucore.pc | head -1)
export PKG_CONFIG_PATH=$(dirname "$pc")
mapfile -t pc_flags < <(pkg_config_words --cflags --libs gpucore)
c++ -std=c++17 -o "$scratch/consumer" "$source_dir/tests/packaging/consumer/main.cpp" \
  "${pc_flags[@]}" -Wl,-rpath,"$(pkg_config_words --variable=libdir gpucore)"
"$scratch/consumer"

echo "PASS: ${packages[*]}"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Kernel modules from an installed gpucore, as a user writes them: install into a prefix whose path
# has spaces, build tests/packaging/module_consumer (a module and the program that loads it) out of
# tree with find_package(gpucore) and gpucore_add_kernel_module, and run it on the cpu backend from
# another folder. Where hipcc is found, the consumer's HIP module is checked with readelf too.
#
#   module_install_test.sh <build dir> <source dir> <scratch dir>
set -euo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch/with space"
scratch=$(cd "$scratch/with space" && pwd)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
unset GPU_BACKEND GPUCORE_PLUGIN_PATH GPUCORE_MODULE_PATH
export GPUCORE_LOG_LEVEL=warn

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

step "install into $scratch/prefix"
cmake --install "$build" --prefix "$scratch/prefix" >"$scratch/install.log"
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
[ -n "$libdir" ] || libdir=lib
prefix=$scratch/prefix
for f in "$libdir/cmake/gpucore/GpucoreKernelModule.cmake" "$libdir/cmake/gpucore/GpucoreHip.cmake" \
         "$libdir/cmake/gpucore/gpucoreKernelCpuTargets.cmake" "$libdir/libgpucore_kernel_cpu.a" \
         include/gpucore/kernel.hpp include/gpucore/kernel/cpu.hpp include/gpucore/kernel/cuda.hpp \
         include/gpucore/kernel/hip.hpp include/gpucore/kernel/gpu_atomics.hpp include/gpucore/kernel/cuda_launch.hpp \
         include/gpucore/kernel_module.hpp \
         include/gpucore/kernel_registry.hpp include/gpucore/module_entry.hpp include/gpucore/module.h \
         include/gpucore/module.hpp; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done

step "a module and its program, out of tree, against the installed package"
cp -r "$source_dir/tests/packaging/module_consumer" "$scratch/source"
cmake -S "$scratch/source" -B "$scratch/consumer" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >"$scratch/consumer.log" 2>&1 || { cat "$scratch/consumer.log"; fail "configure"; }
cmake --build "$scratch/consumer" >>"$scratch/consumer.log" 2>&1 || { cat "$scratch/consumer.log"; fail "build"; }
cpu_module=$scratch/consumer/block_sums.gpucore-cpu.so
[ -f "$cpu_module" ] || { ls "$scratch/consumer"; fail "no $cpu_module"; }
readelf -p .gpucore_module "$cpu_module" | grep -q 'kind cpu' || fail "the cpu module has no manifest"
exported=$(readelf --dyn-syms -W "$cpu_module" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") {print $8}')
[ "$exported" = gpucore_module_entry_v1 ] || fail "the cpu module exports: $exported"

step "run it on the cpu backend, from another folder"
# The module is found beside the program, never through the current directory.
(cd / && GPU_BACKEND=cpu "$scratch/consumer/module_consumer") >"$scratch/run.txt" 2>&1 \
  || { cat "$scratch/run.txt"; fail "the program failed on cpu"; }
cat "$scratch/run.txt"
grep -q "module .*block_sums.gpucore-cpu.so (cpu), 391 blocks, total .*, 0 wrong blocks" "$scratch/run.txt" \
  || fail "unexpected output"

hip_module=$scratch/consumer/block_sums.gpucore-hip.so
if grep -q "^GPUCORE_HIPCC:FILEPATH=/" "$scratch/consumer/CMakeCache.txt"; then
  step "the HIP module, built by hipcc from the installed headers"
  [ -f "$hip_module" ] || fail "hipcc was found but no $hip_module was built"
  archs=$(sed -n 's/^GPUCORE_HIP_ARCHITECTURES:STRING=//p' "$scratch/consumer/CMakeCache.txt" | tr ';' ' ')
  readelf -p .gpucore_module "$hip_module" | grep -q "targets $archs" || fail "the hip module's manifest lacks 'targets $archs'"
else
  echo "SKIP hip: no hipcc"
fi
echo "PASS: installed gpucore_add_kernel_module, cpu module run from a prefix with spaces"

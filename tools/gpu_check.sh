#!/usr/bin/env bash
# The GPU machine's one command (issue 3): from a clean checkout on a machine with an NVIDIA GPU,
# configure and build (Release), run ctest, run compute-sanitizer memcheck / racecheck / synccheck
# / initcheck over the conformance suite (cuda device only) and the GPU kernel tests, run the
# CUDA benchmark and `gpucore bench --json`, and leave a text report and JSON in <report-dir>.
#
#   tools/gpu_check.sh <report-dir> [step...]
#
# Steps (default: all, in this order): env build test sanitize bench
# Environment: GPUCORE_CUDA_ARCH (default 90), GPUCORE_GPU_BUILD_DIR (default build-gpucheck),
#   GPUCORE_CHECK_JOBS (default nproc), GPUCORE_SANITIZER_TIMEOUT (seconds per tool run, 900),
#   GPUCORE_COMMIT (shown in the report when the tree is not a git checkout).
# If a folder .deps/ exists (headers + CMake configs of CLI11 / nlohmann-json for machines that
# lack them), it is added to CMAKE_PREFIX_PATH.
# Outputs: report.txt (every step, status, key lines), summary.json, gpu_bench.json,
# gpucore_bench.json, bandwidth.png (when matplotlib is available), logs.tar.gz (every log).
# Exit status: 0 when every step that ran passed.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ]; then
  echo "usage: $0 <report-dir> [env|build|test|sanitize|bench ...]" >&2
  exit 2
fi
REPORT=$(mkdir -p "$1" && cd "$1" && pwd)
shift
STEPS=${*:-env build test sanitize bench}
ARCH=${GPUCORE_CUDA_ARCH:-90}
BUILD=${GPUCORE_GPU_BUILD_DIR:-build-gpucheck}
JOBS=${GPUCORE_CHECK_JOBS:-$(nproc)}
SAN_TIMEOUT=${GPUCORE_SANITIZER_TIMEOUT:-900}
LOGS=$(mktemp -d)
SUMMARY="$LOGS/summary.tsv"
: >"$SUMMARY"
OVERALL=0

# run <name> <command...>: runs with its output in $LOGS/<name>.log, records status and seconds.
run() {
  local name=$1
  shift
  local start=$SECONDS
  echo "== $name: $*" | tee -a "$REPORT/report.txt"
  "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  local took=$((SECONDS - start))
  printf '%s\t%s\t%s\n' "$name" "$rc" "$took" >>"$SUMMARY"
  echo "   -> exit $rc in ${took}s" | tee -a "$REPORT/report.txt"
  [ $rc -eq 0 ] || OVERALL=1
  return $rc
}

has_step() { [[ " $STEPS " == *" $1 "* ]]; }

: >"$REPORT/report.txt"
COMMIT=${GPUCORE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo 'unknown (no git checkout)')}
echo "gpucore GPU check, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $COMMIT" \
  | tee -a "$REPORT/report.txt"

if has_step env; then
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1
    nvcc --version 2>&1 | tail -2
    cmake --version | head -1
    g++ --version | head -1
    command -v compute-sanitizer || echo "compute-sanitizer: not found"
  } >"$LOGS/env.log" 2>&1
  sed 's/^/   /' "$LOGS/env.log" | tee -a "$REPORT/report.txt"
fi

if has_step build; then
  PREFIX=()
  [ -d .deps ] && PREFIX=(-DCMAKE_PREFIX_PATH="$PWD/.deps")
  run configure cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DGPUCORE_ENABLE_CUDA=ON -DGPUCORE_ENABLE_HIP=OFF "${PREFIX[@]}"
  run build cmake --build "$BUILD" -j"$JOBS"
fi

BIN="$BUILD/bin"
if has_step test; then
  # The fast suites in parallel, then the large (> 2^31 elements) ones alone.
  run ctest ctest --test-dir "$BUILD" --output-on-failure -j"$JOBS" -LE large --timeout 900
  grep -E "tests passed|tests failed" "$LOGS/ctest.log" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
  run ctest_large ctest --test-dir "$BUILD" --output-on-failure -L large --timeout 1800
  grep -E "tests passed|tests failed" "$LOGS/ctest_large.log" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
fi

if has_step sanitize; then
  CONF_FILTER='*cuda_0*:-*Large*'
  KERNEL_FILTER='-*Large*'
  for tool in memcheck racecheck synccheck initcheck; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    run "sanitize_${tool}_conformance" timeout "$SAN_TIMEOUT" compute-sanitizer --tool "$tool" \
      "${extra[@]}" --error-exitcode 17 "$BIN/gpucore_conformance" --gtest_filter="$CONF_FILTER"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|\[  PASSED|\[  FAILED" "$LOGS/sanitize_${tool}_conformance.log" \
      | sed 's/^/   /' | tee -a "$REPORT/report.txt"
    run "sanitize_${tool}_kernels" timeout "$SAN_TIMEOUT" compute-sanitizer --tool "$tool" \
      "${extra[@]}" --error-exitcode 17 "$BIN/gpucore_gpu_kernel_tests" --gtest_filter="$KERNEL_FILTER"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|\[  PASSED|\[  FAILED" "$LOGS/sanitize_${tool}_kernels.log" \
      | sed 's/^/   /' | tee -a "$REPORT/report.txt"
  done
fi

if has_step bench; then
  run gpu_bench "$BIN/gpucore_cuda_bench" --json "$REPORT/gpu_bench.json"
  sed -n '/^host time per launch/,$p' "$LOGS/gpu_bench.log" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
  GPU_BACKEND=cuda run gpucore_bench "$BIN/gpucore" bench --json "$REPORT/gpucore_bench.json"
  if [ -x "$BIN/examples/streams_overlap" ]; then
    GPU_BACKEND=cuda run streams_overlap "$BIN/examples/streams_overlap"
    tail -5 "$LOGS/streams_overlap.log" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
  fi
  if [ -f "$REPORT/gpu_bench.json" ] && python3 -c 'import matplotlib' 2>/dev/null; then
    run plot python3 benchmarks/plot_benchmarks.py "$REPORT/gpu_bench.json" "$REPORT/bandwidth.png"
  fi
fi

python3 - "$SUMMARY" "$REPORT/summary.json" <<'PY'
import json, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
steps = [{"step": n, "exit": int(rc), "seconds": int(s)} for n, rc, s in rows]
json.dump({"steps": steps, "passed": all(s["exit"] == 0 for s in steps)}, open(sys.argv[2], "w"), indent=2)
PY
tar -czf "$REPORT/logs.tar.gz" -C "$LOGS" .
echo "overall: $([ $OVERALL -eq 0 ] && echo PASSED || echo FAILED); report in $REPORT" | tee -a "$REPORT/report.txt"
exit $OVERALL

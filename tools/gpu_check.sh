#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GPU machine's one command: from a clean checkout on a machine with an NVIDIA GPU,
# configure and build (Release), run ctest, run the stress tests on the cuda device (the 100,000-
# cycle soak, then compute-sanitizer memcheck over the concurrency, bulk, soak and out-of-memory
# tests), run compute-sanitizer memcheck / racecheck / synccheck / initcheck over the conformance
# suite (cuda device only) and the GPU kernel tests, profile with Nsight Compute the kernels of the
# speed targets that were missed, run the CUDA benchmark and `gpucore bench --json`, run the lessons'
# ladders beside gpucore's kernels (gpucore_ladder), and leave a text report and JSON in <report-dir>.
#
#   tools/gpu_check.sh <report-dir> [step...]
#
# Steps (default: all, in this order): env build test stress sanitize modules python profile bench
#   ladder sweep multi
#   modules: kernel modules on the cuda device: the examples (cuda, then cpu, one binary each),
#   compute-sanitizer memcheck and racecheck over the module tests, gpucore_module_bench (beside
#   thrust and the kernels compiled in) and gpucore_module_cpu_bench (cpu beside OpenMP).
#   python: pytest over python/tests with GPU_BACKEND=cuda (torch/CuPy exchange included) and
#   python/benchmarks/bench_python.py on cuda:0, with the interpreter the module was built for.
#   sweep: gpucore_sweep_bench, every op and dtype over the whole range of shapes beside the best
#   peer (about 2-4 minutes on an H200); its JSON, table and plot land in the report folder.
#   sweep-quick instead of sweep: the same program on a few shapes (a smoke test, seconds).
#   multi: copies between devices and work split over GPUs: gpucore_multi_bench, the device-pair
#   tests (gpucore_multidevice_tests, then memcheck over their cuda pairs), examples/multi_gpu and
#   examples/mpi_reduce with 1 and 2 ranks (GPU_BACKEND=cuda; one GPU per rank). On one GPU the
#   parts that need two say they skipped.
# Environment: GPUCORE_PYTHON (the interpreter to build the Python module for; default
#   /opt/torch/.venv/bin/python where it exists), GPUCORE_CUDA_ARCH (default 90), GPUCORE_GPU_BUILD_DIR (default build-gpucheck),
#   GPUCORE_CHECK_JOBS (default nproc), GPUCORE_SANITIZER_TIMEOUT (seconds per compute-sanitizer
#   run, 900), GPUCORE_SANITIZER_TOOLS (the sanitize step's tools; default memcheck racecheck
#   synccheck initcheck), GPUCORE_SANITIZER_CONF_FILTER / GPUCORE_SANITIZER_KERNEL_FILTER (the
#   sanitize step's gtest filters over the conformance suite / the kernel tests; default every
#   cuda case / every kernel test, the over-2^31-element ones and the refused launches left out;
#   the refused launches then run under memcheck without API error reports), GPUCORE_PROFILE_TIMEOUT
#   (seconds per ncu run, 600),
#   GPUCORE_COMMIT (shown in the report when the tree is not a git checkout).
# compute-sanitizer and ncu are taken from PATH, else from /usr/local/cuda/bin; without ncu the
# profile step records a skip, not a failure.
# If a folder .deps/ exists (headers + CMake configs of CLI11 / nlohmann-json, and include/dlpack/
# for the Python module, for machines that lack them), it is added to CMAKE_PREFIX_PATH.
# Outputs: report.txt (every step, status, key lines), summary.json, module_bench.json,
# python_bench.json, gpu_bench.json,
# gpucore_bench.json, bandwidth.png (when matplotlib is available), profiles.txt (every ncu
# profile in full, one header per case), ladder.json, ladder.md (its table, for BENCHMARKS.md),
# ladder.png (when matplotlib is available), sweep.json, sweep.md (the cases below 1.00x of the
# best peer, the reduce_rows plans' table), sweep.png (when matplotlib is available),
# logs.tar.gz (every log).
# Exit status: 0 when every step that ran passed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

if [ $# -lt 1 ]; then
  echo "usage: $0 <report-dir> [env|build|test|stress|sanitize|modules|python|profile|bench|ladder|sweep|sweep-quick|multi ...]" >&2
  exit 2
fi
REPORT=$(mkdir -p "$1" && cd "$1" && pwd)
shift
STEPS=${*:-env build test stress sanitize modules python profile bench ladder sweep multi}
ARCH=${GPUCORE_CUDA_ARCH:-90}
BUILD=${GPUCORE_GPU_BUILD_DIR:-build-gpucheck}
JOBS=${GPUCORE_CHECK_JOBS:-$(nproc)}
SAN_TIMEOUT=${GPUCORE_SANITIZER_TIMEOUT:-900}
PROFILE_TIMEOUT=${GPUCORE_PROFILE_TIMEOUT:-600}
PYTHON=${GPUCORE_PYTHON:-}
if [ -z "$PYTHON" ] && [ -x /opt/torch/.venv/bin/python ]; then PYTHON=/opt/torch/.venv/bin/python; fi
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

# report_lines <name> <extended regex>: the lines of $LOGS/<name>.log that match, indented, into
# report.txt (no match is not an error).
report_lines() {
  grep -E -- "$2" "$LOGS/$1.log" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
  return 0
}
GTEST_LINES='\[  PASSED|\[  FAILED'
SANITIZER_LINES="ERROR SUMMARY|RACECHECK SUMMARY|$GTEST_LINES"

# find_cuda_tool <name>: its path, from PATH or else the toolkit's usual folder; fails when absent.
find_cuda_tool() {
  command -v "$1" 2>/dev/null && return 0
  [ -x "/usr/local/cuda/bin/$1" ] && echo "/usr/local/cuda/bin/$1" && return 0
  return 1
}
SANITIZER=$(find_cuda_tool compute-sanitizer || echo compute-sanitizer)
NCU=$(find_cuda_tool ncu || true)

: >"$REPORT/report.txt"
COMMIT=${GPUCORE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo 'unknown (no git checkout)')}
# A copy of a working tree may carry the .git of an older commit: say when tracked files differ.
if [ -z "${GPUCORE_COMMIT:-}" ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  COMMIT="$COMMIT + changes to tracked files"
fi
echo "gpucore GPU check, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $COMMIT" \
  | tee -a "$REPORT/report.txt"

if has_step env; then
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1
    nvcc --version 2>&1 | tail -2
    cmake --version | head -1
    g++ --version | head -1
    find_cuda_tool compute-sanitizer || echo "compute-sanitizer: not found"
    if [ -n "$NCU" ]; then echo "$NCU: $("$NCU" --version 2>&1 | tail -1)"; else echo "ncu: not found"; fi
  } >"$LOGS/env.log" 2>&1
  sed 's/^/   /' "$LOGS/env.log" | tee -a "$REPORT/report.txt"
fi

if has_step build; then
  PREFIX=()
  [ -d .deps ] && PREFIX=(-DCMAKE_PREFIX_PATH="$PWD/.deps")
  [ -n "$PYTHON" ] && PREFIX+=(-DPython3_EXECUTABLE="$PYTHON")
  run configure cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DGPUCORE_ENABLE_CUDA=ON -DGPUCORE_ENABLE_HIP=OFF "${PREFIX[@]}"
  run build cmake --build "$BUILD" -j"$JOBS"
fi

BIN="$BUILD/bin"
if has_step test; then
  # The fast suites in parallel, then the large (> 2^31 elements) ones alone.
  run ctest ctest --test-dir "$BUILD" --output-on-failure -j"$JOBS" -LE large --timeout 900
  report_lines ctest "tests passed|tests failed"
  run ctest_large ctest --test-dir "$BUILD" --output-on-failure -L large --timeout 1800
  report_lines ctest_large "tests passed|tests failed"
fi

if has_step stress; then
  # The 100,000 allocate / launch / free cycles of the soak on the cuda device, outside any tool (the
  # test checks resident memory growth < 1 MiB, threads and descriptors; 1800 s as ctest gives it).
  run stress_soak_cuda env GPUCORE_SOAK_DEVICE=cuda timeout 1800 "$BIN/gpucore_stress_tests" \
    --gtest_filter='Soak.*'
  report_lines stress_soak_cuda "cycles: resident|$GTEST_LINES"
  # memcheck over the soak, shortened (2000 warm-up + 2000 measured cycles: 100,000 are too slow
  # under the tool), and over the concurrency and bulk tests on the cuda device.
  run stress_memcheck_soak env GPUCORE_SOAK_DEVICE=cuda GPUCORE_SOAK_CYCLES=2000 timeout "$SAN_TIMEOUT" \
    "$SANITIZER" --tool memcheck --leak-check full --error-exitcode 17 "$BIN/gpucore_stress_tests" \
    --gtest_filter='Soak.*'
  report_lines stress_memcheck_soak "cycles: resident|$SANITIZER_LINES"
  # Left out under the tool: EventRecordedWhileOtherThreadsQueryAndWaitOnIt (its waiters launch
  # for as long as the recorder runs; memcheck serialises every launch and it outran 150 s, where
  # it takes 3 s in ctest, which runs it on cuda without the tool).
  # The bulk test runs 1+1 rounds of 128 streams and 2000 lone events under the tool (3+12 rounds and
  # 20000 events in ctest): memcheck's cost per round grows with the streams created so far (H200,
  # 2026-11-22: 1+1 rounds 31 s, 1+2 rounds 84 s, 3+3 rounds over 240 s; 0.3 s for 3+12 without it).
  run stress_memcheck_concurrency env GPUCORE_BULK_ROUNDS=1 GPUCORE_BULK_WARMUP_ROUNDS=1 \
    GPUCORE_BULK_EVENTS=2000 timeout "$SAN_TIMEOUT" "$SANITIZER" \
    --tool memcheck --leak-check full \
    --error-exitcode 17 "$BIN/gpucore_stress_tests" \
    --gtest_filter='*cuda_0*:-*EventRecordedWhileOtherThreadsQueryAndWaitOnIt*'
  report_lines stress_memcheck_concurrency "rounds of|$SANITIZER_LINES"
  # The out-of-memory test on cuda. Its cudaMalloc of more than the device has fails on purpose, and
  # compute-sanitizer reports a failing API call as an error by default (--report-api-errors
  # explicit), which would count in ERROR SUMMARY and the exit status: API error reports are off
  # here (the test itself checks that the failure is out_of_memory); device-side memory errors and
  # leaks are still reported.
  run stress_memcheck_fault timeout "$SAN_TIMEOUT" "$SANITIZER" --tool memcheck --leak-check full \
    --report-api-errors no --error-exitcode 17 "$BIN/gpucore_fault_tests" --gtest_filter='*cuda_0*'
  report_lines stress_memcheck_fault "$SANITIZER_LINES"
fi

if has_step sanitize; then
  CONF_FILTER=${GPUCORE_SANITIZER_CONF_FILTER:-'*cuda_0*:-*Large*'}
  # The kernel tests whose names say "Refused" make launches fail on purpose: they run once more
  # below, with API error reports off (as the out-of-memory test above).
  KERNEL_FILTER=${GPUCORE_SANITIZER_KERNEL_FILTER:-'-*Large*:*Refused*'}
  for tool in ${GPUCORE_SANITIZER_TOOLS:-memcheck racecheck synccheck initcheck}; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    run "sanitize_${tool}_conformance" timeout "$SAN_TIMEOUT" "$SANITIZER" --tool "$tool" \
      "${extra[@]}" --error-exitcode 17 "$BIN/gpucore_conformance" --gtest_filter="$CONF_FILTER"
    report_lines "sanitize_${tool}_conformance" "$SANITIZER_LINES"
    run "sanitize_${tool}_kernels" timeout "$SAN_TIMEOUT" "$SANITIZER" --tool "$tool" \
      "${extra[@]}" --error-exitcode 17 "$BIN/gpucore_gpu_kernel_tests" --gtest_filter="$KERNEL_FILTER"
    report_lines "sanitize_${tool}_kernels" "$SANITIZER_LINES"
  done
  run sanitize_memcheck_refused_launches timeout "$SAN_TIMEOUT" "$SANITIZER" --tool memcheck --leak-check full \
    --report-api-errors no --error-exitcode 17 "$BIN/gpucore_gpu_kernel_tests" --gtest_filter='*Refused*'
  report_lines sanitize_memcheck_refused_launches "$SANITIZER_LINES"
fi

if has_step modules; then
  # One binary per example, run on cuda and then on cpu with only GPU_BACKEND changed.
  # (cpu modules need Boost.Context; a machine without it builds cuda modules only.)
  for example in saxpy histogram matmul; do
    backends=(cuda)
    [ -f "$BIN/examples/$example.gpucore-cpu.so" ] && backends+=(cpu)
    for backend in "${backends[@]}"; do
      GPU_BACKEND=$backend run "module_${example}_${backend}" "$BIN/examples/module_$example"
      tail -2 "$LOGS/module_${example}_${backend}.log" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
    done
  done
  for tool in memcheck racecheck; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    run "sanitize_${tool}_modules" timeout "$SAN_TIMEOUT" "$SANITIZER" --tool "$tool" "${extra[@]}" \
      --error-exitcode 17 "$BIN/gpucore_module_tests" --gtest_filter='*cuda*'
    report_lines "sanitize_${tool}_modules" "$SANITIZER_LINES"
  done
  MODULE_DIR="$(cd "$BIN/examples" && pwd)"
  if [ -x "$BIN/gpucore_module_bench" ]; then
    GPUCORE_MODULE_PATH=$MODULE_DIR run module_bench "$BIN/gpucore_module_bench" --json "$REPORT/module_bench.json"
    sed -n '/^kernel modules on/,$p' "$LOGS/module_bench.log" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
  fi
  if [ -f "$MODULE_DIR/saxpy.gpucore-cpu.so" ]; then
    GPUCORE_MODULE_PATH=$MODULE_DIR run module_cpu_bench "$BIN/gpucore_module_cpu_bench"
    sed -n '/^kernel modules on/,$p' "$LOGS/module_cpu_bench.log" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
  else
    echo "   module_cpu_bench skipped: no cpu modules (Boost.Context not found)" | tee -a "$REPORT/report.txt"
  fi
fi

if has_step python; then
  PY_PATH=$(echo "$PWD/$BUILD"/lib/python3*/*-packages)
  if [ -z "$PYTHON" ] || [ ! -d "$PY_PATH/gpucore" ]; then
    echo "== python: skipped (no interpreter given, or the module was not built: $PY_PATH)" | tee -a "$REPORT/report.txt"
  else
    GPU_BACKEND=cuda PYTHONPATH=$PY_PATH PYTHONDONTWRITEBYTECODE=1 GPUCORE_MODULE_PATH="$PWD/$BIN" \
      run python_tests_cuda \
      "$PYTHON" -m pytest -v -p no:cacheprovider python/tests
    report_lines python_tests_cuda " passed| failed| skipped|SKIPPED|FAILED"
    PYTHONPATH=$PY_PATH run python_bench "$PYTHON" python/benchmarks/bench_python.py --device cuda:0 \
      --json "$REPORT/python_bench.json"
    tail -20 "$LOGS/python_bench.log" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
  fi
fi

if has_step profile; then
  # Nsight Compute on the speed targets that were missed (BENCHMARKS.md), through `gpucore run`, so
  # the kernels profiled are gpucore's own. Each case: <log name>;<kernel regex>;<gpucore run args>.
  # `gpucore run` launches the op twice with --repeat 1 (a verified warm-up, then one timed run);
  # the profile is of the first launch: ncu flushes the caches before a profiled kernel
  # (--cache-control all, its default), so the data is cold in either launch.
  # --clock-control none: ncu must never change the GPU's clocks (it locks them to base by default).
  PROFILE_CASES=(
    "transpose_f32_16384x16384;transpose;transpose --dtype f32 --rows 16384 --cols 16384"
    "transpose_f32_5003x3001;transpose;transpose --dtype f32 --rows 5003 --cols 3001"
    "transpose_f32_8191x8193;transpose;transpose --dtype f32 --rows 8191 --cols 8193"
    "transpose_f16_8191x8193;transpose;transpose --dtype f16 --rows 8191 --cols 8193"
    "transpose_f32_16x2pow22;transpose;transpose --dtype f32 --rows 16 --cols 2^22"
    "transpose_f16_16384x16384;transpose;transpose --dtype f16 --rows 16384 --cols 16384"
    "transpose_f16_9x2pow22;transpose;transpose --dtype f16 --rows 9 --cols 2^22"
    "transpose_f16_2pow22x9;transpose;transpose --dtype f16 --rows 2^22 --cols 9"
    "transpose_f16_16x4194305;transpose;transpose --dtype f16 --rows 16 --cols 4194305"
    "transpose_f16_16x2pow22;transpose;transpose --dtype f16 --rows 16 --cols 2^22"
    "transpose_f32_512x512;transpose;transpose --dtype f32 --rows 512 --cols 512"
    "reduce_sum_f32_2pow28;reduce_single_pass;reduce --dtype f32 --n 2^28 --op sum"
    "reduce_sum_i32_2pow28;reduce_single_pass;reduce --dtype i32 --n 2^28 --op sum"
    "vector_add_f32_2pow28;vector_add;vector_add --dtype f32 --n 2^28"
    "reduce_rows_sum_f32_8x2pow26;reduce_rows_;reduce_rows --dtype f32 --rows 8 --cols 2^26 --op sum"
    "reduce_rows_sum_i32_4096x4096;reduce_rows_;reduce_rows --dtype i32 --rows 4096 --cols 4096 --op sum"
  )
  PROFILE_METRICS=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
  PROFILE_METRICS+=,dram__throughput.avg.pct_of_peak_sustained_elapsed
  PROFILE_METRICS+=,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
  # The kernel's line, the table row of `gpucore run` (verified?), and the counters that explain it.
  PROFILE_LINES='==ERROR==|No kernels were profiled|Context [0-9]+, Stream|^(transpose|reduce|vector_add)'
  PROFILE_LINES+='|Duration|DRAM Throughput|Memory Throughput|dram__|gpu__time_duration|lts__t_sectors'
  PROFILE_LINES+='|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Grid Size|Block Size'
  PROFILE_LINES+='|Warp Cycles Per Issued Instruction|being stalled'
  if [ -z "$NCU" ]; then
    echo "== profile: skipped (ncu not on PATH nor at /usr/local/cuda/bin/ncu)" | tee -a "$REPORT/report.txt"
  else
    : >"$REPORT/profiles.txt"
    for profile_case in "${PROFILE_CASES[@]}"; do
      IFS=';' read -r name kernel args <<<"$profile_case"
      read -ra run_args <<<"$args"
      run "profile_$name" env GPU_BACKEND=cuda timeout "$PROFILE_TIMEOUT" "$NCU" --clock-control none \
        --target-processes all -k "regex:$kernel" --launch-count 1 --section SpeedOfLight \
        --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats \
        --metrics "$PROFILE_METRICS" "$BIN/gpucore" run "${run_args[@]}" --repeat 1
      report_lines "profile_$name" "$PROFILE_LINES"
      {
        echo "===== $name: gpucore run $args --repeat 1 (kernel regex: $kernel) ====="
        cat "$LOGS/profile_$name.log"
        echo
      } >>"$REPORT/profiles.txt"
    done
  fi
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

if has_step ladder; then
  # The lessons' rungs beside gpucore's kernels and a copy of the same bytes, each checked against
  # a host reference (about a minute on an H200).
  run ladder "$BIN/gpucore_ladder" --json "$REPORT/ladder.json"
  sed -n '/^theoretical peak/,$p' "$LOGS/ladder.log" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
  if [ -f "$REPORT/ladder.json" ]; then
    run ladder_table python3 benchmarks/plot_ladder.py "$REPORT/ladder.json" --markdown "$REPORT/ladder.md"
    if python3 -c 'import matplotlib' 2>/dev/null; then
      run ladder_plot python3 benchmarks/plot_ladder.py "$REPORT/ladder.json" --png "$REPORT/ladder.png"
    fi
  fi
fi

if has_step sweep || has_step sweep-quick; then
  # Every op, dtype and shape range beside the best peer, each result verified; the cases below
  # 1.00x and the reduce_rows plans' table are in sweep.md.
  SWEEP_ARGS=()
  has_step sweep || SWEEP_ARGS=(--quick)
  run sweep "$BIN/gpucore_sweep_bench" "$REPORT" "${SWEEP_ARGS[@]}" # writes sweep.json, sweep.md
  if [ -f "$REPORT/sweep.md" ]; then
    sed -n '/^## Below 1.00x/,/^## Per op/p' "$REPORT/sweep.md" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
  fi
  if [ -f "$REPORT/sweep.json" ] && python3 -c 'import matplotlib' 2>/dev/null; then
    run sweep_plot python3 benchmarks/plot_sweep.py "$REPORT/sweep.json" "$REPORT/sweep.png"
  fi
fi

if has_step multi; then
  run multi_bench "$BIN/gpucore_multi_bench"
  grep -E "ratio|speedup|skipped|exact|WRONG|peer access" "$LOGS/multi_bench.log" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
  run multidevice_tests "$BIN/gpucore_multidevice_tests"
  report_lines multidevice_tests "$GTEST_LINES"
  run multidevice_memcheck timeout "$SAN_TIMEOUT" "$SANITIZER" --tool memcheck --error-exitcode 17 \
    "$BIN/gpucore_multidevice_tests" --gtest_filter='*cuda*:-*Large*'
  report_lines multidevice_memcheck "$SANITIZER_LINES"
  GPU_BACKEND=cuda run multi_gpu "$BIN/examples/multi_gpu"
  tail -5 "$LOGS/multi_gpu.log" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
  if [ -x "$BIN/examples/mpi_reduce" ] && command -v mpirun >/dev/null; then
    MPI_FLAGS=()
    [ "$(id -u)" -eq 0 ] && MPI_FLAGS+=(--allow-run-as-root)
    GPU_BACKEND=cuda run mpi_reduce_1 mpirun "${MPI_FLAGS[@]}" -np 1 "$BIN/examples/mpi_reduce"
    GPU_BACKEND=cuda run mpi_reduce_2 mpirun "${MPI_FLAGS[@]}" -np 2 "$BIN/examples/mpi_reduce"
    grep -h "mpi_reduce\]" "$LOGS/mpi_reduce_1.log" "$LOGS/mpi_reduce_2.log" | sed 's/^/   /' | tee -a "$REPORT/report.txt"
  else
    echo "   mpi_reduce skipped: not built (no MPI found) or no mpirun" | tee -a "$REPORT/report.txt"
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

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sanitizers and fuzzing for gpucore. .ci/run calls it after the README's test command.
#
#   tools/ci_sanitizers.sh [asan] [tsan] [fuzz]      (no argument: all three, in this order)
#
#   asan  build-asan: the whole project (apps, examples, tests; no CUDA/HIP plugin) built by g++
#         with AddressSanitizer + UndefinedBehaviorSanitizer; the full ctest (but the opt-in
#         >2^31-element cases, and the wave suites' u32/bf16 cases: see WAVE_EXCLUDE_ASAN) must
#         pass with 0 reports.
#   tsan  build-tsan: clang 14 with ThreadSanitizer and LLVM's OpenMP runtime (libomp) plus its
#         Archer tool, which tells TSan about OpenMP's own synchronization (libgomp, g++'s OpenMP,
#         is not instrumented and would only produce false reports); the stream, event,
#         concurrency and runtime-start tests must pass with 0 reports. OpenMP runs with its
#         normal team size: no OMP_NUM_THREADS=1 is needed.
#   fuzz  build-fuzz: the libFuzzer targets of tests/fuzz (clang 14, ASan + UBSan), each run for
#         GPUCORE_FUZZ_SECONDS (default 60) from the committed seeds. A finding fails the script and
#         leaves its input under build-fuzz/fuzz-artifacts/<target>/: fix the bug and commit the
#         input to tests/fuzz/regressions/<target>/ so the replay test keeps it fixed.
#
# Every report fails the run: sanitizer reports abort the test process (halt_on_error and
# -fno-sanitize-recover=all, which also holds in child processes started with a cleared
# environment), so ctest sees a failed test. One TSan suppression, for libomp's thread pool, is
# written by the tsan stage with its justification; there are none for ASan, UBSan or the fuzzers.
# Environment: JOBS (build parallelism, default nproc), GPUCORE_FUZZ_SECONDS.
set -euo pipefail
cd "$(dirname "$0")/.."

JOBS=${JOBS:-$(nproc)}
FUZZ_SECONDS=${GPUCORE_FUZZ_SECONDS:-60}
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(asan tsan fuzz)

log() { printf '\n=== ci_sanitizers: %s ===\n' "$*"; }

# ---- packages ------------------------------------------------------------------------------------
# g++'s ASan/UBSan runtimes come with build-essential (tools/install_deps.sh). clang's sanitizer and
# libFuzzer runtimes are in libclang-rt-14-dev, libomp + libarcher in libomp-14-dev, and
# llvm-symbolizer (readable stack traces in reports) in llvm-14.
install_packages() {
  local wanted=(clang-14 libclang-rt-14-dev libomp-14-dev llvm-14)
  local missing=()
  for p in "${wanted[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return
  local sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
install_packages

CLANG_BIN=/usr/lib/llvm-14/bin
export ASAN_SYMBOLIZER_PATH=$CLANG_BIN/llvm-symbolizer
ARCHER=/usr/lib/llvm-14/lib/libarcher.so

# No Python module in the sanitizer trees: an instrumented extension loads into an uninstrumented
# python3, where ASan's runtime is not first in the initial library list (it aborts the process)
# and TSan's would miss the interpreter's own synchronization. The module's C++ work goes through
# libgpucore, which these trees do check; tools/test.sh runs the Python tests (ctest -L python).
common_cmake=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUCORE_ENABLE_CUDA=OFF -DGPUCORE_ENABLE_HIP=OFF
              -DGPUCORE_ENABLE_PYTHON=OFF)
# clang links its sanitizer runtimes into executables only; libgpucore and the plugins resolve the
# runtime's symbols from the executable when loaded. The project links shared objects with
# --no-undefined, so the clang trees relax it again at the end of every link line (-z undefs
# overrides -z defs). The g++ tree needs nothing: g++ links the shared runtimes into every object.
clang_relax_undefined=(-DCMAKE_CXX_STANDARD_LIBRARIES=-Wl,-z,undefs -DCMAKE_C_STANDARD_LIBRARIES=-Wl,-z,undefs)

# ---- the wave suites under the sanitizers ---------------------------------------------------------
# The wave64/wave32 conformance suites run the GPU kernels on fibers, one simulated lane at a time:
# under the sanitizers they were most of the test time (ASan: 330 of 700 test-seconds; TSan: 550
# of 600). tools/test.sh runs them in full; here each sanitizer runs the cases that exercise what
# it checks, and the cases left out are named (gtest patterns, GPUCORE_WAVE_EXCLUDE):
#  - ASan+UBSan, both widths (the index arithmetic depends on the width), every op and every size
#    and shape but 4 x 2^20, for f32, f64, i32 and f16: one dtype per element size (4, 8, 2 bytes:
#    every distinct address computation), i32 for signed arithmetic (UBSan) and f16 for the
#    widening to a float accumulator. u32 and bf16 run the same templates at the same element
#    sizes as i32 and f16 (unsigned wrap and a shift conversion: nothing ASan or UBSan would see
#    differently). 4 x 2^20 is half of the suites' elements and takes the same path (several
#    blocks per row, several rows) as 2 x 65537; 1 x 1000003 keeps a long row with a ragged tail.
#  - TSan, both widths, the multi-block reductions (Reduce, ReduceRows: workers, streams, the
#    last-block ticket) for f32 and f16 (float partials of a wider type than the input), without
#    4 x 2^20 (as above): the synchronization is the same code for every dtype.
WAVE_EXCLUDE_ASAN='*_u32_*:*_bf16_*:*_4x1048576'
WAVE_EXCLUDE_TSAN='*_f64_*:*_i32_*:*_u32_*:*_bf16_*:*_4x1048576'

# ---- ASan + UBSan: the full test suite --------------------------------------------------------------
run_asan() {
  log "AddressSanitizer + UndefinedBehaviorSanitizer (g++), full ctest in build-asan"
  local flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  # -O1 -g1 (line tables): the optimization level ASan recommends, and what stack traces need;
  # half the compile time of -O2 -g for the template-heavy sources (bench_command.cpp: 44 s
  # instead of 85 s of CPU), which made the build most of this stage.
  cmake -S . -B build-asan "${common_cmake[@]}" -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DGPUCORE_BUILD_APPS=ON -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DGPUCORE_WAVE_EXCLUDE="$WAVE_EXCLUDE_ASAN"
  cmake --build build-asan -j"$JOBS"
  # allocator_may_return_null: the out-of-memory tests ask for more than exists and expect an
  #   out_of_memory Error; without it ASan aborts on any allocation above its 1 TiB maximum.
  # detect_leaks: LeakSanitizer at exit of every test process (on by default; stated here).
  # The soak runs its full 100,000 cycles here too (~15 s): LeakSanitizer and use-after-free
  #   checks over the churn; its resident-size bound is skipped under ASan (quarantine).
  ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:halt_on_error=1:strict_init_order=1" \
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
    ctest --test-dir build-asan --output-on-failure -j"$JOBS" -LE conformance_large
}

# ---- TSan: streams, events, concurrency -------------------------------------------------------------
run_tsan() {
  log "ThreadSanitizer (clang 14, libomp + Archer), concurrency tests in build-tsan"
  local flags="-fsanitize=thread -fno-omit-frame-pointer"
  CC=$CLANG_BIN/clang CXX=$CLANG_BIN/clang++ cmake -S . -B build-tsan "${common_cmake[@]}" \
    -DGPUCORE_BUILD_APPS=OFF -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" "${clang_relax_undefined[@]}" \
    -DGPUCORE_WAVE_EXCLUDE="$WAVE_EXCLUDE_TSAN"
  cmake --build build-tsan -j"$JOBS" --target gpucore_stress_tests gpucore_runtime_race_test \
    gpucore_fault_tests gpucore_cpu_backend_test gpucore_conformance gpucore_loader_tests \
    gpucore_simt64_tests gpucore_simt32_tests gpucore_conformance_wave gpucore_multidevice_tests \
    gpucore_gpu_table_test gpucore_blocking_reduce_tests
  # OMP_TOOL_LIBRARIES loads Archer into libomp (ARCHER_OPTIONS=verbose=1 prints that it is active).
  # ignore_noninstrumented_modules: libomp itself is not built with TSan; its internal locking
  #   (mutexes initialised and taken inside libomp, memset of its own thread data) is invisible to
  #   TSan and reported as races in libomp's frames. Archer supplies the OpenMP-level ordering our
  #   code relies on; accesses made by our instrumented code are still all checked.
  # allocator_may_return_null: the out-of-memory tests (see the ASan stage).
  # The soak is left out (it is about memory, and 100,000 cycles under TSan take too long); the
  # conformance suite contributes its stream/event and blocking-order tests, the loader suite its
  # raced start and the gpu plugins' entry points called by several threads at once, the simt
  # execution (backends/simt) its own tests and its multi-block reductions
  # (workers, streams, the last-block ticket; its fibers are announced to TSan, and its atomics carry acquire/release
  # order under TSan because TSan does not model the fences the kernels use), and the copies between
  # devices their copies in both directions from several threads at once, the blocking reduce
  # its threads sharing one stream's result memory, and the cpu thread pool its jobs from several
  # threads and after gaps that its polling and sleeping workers see.
  # The one suppression, for third-party code: libomp keeps the threads of an OpenMP team in its
  # own pool when the thread that started the team (here a cpu stream's worker) exits, and never
  # joins them; TSan reports those as leaked threads created inside libomp. Threads gpucore
  # itself starts are joined, and tests/stress counts them (Bulk, Soak) to prove it.
  cat > build-tsan/tsan.supp <<'SUPP'
thread:libomp.so
SUPP
  OMP_TOOL_LIBRARIES=$ARCHER ARCHER_OPTIONS="verbose=1" \
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1:allocator_may_return_null=1:suppressions=$PWD/build-tsan/tsan.supp:external_symbolizer_path=$CLANG_BIN/llvm-symbolizer" \
    ctest --test-dir build-tsan --output-on-failure -j"$JOBS" -LE soak \
      -R '^(stress\.|CpuStream\.|CpuThreadPool\.|CpuEvent\.|loader\.Loader\.DiscoveryRacedFromManyThreadsRunsOnce$|loader\.gpu_table\.|.*StreamsEvents\.|.*BlockingOrder\.|simt(64|32)\.|wave(64|32)\.(Reduce|ReduceRows)$|multidevice\.Concurrency$|api\.BlockingReduce\.Threads)'
}

# ---- libFuzzer: bounded runs from the committed seeds ----------------------------------------------
run_fuzz() {
  log "libFuzzer targets (clang 14, ASan + UBSan), ${FUZZ_SECONDS}s each, in build-fuzz"
  local flags="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer"
  CC=$CLANG_BIN/clang CXX=$CLANG_BIN/clang++ cmake -S . -B build-fuzz "${common_cmake[@]}" \
    -DGPUCORE_BUILD_APPS=OFF -DGPUCORE_BUILD_FUZZERS=ON -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    "${clang_relax_undefined[@]}"
  local targets=(plugin_inspection plugin_path backend_selection)
  cmake --build build-fuzz -j"$JOBS" --target gpucore-template "${targets[@]/#/gpucore_fuzz_}"
  local failed=0
  for t in "${targets[@]}"; do
    # Absolute paths: a target may change its working directory (plugin_path runs in a scratch one).
    local work=$PWD/build-fuzz/fuzz-corpus/$t artifacts=$PWD/build-fuzz/fuzz-artifacts/$t
    rm -rf "$work" "$artifacts"
    mkdir -p "$work" "$artifacts"
    cp tests/fuzz/corpus/"$t"/* "$work"/
    [ -d tests/fuzz/regressions/"$t" ] && cp tests/fuzz/regressions/"$t"/* "$work"/
    if [ "$t" = plugin_inspection ]; then # real plugins as seeds, built here (not committed)
      find build-fuzz -name 'libgpucore-*.so' -type f -exec cp {} "$work"/ \;
    fi
    # rss_limit_mb/malloc_limit_mb: a plugin file must never make the inspection allocate more
    # than its two bounded tables (16 MiB each): a peak above 512 MB or one allocation above 64 MB
    # is a finding (the committed regression symbols_sharing_one_huge_name.so made a reader that
    # copies one string per symbol reach 450 MB). quarantine_size_mb=32 keeps ASan's own retained
    # memory well below that limit over a long run.
    # allocator_may_return_null=0 here: an over-large allocation must be a finding, not a NULL.
    # GPUCORE_LOG_LEVEL=off: every rejected selection and relative path entry is logged, millions
    # of lines in a minute; the findings are what matters here.
    if ! GPUCORE_LOG_LEVEL=off ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0:halt_on_error=1:quarantine_size_mb=32" \
         UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
         "$PWD"/build-fuzz/bin/gpucore_fuzz_"$t" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=512 \
           -malloc_limit_mb=64 -print_final_stats=1 -artifact_prefix="$artifacts"/ "$work"; then
      echo "ci_sanitizers: fuzz target $t found a problem; input(s): $(ls "$artifacts")" >&2
      failed=1
    fi
  done
  return "$failed"
}

for stage in "${stages[@]}"; do
  case "$stage" in
    asan) run_asan ;;
    tsan) run_tsan ;;
    fuzz) run_fuzz ;;
    *) echo "usage: $0 [asan] [tsan] [fuzz]" >&2; exit 2 ;;
  esac
done
log "all requested stages passed: ${stages[*]}"

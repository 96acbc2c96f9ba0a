#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gpucore-conformance --plugin tells a right plugin from a wrong one: the template passes, the
# "faulty" test plugin (the template with every output spoiled) fails, each run covering only the
# plugin's own device, with the verdict in the table and the exit status.
#
#   runner_test.sh <gpucore_conformance> <template plugin> <faulty plugin> <scratch dir>
set -euo pipefail
runner=$1 template=$2 faulty=$3 scratch=$4
mkdir -p "$scratch"
unset GPU_BACKEND GPUCORE_PLUGIN_PATH GTEST_FILTER
fail() { echo "FAIL: $*" >&2; exit 1; }
filter='Devices/VectorAdd.*:Devices/Transpose.*'

status=0
"$runner" --plugin "$template" --gtest_filter="$filter" >"$scratch/template.txt" 2>&1 || status=$?
[ "$status" -eq 0 ] || { tail -30 "$scratch/template.txt"; fail "the template failed (exit $status)"; }
grep -Eq '^VectorAdd +template:0 +[1-9][0-9]* +0 +0 +PASS$' "$scratch/template.txt" || { cat "$scratch/template.txt"; fail "no passing VectorAdd row for template:0"; }
grep -Eq '^total .* PASS$' "$scratch/template.txt" || fail "template: total is not PASS"

status=0
"$runner" --plugin "$faulty" --gtest_filter="$filter" >"$scratch/faulty.txt" 2>&1 || status=$?
[ "$status" -eq 1 ] || { tail -30 "$scratch/faulty.txt"; fail "the faulty plugin gave exit $status, expected 1"; }
grep -Eq '^VectorAdd +faulty:0 +[0-9]+ +[1-9][0-9]* +[0-9]+ +FAIL$' "$scratch/faulty.txt" || { sed -n '/^suite/,$p' "$scratch/faulty.txt"; fail "no failing VectorAdd row for faulty:0"; }
grep -Eq '^total .* FAIL$' "$scratch/faulty.txt" || fail "faulty: total is not FAIL"
grep -q '^failed tests' "$scratch/faulty.txt" || fail "faulty: failed tests are not listed"
for out in template faulty; do
  if grep -Eq 'cpu_0|cpu:0' "$scratch/$out.txt"; then fail "$out: the cpu device was tested too"; fi
done
echo "PASS: template passes, faulty fails, only the plugin's device tested"

#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the CPU speed targets in one run: `gpucore bench` on the cpu backend and the numpy
peers (tools/cpu_peers.py) on the same machine, one after the other, then prints the ratios.

  vector_add f32 2^26       >= 1.0x a plain OpenMP loop   (the peer runs inside `gpucore bench`)
  reduce sum f32 2^26       >= 1.5x numpy a.sum()
  transpose f32 8192x8192   >= 8x   numpy np.copyto(out, m.T)
  reduce and reduce_rows f16/bf16   GB/s >= 1.0x f32's at the same shape (timed in turn with it
                                    inside `gpucore bench`)

Usage: tools/cpu_targets.py [BUILD_DIR] [--json FILE]     (BUILD_DIR defaults to build)
Exit status: 0 all targets met, 1 a target missed, 2 a run failed.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv):
    json_out = None
    if "--json" in argv:
        i = argv.index("--json")
        json_out = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    build = argv[0] if argv else os.path.join(HERE, "..", "build")
    gpucore = os.path.join(build, "bin", "gpucore")
    with tempfile.TemporaryDirectory() as tmp:
        bench_json = os.path.join(tmp, "bench.json")
        peers_json = os.path.join(tmp, "peers.json")
        bench = subprocess.run([gpucore, "bench", "--device", "cpu", "--json", bench_json])
        if bench.returncode != 0:
            print(f"gpucore bench failed (exit {bench.returncode})", file=sys.stderr)
            return 2
        peers = subprocess.run([sys.executable, os.path.join(HERE, "cpu_peers.py"),
                                "--reduce-n", "2^26", "--transpose", "8192x8192",
                                "--json", peers_json], stdout=subprocess.DEVNULL)
        if peers.returncode != 0:
            print(f"tools/cpu_peers.py failed (exit {peers.returncode})", file=sys.stderr)
            return 2
        with open(bench_json) as f:
            cases = {r["name"]: r for r in json.load(f)["results"]}
        with open(peers_json) as f:
            peer_runs = json.load(f)["results"]

    def numpy_ms(op, shape):
        for r in peer_runs:
            if r["op"] == op and r["dtype"] == "f32" and r["shape"] == shape:
                return r["ms"]
        raise KeyError(f"cpu_peers.py reported no {op} f32 {shape}")

    rows = []
    add = cases["vector_add f32 2^26"]
    rows.append(("vector_add f32 2^26", "OpenMP loop", add["peer"]["speedup"], 1.0))
    red = cases["reduce sum f32 2^26"]
    rows.append(("reduce sum f32 2^26", "numpy sum", numpy_ms("reduce_sum", [2**26]) / red["ms"], 1.5))
    tr = cases["transpose f32 8192x8192"]
    rows.append(("transpose f32 8192x8192", "numpy copyto(out, m.T)",
                 numpy_ms("transpose", [8192, 8192]) / tr["ms"], 8.0))
    # A case whose in-turn pair did not fit in memory has only {"skipped": reason}: its target was
    # not measured, so it is not met.
    not_timed = []
    for name, case in cases.items():
        in_turn = case.get("in_turn")
        if in_turn is None:
            continue
        if "gbps_ratio" in in_turn:
            rows.append((name, in_turn["reference"] + " (GB/s)", in_turn["gbps_ratio"], 1.0))
        else:
            not_timed.append((name, in_turn.get("skipped", "")))

    print(f"\n{'case':32} {'peer':38} {'speedup':>8} {'target':>7}  result")
    missed = 0
    for name, peer, ratio, target in rows:
        ok = ratio >= target
        missed += not ok
        print(f"{name:32} {peer:38} {ratio:7.2f}x {target:6.1f}x  {'met' if ok else 'MISSED'}")
    for name, reason in not_timed:
        missed += 1
        print(f"{name:32} not timed in turn, target not measured: {reason}")
    if json_out:
        with open(json_out, "w") as f:
            json.dump([{"case": n, "peer": p, "speedup": r, "target": t} for n, p, r, t in rows], f, indent=1)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

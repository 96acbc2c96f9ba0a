#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Times numpy peers for the CPU backend's speed targets and prints one JSON object.

The CPU speed targets compare gpucore's CPU backend, in the same run on the same machine, with:
  reduce sum:  numpy's  a.sum()                      (pairwise, one thread)
  transpose:   numpy's  np.copyto(out, m.T)
  vector_add:  numpy's  np.add(a, b, out=c)          (for reference; the target's peer is an
                                                      OpenMP loop that `gpucore bench` times itself)
Each case is warmed up, then timed `--repeat` times; the median is reported, with the minimum and
the effective bandwidth (bytes read + written, 1e9 B/s). Inputs are random and larger than the
caches at the default sizes, so they are not cache-resident.

Usage: /usr/bin/python3 tools/cpu_peers.py [--reduce-n 67108864] [--transpose 8192x8192]
           [--add-n 67108864] [--dtype f32] [--repeat 11] [--warmup 2] [--json FILE]
Sizes accept comma-separated lists and powers written as 2^26. Exit status 2 when numpy is missing.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

DTYPES = {"f32": "float32", "f64": "float64", "i32": "int32", "u32": "uint32"}


def parse_count(text):
    text = text.strip()
    if "^" in text:
        base, exponent = text.split("^", 1)
        return int(base) ** int(exponent)
    return int(text)


def parse_counts(text):
    return [parse_count(part) for part in text.split(",") if part.strip()]


def parse_shapes(text):
    shapes = []
    for part in text.split(","):
        if not part.strip():
            continue
        rows, cols = part.lower().split("x", 1)
        shapes.append((parse_count(rows), parse_count(cols)))
    return shapes


def time_ms(fn, repeat, warmup):
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1e3)
    return samples


def random_array(np, rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.random(shape, dtype=np.float64).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def result(op, dtype, shape, peer, samples, traffic_bytes):
    median = statistics.median(samples)
    return {
        "op": op,
        "dtype": dtype,
        "shape": list(shape),
        "peer": peer,
        "ms": median,
        "min_ms": min(samples),
        "gbps": traffic_bytes / (median * 1e-3) / 1e9,
        "repeats": len(samples),
    }


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reduce-n", default="2^26", help="element counts for reduce sum")
    parser.add_argument("--transpose", default="8192x8192", help="ROWSxCOLS shapes for transpose")
    parser.add_argument("--add-n", default="2^26", help="element counts for vector_add ('' skips)")
    parser.add_argument("--dtype", default="f32", help="comma-separated: " + ",".join(DTYPES))
    parser.add_argument("--repeat", type=int, default=11, help="timed runs per case (median)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed runs first")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="also write the JSON object to FILE")
    args = parser.parse_args()
    if args.repeat < 1 or args.warmup < 0:
        parser.error("--repeat must be >= 1 and --warmup >= 0")
    dtypes = [d.strip() for d in args.dtype.split(",") if d.strip()]
    for d in dtypes:
        if d not in DTYPES:
            parser.error(f"unknown dtype {d!r}; expected one of {', '.join(DTYPES)}")
    try:
        reduce_ns = parse_counts(args.reduce_n)
        add_ns = parse_counts(args.add_n)
        shapes = parse_shapes(args.transpose)
    except ValueError as error:
        parser.error(f"bad size: {error}")

    try:
        import numpy as np
    except ImportError:
        print("cpu_peers.py: numpy is not installed (Debian: apt-get install python3-numpy; "
              "run with /usr/bin/python3)", file=sys.stderr)
        return 2

    rng = np.random.default_rng(args.seed)
    results = []
    for name in dtypes:
        dtype = np.dtype(DTYPES[name])
        for n in reduce_ns:
            a = random_array(np, rng, n, dtype)
            # dtype=a.dtype: accumulate in the element type, as gpucore does (numpy would widen ints).
            samples = time_ms(lambda: a.sum(dtype=dtype), args.repeat, args.warmup)
            results.append(result("reduce_sum", name, (n,), "numpy.sum", samples, n * dtype.itemsize))
            del a
        for rows, cols in shapes:
            m = random_array(np, rng, (rows, cols), dtype)
            out = np.empty((cols, rows), dtype=dtype)
            samples = time_ms(lambda: np.copyto(out, m.T), args.repeat, args.warmup)
            if not np.array_equal(out, m.T):
                raise SystemExit("cpu_peers.py: numpy transpose gave a wrong result")
            results.append(result("transpose", name, (rows, cols), "numpy.copyto(out, m.T)", samples,
                                  2 * rows * cols * dtype.itemsize))
            del m, out
        for n in add_ns:
            a = random_array(np, rng, n, dtype)
            b = random_array(np, rng, n, dtype)
            c = np.empty_like(a)
            samples = time_ms(lambda: np.add(a, b, out=c), args.repeat, args.warmup)
            results.append(result("vector_add", name, (n,), "numpy.add(a, b, out=c)", samples,
                                  3 * n * dtype.itemsize))
            del a, b, c

    report = {
        "tool": "cpu_peers",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "repeat": args.repeat,
        "warmup": args.warmup,
        "results": results,
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

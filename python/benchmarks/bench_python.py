#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Costs of the Python layer, against the C++ API in the same process (gpucore._timing):

  1. host time of one vector_add on 32 float32 elements: Python gpucore.vector_add(..., stream=s)
     against C++ gpucore::vector_add(s, a, b, c), both enqueue-only (each batch of calls is timed,
     then the stream synchronized untimed); target: Python at most 2 us above C++;
  2. vector_add at 2^26 float32 elements, GB/s (3 x 4 bytes per element) of Python over C++ for
     the same loop with a final synchronize; target: >= 0.98;
  3. DLPack exchange both ways: addresses equal before and after (no copy), and each direction's
     time at 2^10 and at 2^26 elements (a copy would grow 65536-fold);
  4. the value of a sum of 1024 float32 elements: gpucore.reduce(x) beside torch.sum(t).item() on
     a GPU, numpy.sum on cpu (median time per call; no target).

  PYTHONPATH=<build>/lib/python3.X/dist-packages python3 python/benchmarks/bench_python.py [--device cuda:0] [--json FILE]
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np

import gpucore
from gpucore._gpucore import _timing


def python_enqueue_ns(stream, n, batches, batch):
    device = stream.device
    a = gpucore.Buffer.from_numpy(np.ones(n, np.float32), device)
    b = gpucore.Buffer.from_numpy(np.full(n, 2, np.float32), device)
    c = gpucore.Buffer(n, "float32", device)
    add = gpucore.vector_add
    total = 0
    for _ in range(batches):
        start = time.perf_counter_ns()
        for _ in range(batch):
            add(a, b, c, stream=stream)
        total += time.perf_counter_ns() - start
        stream.synchronize()
    return total


def python_seconds(stream, n, iterations, warmup):
    device = stream.device
    a = gpucore.Buffer(n, "float32", device)
    b = gpucore.Buffer(n, "float32", device)
    c = gpucore.Buffer(n, "float32", device)
    a.fill(1.0)
    b.fill(2.0)
    c.fill(0.0)
    for _ in range(max(warmup, 1)):
        gpucore.vector_add(a, b, c, stream=stream)
    stream.synchronize()
    start = time.perf_counter()
    for _ in range(iterations):
        gpucore.vector_add(a, b, c, stream=stream)
    stream.synchronize()
    return time.perf_counter() - start


def exchange(device, n):
    """(addresses equal both ways, export us, import us) for n float32 elements: gpucore -> NumPy
    (cpu) or torch (GPU) with from_dlpack, and a NumPy array / torch tensor -> gpucore.from_dlpack."""
    buffer = gpucore.Buffer(n, "float32", device)
    buffer.fill(1.0)
    if device.backend == "cpu":
        to_other, address = np.from_dlpack, (lambda x: x.ctypes.data)
        foreign = np.ones(n, np.float32)
    else:
        import torch  # noqa: PLC0415: only on GPU devices

        to_other, address = torch.from_dlpack, (lambda x: x.data_ptr())
        foreign = torch.ones(n, device=torch.device("cuda", device.index))
    same = address(to_other(buffer)) == buffer.data_ptr and gpucore.from_dlpack(foreign).data_ptr == address(foreign)
    repeats = 200
    start = time.perf_counter()
    for _ in range(repeats):
        to_other(buffer)
    export_s = (time.perf_counter() - start) / repeats
    start = time.perf_counter()
    for _ in range(repeats):
        gpucore.from_dlpack(foreign)
    import_s = (time.perf_counter() - start) / repeats
    return same, export_s, import_s


def median_us(call, repeats=2000):
    for _ in range(100):
        call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        call()
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times) / 1e3


def reduce_value(device, n):
    """(gpucore us, peer name, peer us, values agree) for the value of a sum of n float32 elements."""
    values = np.random.default_rng(11).integers(-8, 8, n).astype(np.float32)  # exact sums either way
    x = gpucore.Buffer.from_numpy(values, device)
    ours = median_us(lambda: gpucore.reduce(x))
    if device.backend == "cpu":
        peer, theirs, want = "numpy.sum", median_us(lambda: values.sum()), float(values.sum())
    else:
        import torch  # noqa: PLC0415: only on GPU devices

        t = torch.from_numpy(values).to(torch.device("cuda", device.index))
        peer, theirs, want = "torch.sum(t).item()", median_us(lambda: torch.sum(t).item()), torch.sum(t).item()
    return ours, peer, theirs, gpucore.reduce(x) == want


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default=None, help="a selection such as cpu or cuda:0 (default: GPU_BACKEND)")
    parser.add_argument("--json", default=None, help="write the figures to this file")
    parser.add_argument("--repeats", type=int, default=7, help="repeats of each measurement (best and median kept)")
    parser.add_argument("--large-log2", type=int, default=26, help="log2 of the large vector_add's elements")
    args = parser.parse_args()

    device = gpucore.select_device(args.device) if args.device else gpucore.default_device()
    stream = gpucore.Stream(device)
    print(f"gpucore {gpucore.__version__} on {device} ({device.name}); Python {sys.version.split()[0]}")

    # 1. Host overhead at 32 elements, Python and C++ measured alternately.
    batches, batch = 200, 50
    calls = batches * batch
    py_ns, cpp_ns = [], []
    for _ in range(args.repeats):
        cpp_ns.append(_timing.vector_add_enqueue_ns(stream, 32, batches, batch) / calls)
        py_ns.append(python_enqueue_ns(stream, 32, batches, batch) / calls)
    overhead = min(py_ns) - min(cpp_ns)
    print(f"vector_add 32 elements, host ns per call: C++ {min(cpp_ns):.0f} (median {statistics.median(cpp_ns):.0f}), "
          f"Python {min(py_ns):.0f} (median {statistics.median(py_ns):.0f}); Python above C++: {overhead:.0f} ns "
          f"(target <= 2000: {'met' if overhead <= 2000 else 'NOT met'})")

    # 2. Bandwidth at 2^26 elements.
    n = 1 << args.large_log2
    # Each side warms its fresh buffers up as long as it then times them (a GPU's newly allocated
    # memory runs slow for its first milliseconds).
    iterations = 20 if device.backend != "cpu" else 5
    py_s, cpp_s = [], []
    for _ in range(args.repeats):
        cpp_s.append(_timing.vector_add_seconds(stream, n, iterations, iterations))
        py_s.append(python_seconds(stream, n, iterations, iterations))
    moved = 3 * 4 * n * iterations / 1e9
    cpp_gbps, py_gbps = moved / min(cpp_s), moved / min(py_s)
    ratio = py_gbps / cpp_gbps
    print(f"vector_add 2^{args.large_log2} elements: C++ {cpp_gbps:.1f} GB/s, Python {py_gbps:.1f} GB/s, "
          f"ratio {ratio:.3f} (target >= 0.98: {'met' if ratio >= 0.98 else 'NOT met'})")

    # 3. DLPack exchange.
    figures = {}
    for log2 in (10, args.large_log2):
        try:
            same, export_s, import_s = exchange(device, 1 << log2)
        except ImportError as missing:
            print(f"DLPack exchange: skipped ({missing.name} is needed for {device.backend} tensors)")
            break
        figures[log2] = {"same_address": same, "export_us": export_s * 1e6, "import_us": import_s * 1e6}
        other = "numpy" if device.backend == "cpu" else "torch"
        print(f"DLPack 2^{log2} elements: same address both ways {same}; gpucore -> {other} {export_s * 1e6:.1f} us, "
              f"{other} -> gpucore {import_s * 1e6:.1f} us")

    # 4. The value of a small reduction.
    try:
        ours, peer, theirs, agree = reduce_value(device, 1024)
        value = {"elements": 1024, "gpucore_us": ours, "peer": peer, "peer_us": theirs, "values_agree": agree}
        print(f"reduce value of 1024 float32: gpucore.reduce {ours:.1f} us, {peer} {theirs:.1f} us, "
              f"gpucore / peer {ours / theirs:.2f}; values agree {agree}")
    except ImportError as missing:
        value = None
        print(f"reduce value: skipped ({missing.name} is needed for {device.backend} tensors)")

    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({
                "device": str(device), "device_name": device.name,
                "small": {"elements": 32, "cpp_ns": cpp_ns, "python_ns": py_ns, "overhead_ns": overhead},
                "large": {"elements": n, "iterations": iterations, "cpp_gbps": cpp_gbps, "python_gbps": py_gbps,
                          "ratio": ratio},
                "dlpack": figures,
                "reduce_value": value,
            }, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

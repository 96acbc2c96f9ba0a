#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Bandwidth against size for each op, gpucore beside its peer and the copy ceiling.

    plot_benchmarks.py gpu_bench.json out.png|out.svg

Reads the "sweep" of gpucore_cuda_bench's JSON: one panel per op; x = bytes the op moves, y = GB/s
(1e9 B/s); the cudaMemcpy D2D curve (bytes read + written) is drawn in every panel.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    data = json.load(open(sys.argv[1]))
    sweep = data["sweep"]
    ops = [op for op in dict.fromkeys(p["op"] for p in sweep) if op != "copy"]
    copy = sorted((p["bytes"], p["gbps"]) for p in sweep if p["op"] == "copy")
    cols = 3
    rows = (len(ops) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    for ax, op in zip(axes.flat, ops):
        for impl in dict.fromkeys(p["impl"] for p in sweep if p["op"] == op):
            pts = sorted((p["bytes"], p["gbps"]) for p in sweep if p["op"] == op and p["impl"] == impl)
            style = "o-" if impl == "gpucore" else "s--"
            ax.plot([b for b, _ in pts], [g for _, g in pts], style, ms=3, label=impl)
        if copy:
            ax.plot([b for b, _ in copy], [g for _, g in copy], ":", color="gray", label="cudaMemcpy D2D")
        ax.set_xscale("log", base=2)
        ax.set_title(op, fontsize=9)
        ax.set_xlabel("bytes moved", fontsize=8)
        ax.set_ylabel("GB/s", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(ops):]:
        ax.axis("off")
    fig.suptitle(f"gpucore on {data['device']} (driver {data['driver']}, CUDA {data['cuda_runtime']}, "
                 f"{data['date']})", fontsize=9)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=72)


if __name__ == "__main__":
    main()

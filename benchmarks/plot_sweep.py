#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The speed sweep's plot: gpucore's ratio to the best peer against shape, one line per dtype.

    plot_sweep.py sweep.json out.png|out.svg

Reads gpucore_sweep_bench's JSON. One panel per op and shape group (vector_add and reduce against
elements; reduce_rows against columns, one panel per element count; transpose against the shape,
with the fraction of a D2D copy where no comparable peer exists). A dashed line marks 1.00x.
Without matplotlib it says so and exits 0: the JSON is the primary output.
"""
import json
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("plot_sweep.py: matplotlib is not installed; no plot (the JSON holds every result)")
    sys.exit(0)

DTYPES = ["f32", "f64", "i32", "u32", "f16", "bf16"]


def x_of(case):
    if case["op"] == "reduce_rows":
        return case["cols"]
    return case["n"]


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 1
    data = json.load(open(sys.argv[1]))
    cases = data["cases"]
    panels = list(dict.fromkeys((c["op"], c["group"]) for c in cases))
    cols = 3
    rows = max(1, (len(panels) + cols - 1) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.0 * cols, 3.6 * rows), squeeze=False)
    for ax, (op, group) in zip(axes.flat, panels):
        here = [c for c in cases if c["op"] == op and c["group"] == group]
        categorical = op == "transpose"
        labels = list(dict.fromkeys(c["shape"] for c in here)) if categorical else None
        for dtype in [d for d in DTYPES if any(c["dtype"] == d for c in here)]:
            pts = []
            for c in here:
                if c["dtype"] != dtype:
                    continue
                ratio = c.get("ratio")
                if ratio is None:  # no comparable peer: the copy fraction over its goal
                    ratio = c.get("copy_fraction", 0) / c.get("copy_goal", 1) if c.get("copy_goal") else None
                if ratio is None:
                    continue
                x = labels.index(c["shape"]) if categorical else x_of(c)
                pts.append((x, ratio))
            pts.sort()
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", ms=3, label=dtype)
        ax.axhline(1.0, color="grey", ls="--", lw=1)
        if categorical:
            ax.set_xticks(range(len(labels)))
            ax.set_xticklabels(labels, rotation=70, fontsize=6)
            ax.set_ylabel("vs best peer (16/64-bit: copy fraction / goal)", fontsize=7)
        else:
            ax.set_xscale("log", base=2)
            ax.set_xlabel("columns" if op == "reduce_rows" else "elements")
            ax.set_ylabel("best peer time / gpucore time")
        ax.set_title(f"{op} ({group})", fontsize=9)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.suptitle(f"gpucore speed sweep: {data.get('device', '?')}, {data.get('date', '')}", fontsize=10)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=130)
    print(f"wrote {sys.argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The lessons' ladders beside gpucore: a plot and a Markdown table from gpucore_ladder's JSON.

    plot_ladder.py ladder.json [--png out.png] [--markdown out.md]

--png: one panel per ladder (op and shape), a bar per rung (GB/s), the copy of the same bytes and
the theoretical peak as vertical lines (needs matplotlib). --markdown: the table BENCHMARKS.md
holds (rung, GB/s, % of peak, % of copy, verified, the lesson's claim); '-' where the device
reports no peak. With neither option the table goes to stdout.
"""
import argparse
import json
import sys

KIND_COLORS = {"lesson": "#8c8c8c", "gpucore": "#1f77b4", "copy": "#2ca02c"}


def percent(value):
    return "-" if value is None else f"{value:.1f}"


def verified(rung):
    return {True: "yes", False: "NO", None: "-"}[rung["verified"]]


def markdown(data):
    peak = data.get("peak_gbps")
    lines = [
        f"{data['device']} ({data['architecture']}, {data['backend']}, warp {data['warp_size']}), "
        f"{data['runtime']}, {data['date']}; theoretical peak "
        + (f"{peak:.0f} GB/s" if peak else "not reported") + ".",
        "",
        "| ladder | shape | rung | GB/s | % of peak | % of copy | verified | lesson's claim |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for ladder in data["ladders"]:
        for rung in ladder["rungs"]:
            lines.append(
                f"| {ladder['ladder']} | {ladder['shape']} | {rung['name']} | {rung['gbps']:.0f} | "
                f"{percent(rung['percent_of_peak'])} | {percent(rung['percent_of_copy'])} | "
                f"{verified(rung)} | {rung['claim'] or ''} |")
    checks = data["shape_checks"]
    passed = sum(1 for c in checks if c["passed"])
    lines += ["", f"Exact checks at awkward shapes: {passed} of {len(checks)} passed."]
    return "\n".join(lines) + "\n"


def plot(data, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ladders = data["ladders"]
    cols = 2
    rows = (len(ladders) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 * cols, 2.6 * rows), squeeze=False)
    peak = data.get("peak_gbps")
    for ax, ladder in zip(axes.flat, ladders):
        rungs = ladder["rungs"]
        names = [r["name"] for r in rungs][::-1]
        gbps = [r["gbps"] for r in rungs][::-1]
        colors = [KIND_COLORS.get(r["kind"], "#8c8c8c") for r in rungs][::-1]
        bars = ax.barh(names, gbps, color=colors)
        for bar, rung in zip(bars, rungs[::-1]):
            label = f" {rung['gbps']:.0f}"
            if rung["percent_of_peak"] is not None:
                label += f" ({rung['percent_of_peak']:.0f}% of peak)"
            ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, label, va="center", fontsize=7)
        if peak:
            ax.axvline(peak, color="black", linestyle=":", linewidth=1)
            ax.set_xlim(0, peak * 1.35)
        title = f"{ladder['ladder']} {ladder['shape']}"
        if peak:
            title += f" (dotted: theoretical peak, {peak:.0f} GB/s)"
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("GB/s", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(axis="x", alpha=0.3)
    for ax in list(axes.flat)[len(ladders):]:
        ax.axis("off")
    fig.suptitle(f"The lessons' ladders beside gpucore on {data['device']} ({data['runtime']}, "
                 f"{data['date']}); grey: lesson, blue: gpucore, green: copy", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=72)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json")
    parser.add_argument("--png")
    parser.add_argument("--markdown")
    args = parser.parse_args()
    with open(args.json) as f:
        data = json.load(f)
    if args.png:
        plot(data, args.png)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(data))
    if not args.png and not args.markdown:
        sys.stdout.write(markdown(data))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Figures from occbench results (schema_version 1): sweep, comparison, roofline, occupancy map,
occupancy sensitivity, for results of `occbench run --counters` a hierarchical roofline from
measured bytes, and for results of `occbench run --energy` time against energy with its Pareto
front and, over the sm_clock_mhz axis, energy against the SM clock (plots/energy.py), and for a
live search (run --strategy local|genetic|model) its progress point by point (plots/search.py).

    python3 plots/occplot.py RESULTS.json [more.json ...] [--out DIR] [--formats png,svg]
                             [--kinds sweep,compare,roofline,occupancy,sensitivity,hierarchy,energy,search]
    python3 plots/occplot.py --overlay A.json B.json ... [--out DIR] [--name overlay]

Every figure is written as each format, named <results stem>_<kind>[_<detail>], next to the results
file unless --out says otherwise. With --overlay the files (and the GPU models of a run --devices or
merged document) are drawn together, a series per GPU, in the sweep and comparison figures
(plots/overlay.py), named <name>_<kind>[_<detail>], next to the first file unless --out says
otherwise. Nothing here knows a family by name: what to draw is read from the
data (which parameters are sizes, which one is swept, which variant is the baseline).

Importable for tests: load_results() validates a file and figures_for() returns (slug, Figure)
pairs, so axes labels, legends and bar labels can be checked without looking at images.
"""

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # study.py and overlay.py, beside this script
from study import (  # noqa: E402
    ResultsError,
    load_results,
    field,
    number,
    short_number,
    speedup_label,
    spans_decades,
    Study,
    sizes_text,
    all_sizes_text,
    pick_swept_axis,
    use_param_axis,
    best_by_time,
    scatter_variants,
    figure_title,
    make_room_above,
    KINDS,
    OCCUPANCY_LIMIT,
    KNEE_TOLERANCE,
    MARKERS,
    LIMITER_SHORT,
)
import energy  # noqa: E402 (plots/energy.py: the figures of run --energy)
import search  # noqa: E402 (plots/search.py: a live search's progress)
import matplotlib  # noqa: E402 (study.py chose the Agg backend, or said what to install)
import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

# ---------------------------------------------------------------------------------------- sweep

def sweep_figures(study):
    """Median time against the swept parameter per variant, CGMA and occupancy linked below."""
    axis = pick_swept_axis(study, study.timed, numeric=True)
    if axis is None:
        return [], "no numeric parameter besides the sizes varies: no sweep chart"
    figures = []
    by_sizes = defaultdict(list)
    for row in study.timed:
        by_sizes[study.sizes_of(row)].append(row)
    for sizes, rows in sorted(by_sizes.items()):
        series, references = {}, {}
        for variant in study.variants:
            mine = [r for r in rows if r["variant"] == variant]
            swept = [r for r in mine if axis in r["params"]]
            if swept:
                # Other tuning axes of this variant are folded in: its best time at each value.
                best = {}
                for row in swept:
                    value = row["params"][axis]
                    best[value] = best_by_time([row] + ([best[value]] if value in best else []))
                series[variant] = [best[x] for x in sorted(best)]
            elif mine:
                references[variant] = best_by_time(mine)
        if not series:
            continue
        fig = Figure(figsize=(10.5, 9), layout="constrained")
        ax_time, ax_cgma, ax_occ = fig.subplots(
            3, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1.2, 1.2]})
        times, cgmas = [], []
        for order, (variant, points) in enumerate(series.items()):
            color, marker = study.style[variant]
            # Variants often coincide (static vs dynamic shared memory): later ones get smaller,
            # hollow markers so the earlier ones still show underneath.
            marks = {"color": color, "marker": marker, "markersize": max(4, 9 - 1.5 * order),
                     "markerfacecolor": color if order % 2 == 0 else "white"}
            xs = [p["params"][axis] for p in points]
            med = np.array([number(p, "timing.median_ms") for p in points])
            low = np.array([number(p, "timing.min_ms") or m for p, m in zip(points, med)])
            high = np.array([number(p, "timing.max_ms") or m for p, m in zip(points, med)])
            times += list(low) + list(high)
            ax_time.errorbar(xs, med, yerr=[np.clip(med - low, 0, None),
                                            np.clip(high - med, 0, None)],
                             capsize=3, label=variant, **marks)
            cgma = [(x, number(p, "work.cgma_flop_per_byte")) for x, p in zip(xs, points)]
            cgma = [(x, c) for x, c in cgma if c]
            cgmas += [c for _, c in cgma]
            if cgma:
                ax_cgma.plot(*zip(*cgma), **marks)
            for key, style in (("occupancy.theoretical", "-"),
                               ("occupancy.thread_utilization", ":"),
                               ("counters.achieved_occupancy", "--")):
                occ = [(x, number(p, key)) for x, p in zip(xs, points)]
                occ = [(x, o) for x, o in occ if o is not None]
                if occ:
                    ax_occ.plot(*zip(*occ), linestyle=style, **marks)
        # A variant without the swept axis (host loop, library call) is one line across; one far
        # off the swept range would squash the series it is there to compare, so it is only named.
        low_time, high_time = min(times), max(times)
        for variant, row in references.items():
            median = number(row, "timing.median_ms")
            label = f"{variant}: {median:.3g} ms (no {axis})"
            color = study.style[variant][0]
            if low_time / 10 <= median <= high_time * 10:
                ax_time.axhline(median, color=color, linestyle="--", linewidth=1.5, label=label)
                times.append(median)
            else:
                ax_time.plot([], [], color=color, linestyle="--", label=label + ", off scale")
        use_param_axis(ax_occ, [x for points in series.values() for x in
                                (p["params"][axis] for p in points)])
        ax_time.set_ylabel("median time (ms)\nerror bars: min–max")
        if spans_decades(times):
            ax_time.set_yscale("log")
        ax_time.grid(True, which="major", alpha=0.3)
        ax_time.legend(title="variant", loc="upper left", bbox_to_anchor=(1.01, 1.0),
                       fontsize=9)
        ax_cgma.set_ylabel("CGMA\n(FLOP/B)")
        if spans_decades(cgmas):
            ax_cgma.set_yscale("log", base=2)
            ax_cgma.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax_cgma.grid(True, alpha=0.3)
        ax_occ.set_ylabel("occupancy")
        ax_occ.set_ylim(0, 1.08)
        ax_occ.set_xlabel(axis)
        ax_occ.grid(True, alpha=0.3)
        occ_lines = [("-", "theoretical (warps)"), (":", "thread utilization")]
        if any(number(p, "counters.achieved_occupancy") is not None
               for points in series.values() for p in points):
            occ_lines.append(("--", "achieved (counters)"))
        ax_occ.legend(handles=[Line2D([], [], color="0.3", linestyle=style, marker="o")
                               for style, _ in occ_lines],
                      labels=[label for _, label in occ_lines],
                      loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9)
        note = study.left_out_note([r for r in study.rows if study.sizes_of(r) == sizes])
        figure_title(fig, f"median time vs {axis}, with CGMA and occupancy", study,
                     sizes_text(sizes) or "all sizes", note)
        slug = "sweep" + ("_" + "_".join(f"{k}{short_number(v)}" for k, v in sizes)
                          if len(by_sizes) > 1 else "")
        figures.append((slug, fig))
    return figures, ""


# -------------------------------------------------------------------------------------- compare

def compare_figure(study):
    """Each variant's best time per size next to the baseline's, with speedup labels; beside it
    the matching throughput (bandwidth if memory-bound, GFLOP/s if compute-bound) under its roof."""
    rows = study.timed
    size_groups = sorted({study.sizes_of(r) for r in rows})
    best = {}
    for row in rows:
        key = (study.sizes_of(row), row["variant"])
        best[key] = best_by_time([row] + ([best[key]] if key in best else []))
    baseline = study.baseline if any(v == study.baseline for _, v in best) else None
    variants = [v for v in study.variants if any((s, v) in best for s in size_groups)]
    if baseline:
        variants.remove(baseline)
        variants.insert(0, baseline)
    rate = throughput_panel(study, [r for (_, v), r in best.items()
                                    if v == (baseline or variants[0])])
    has_rates = any(number(r, rate["key"]) for r in best.values())

    width_per_group = max(2.0, 0.55 * len(variants))
    panels = 2 if has_rates else 1
    fig = Figure(figsize=(min(22, 4 + panels * width_per_group * len(size_groups)), 6),
                 layout="constrained")
    axes = fig.subplots(1, panels, squeeze=False)[0]
    ax_time = axes[0]
    bar_width = 0.8 / len(variants)
    times, rates, handles = [], [], []
    for index, variant in enumerate(variants):
        color, _ = study.style[variant]
        groups = [g for g, s in enumerate(size_groups) if (s, variant) in best]
        xs = [g + (index - (len(variants) - 1) / 2) * bar_width for g in groups]
        picked = [best[(size_groups[g], variant)] for g in groups]
        medians = [number(r, "timing.median_ms") for r in picked]
        times += medians
        bars = ax_time.bar(xs, medians, bar_width, color=color, label=variant)
        handles.append(bars)
        labels = []
        for g, median in zip(groups, medians):
            base = best.get((size_groups[g], baseline))
            labels.append("baseline" if variant == baseline else
                          speedup_label(number(base, "timing.median_ms"), median) if base else "")
        ax_time.bar_label(bars, labels=labels, rotation=90, padding=3, fontsize=8)
        if has_rates:
            values = [(x, number(r, rate["key"])) for x, r in zip(xs, picked)]
            values = [(x, v) for x, v in values if v]
            rates += [v for _, v in values]
            if values:
                bars = axes[1].bar(*zip(*values), bar_width, color=color, label=variant)
                if rate["roof"]:
                    axes[1].bar_label(bars, padding=2, fontsize=8, labels=[
                        percent(100 * v / rate["roof"]) for _, v in values])

    group_labels = [sizes_text(s, compact=True).replace(" ", "\n") for s in size_groups]
    for ax in axes:
        ax.set_xticks(range(len(size_groups)))
        ax.set_xticklabels(group_labels)
        ax.set_xlabel("problem size")
        ax.grid(True, axis="y", alpha=0.3)
    make_room_above(ax_time, times, log=spans_decades(times))
    ax_time.set_ylabel("best median time (ms), lower is better")
    ax_time.set_title(f"time; label: speedup vs {baseline}" if baseline else
                      "time (the config names no baseline: no speedup labels)", fontsize=10)
    if has_rates:
        ax_rate = axes[1]
        ax_rate.set_ylabel(rate["ylabel"])
        ax_rate.set_title(rate["title"], fontsize=10)
        if rate["roof"]:
            handles.append(ax_rate.axhline(rate["roof"], color="black", linestyle="--",
                                           linewidth=1.2, label=rate["roof_label"]))
            rates.append(rate["roof"])
        make_room_above(ax_rate, rates, log=spans_decades(rates), share=0.88)
    axes[-1].legend(handles=handles, title="variant", loc="upper left",
                    bbox_to_anchor=(1.01, 1.0), fontsize=9)
    figure_title(fig, "each variant's best time against the baseline", study,
                 all_sizes_text(study, rows), study.left_out_note(study.rows))
    return ("compare", fig)


def throughput_panel(study, reference_rows):
    """Bandwidth against the copy bandwidth for a memory-bound family, GFLOP/s against the FP32
    peak for a compute-bound one: decided by the reference variant's DRAM intensity against the
    device's ridge point (within a factor of 4, as kernels rarely reach the roof)."""
    measured = study.device.get("measured_bandwidth_gbps")
    bandwidth = measured or study.device.get("peak_bandwidth_gbps")
    peak_flops = study.device.get("peak_fp32_gflops")
    intensity = [number(r, "work.flops") / number(r, "work.dram_bytes") for r in reference_rows
                 if number(r, "work.flops") and number(r, "work.dram_bytes")]
    if intensity and bandwidth and peak_flops and np.median(intensity) > peak_flops / bandwidth / 4:
        return {"key": "metrics.gflops", "ylabel": "achieved GFLOP/s (best-time point)",
                "title": "throughput; label: % of FP32 peak", "roof": peak_flops,
                "roof_label": f"FP32 peak {peak_flops:,.0f} GFLOP/s"}
    which = "measured copy bandwidth" if measured else "peak bandwidth"
    return {"key": "metrics.achieved_bandwidth_gbps", "ylabel": "achieved DRAM bandwidth (GB/s)",
            "title": f"bandwidth; label: % of {which}", "roof": bandwidth,
            "roof_label": f"{which} {bandwidth:,.0f} GB/s" if bandwidth else None}


def percent(value):
    return f"{value:.2g}%" if value < 10 else f"{value:.0f}%"


# ------------------------------------------------------------------------------------- roofline

def roofline_axes(ax, x, flops, peak_flops, xlabel, ylabel, legend_below):
    """Log-log axes over the intensities `x`, room above the highest of `flops` and the peak."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x[0], x[-1])
    ax.set_ylim(min(flops) / 3, max(flops + [peak_flops or 0]) * 2.5)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -legend_below), ncol=3, fontsize=9)


def roofline_figure(study):
    """Each timed GPU point at (CGMA, GFLOP/s) under min(bandwidth × AI, FP32 peak)."""
    rows = [r for r in study.timed if number(r, "work.cgma_flop_per_byte")
            and number(r, "metrics.gflops") and field(r, "timing.mode") != "host"]
    if not rows:
        return None, "no timed GPU point with CGMA and GFLOP/s: no roofline"
    measured = study.device.get("measured_bandwidth_gbps")
    peak_bandwidth = study.device.get("peak_bandwidth_gbps")
    bandwidth = measured or peak_bandwidth
    peak_flops = study.device.get("peak_fp32_gflops")
    ai = [number(r, "work.cgma_flop_per_byte") for r in rows]
    flops = [number(r, "metrics.gflops") for r in rows]
    ridge = peak_flops / bandwidth if bandwidth and peak_flops else max(ai)
    x = np.geomspace(min(ai + [ridge]) / 4, max(ai + [ridge]) * 4, 400)

    fig = Figure(figsize=(10, 8), layout="constrained")
    ax = fig.subplots()
    if bandwidth and peak_flops:
        which = "measured" if measured else "peak"
        ax.plot(x, np.minimum(bandwidth * x, peak_flops), color="black", linewidth=2,
                label=f"roof: {which} {bandwidth:,.0f} GB/s × AI, FP32 peak "
                      f"{peak_flops:,.0f} GFLOP/s")
        if measured and peak_bandwidth and peak_bandwidth != measured:
            ax.plot(x, np.minimum(peak_bandwidth * x, peak_flops), color="black",
                    linestyle=":", linewidth=1, label=f"theoretical {peak_bandwidth:,.0f} GB/s")
    drawn = scatter_variants(ax, study, rows, lambda r: number(r, "work.cgma_flop_per_byte"),
                             lambda r: number(r, "metrics.gflops"), s=45, edgecolors="black", linewidths=0.4)
    for variant, mine in drawn.items():
        if variant.startswith("cublas"):
            library_best = max(number(r, "metrics.gflops") for r in mine)
            ax.axhline(library_best, color=study.style[variant][0], linestyle="-.", linewidth=1.2,
                       label=f"library ceiling: {variant} {library_best:,.0f} GFLOP/s")
            flops.append(library_best)
    roofline_axes(ax, x, flops, peak_flops,
                  "arithmetic intensity: CGMA (FLOP per byte of global-memory traffic)",
                  "achieved GFLOP/s", legend_below=0.13)
    ax.grid(True, which="minor", alpha=0.08)
    left_out = len(study.timed) - len(rows)
    note = study.left_out_note(study.rows)
    if left_out:
        note = "; ".join(filter(None, [note, f"{left_out} timed points without GPU "
                                             "CGMA/GFLOP/s (host loops) not drawn"]))
    figure_title(fig, "roofline", study, all_sizes_text(study, rows), note)
    return fig, ""


# ------------------------------------------------------------------------- hierarchical roofline

LEVELS = (("DRAM", "counters.intensity_dram_flop_per_byte", "measured_bandwidth_gbps",
           "copy bandwidth", "tab:red"),
          ("L2", "counters.intensity_l2_flop_per_byte", "measured_l2_bandwidth_gbps",
           "L2 read bandwidth", "tab:blue"),
          ("L1", "counters.intensity_l1_flop_per_byte", "measured_smem_bandwidth_gbps",
           "shared-memory bandwidth (L1 roof)", "tab:green"))


def hierarchical_roofline_figure(study):
    """Each timed GPU point with measured counters three times, at its measured arithmetic
    intensity at DRAM, L2 and L1 (work.flops ÷ bytes counted at that level) and its GFLOP/s, under
    the device's measured roof of that level. None when no point has counters and FLOPs."""
    rows = [r for r in study.timed if field(r, "counters.status") == "measured"
            and number(r, "metrics.gflops")]
    if not rows:
        return None
    peak_flops = study.device.get("peak_fp32_gflops")
    points = [number(r, key) for r in rows for _, key, *_ in LEVELS if number(r, key)]
    if not points:
        return None
    roofs = [(name, study.device.get(dev_key), label, color)
             for name, _, dev_key, label, color in LEVELS if study.device.get(dev_key)]
    ridges = [peak_flops / bw for _, bw, _, _ in roofs if peak_flops]
    x = np.geomspace(min(points + ridges) / 4, max(points + ridges) * 4, 400)
    fig = Figure(figsize=(10, 8), layout="constrained")
    ax = fig.subplots()
    for name, bandwidth, label, color in roofs:
        ax.plot(x, np.minimum(bandwidth * x, peak_flops) if peak_flops else bandwidth * x,
                color=color, linewidth=2, label=f"{name} roof: {label} {bandwidth:,.0f} GB/s")
    if peak_flops:
        ax.axhline(peak_flops, color="black", linestyle=":", linewidth=1,
                   label=f"FP32 peak {peak_flops:,.0f} GFLOP/s")
    flops = [number(r, "metrics.gflops") for r in rows]
    level_fill = {"DRAM": "tab:red", "L2": "tab:blue", "L1": "tab:green"}
    for variant in study.variants:
        mine = [r for r in rows if r["variant"] == variant]
        if not mine:
            continue
        color, marker = study.style[variant]
        for name, key, *_ in LEVELS:
            pts = [(number(r, key), number(r, "metrics.gflops")) for r in mine if number(r, key)]
            if pts:
                ax.scatter(*zip(*pts), marker=marker, s=45, color=level_fill[name],
                           edgecolors=color, linewidths=1.2, zorder=3)
        ax.scatter([], [], marker=marker, color="white", edgecolors=color, linewidths=1.2,
                   label=variant)
    for name, *_ in LEVELS:
        ax.scatter([], [], marker="s", color=level_fill[name], label=f"fill: {name} intensity")
    roofline_axes(ax, x, flops, peak_flops,
                  "measured arithmetic intensity (FLOP per byte counted at the level)",
                  "achieved GFLOP/s (median time)", legend_below=0.1)
    figure_title(fig, "hierarchical roofline from hardware counters", study,
                 all_sizes_text(study, rows),
                 "each point three times: at its DRAM, L2 and L1 bytes; marker edge: variant")
    return fig


# ------------------------------------------------------------------------------------ occupancy

def occupancy_figures(study):
    """Theoretical occupancy with the limiter in each cell, over variant × swept parameter (or two
    parameters of a lone variant). Uses every point with an occupancy, timed or not."""
    rows = [r for r in study.rows if number(r, "occupancy.theoretical") is not None]
    if not rows:
        return [], "no point has an occupancy: no occupancy map"
    figures = []
    remaining = [v for v in study.variants if any(r["variant"] == v for r in rows)]
    while remaining:
        # Variants that share the most varied parameter go into one map, variant × parameter.
        group_rows = [r for r in rows if r["variant"] in remaining]
        axis = pick_swept_axis(study, group_rows)
        members = [v for v in remaining if axis is None or
                   any(r["variant"] == v and axis in r["params"] for r in group_rows)]
        remaining = [v for v in remaining if v not in members]
        member_rows = [r for r in group_rows if r["variant"] in members]
        # A variant alone in its map with a second tuning axis gets that axis as rows instead.
        row_axis = "variant"
        if len(members) == 1 and axis:
            pairs = {(k, r["params"][k]) for r in member_rows for k in study.axes_of(r)}
            distinct = Counter(k for k, _ in pairs if k != axis)
            if distinct and max(distinct.values()) >= 2:
                row_axis = max(distinct, key=distinct.get)
        figures.append(occupancy_map(study, member_rows, row_axis, axis, members))
    return figures, ""


# ---------------------------------------------------------------------------------- sensitivity

def curve_label(row):
    rest = " ".join(f"{k}={v}" for k, v in row["params"].items() if k != OCCUPANCY_LIMIT)
    return f"{row['variant']} {rest}"


def sensitivity_curves(rows):
    """{curve label: timed forced rows sorted by theoretical occupancy} for the points that differ only
    in occupancy_limit (0, the unforced launch, is a reference, not a point of the curve); curves with
    fewer than two distinct occupancies are left out."""
    curves = defaultdict(list)
    for r in rows:
        if r["params"].get(OCCUPANCY_LIMIT, 0) != 0 and number(r, "occupancy.theoretical") is not None:
            curves[curve_label(r)].append(r)
    return {label: sorted(points, key=lambda r: number(r, "occupancy.theoretical"))
            for label, points in curves.items()
            if len({number(r, "occupancy.theoretical") for r in points}) >= 2}


def occupancy_knee(points):
    """The point of a curve (sorted by occupancy) with the lowest occupancy within 5% of the best."""
    best = min(number(r, "timing.median_ms") for r in points)
    return next(r for r in points if number(r, "timing.median_ms") <= (1 + KNEE_TOLERANCE) * best)


def sensitivity_figure(study):
    """Median time over the curve's best against theoretical occupancy (solid) and, where the
    records carry counters, achieved occupancy (dotted), one line per curve; the knee circled and
    the Little's-law prediction as a dashed vertical line in the curve's colour."""
    curves = sensitivity_curves(study.timed)
    if not curves:
        return None
    unforced = {curve_label(r): r for r in study.timed if r["params"].get(OCCUPANCY_LIMIT, None) == 0}
    any_prediction = False
    fig = Figure(figsize=(9, 5.5), layout="constrained")
    ax = fig.add_subplot()
    palette = matplotlib.colormaps["tab10"].colors
    for i, (label, points) in enumerate(curves.items()):
        colour, marker = palette[i % 10], MARKERS[i % len(MARKERS)]
        best = min(number(r, "timing.median_ms") for r in points)
        x = [number(r, "occupancy.theoretical") for r in points]
        y = [number(r, "timing.median_ms") / best for r in points]
        knee = occupancy_knee(points)
        ax.plot(x, y, marker=marker, color=colour, label=f"{label} (knee {number(knee, 'occupancy.theoretical'):.3f})")
        ax.plot([number(knee, "occupancy.theoretical")], [number(knee, "timing.median_ms") / best], "o", ms=14,
                mfc="none", mec=colour, mew=2)
        achieved = [(number(r, "counters.achieved_occupancy"), number(r, "timing.median_ms") / best) for r in points
                    if number(r, "counters.achieved_occupancy") is not None]
        if achieved:
            ax.plot(*zip(*achieved), ":", marker=marker, color=colour, mfc="none", label=f"{label}, achieved")
        if label in unforced and number(unforced[label], "occupancy.theoretical") is not None:
            ax.plot([number(unforced[label], "occupancy.theoretical")],
                    [number(unforced[label], "timing.median_ms") / best], "*", ms=13, color=colour)
        predicted = [number(r, "littles_law.predicted_knee_occupancy") for r in points]
        predicted = [p for p in predicted if p is not None]
        if predicted:
            ax.axvline(predicted[0], color=colour, ls="--", lw=1)
            any_prediction = True
    ax.set_xlabel("occupancy (resident warps / max warps per SM): theoretical, solid; achieved, dotted")
    ax.set_ylabel("median time / the curve's best")
    ax.set_yscale("log")
    times_formatter = FuncFormatter(lambda v, _: f"{v:g}x")
    ax.yaxis.set_major_formatter(times_formatter)
    ax.yaxis.set_minor_formatter(times_formatter)  # a narrow range has only minor ticks labelled
    ax.set_xlim(0, 1.05)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper right",
              handles=ax.get_legend_handles_labels()[0] + (
                  [Line2D([], [], color="grey", ls="--", lw=1, label="Little's-law predicted knee")] if any_prediction else []) + [
                  Line2D([], [], color="grey", marker="o", ms=12, mfc="none", ls="", label="knee (within 5% of best)")] + (
                  [Line2D([], [], color="grey", marker="*", ms=12, ls="",
                          label="occupancy_limit 0: unforced, default carveout")] if unforced else []))
    figure_title(fig, "occupancy sensitivity (occupancy_limit forced with shared-memory ballast)", study,
                 all_sizes_text(study, [r for points in curves.values() for r in points]))
    return fig


def param_getter(name):
    if name == "variant":
        return lambda row: row["variant"]
    return lambda row: row["params"].get(name, "") if name else ""


def occupancy_map(study, rows, row_label, col_label, members):
    row_key, col_key = param_getter(row_label), param_getter(col_label)
    row_values = members if row_label == "variant" else sorted({row_key(r) for r in rows},
                                                               key=sort_key)
    col_values = sorted({col_key(r) for r in rows}, key=sort_key)
    cells = defaultdict(list)
    for row in rows:
        cells[(row_key(row), col_key(row))].append(row)
    grid = np.full((len(row_values), len(col_values)), np.nan)
    folded = False
    fig = Figure(figsize=(max(8, 2.8 + 1.15 * len(col_values)),
                          max(3.6, 2.0 + 0.75 * len(row_values))), layout="constrained")
    ax = fig.subplots()
    texts = []
    any_achieved = False
    for i, r_value in enumerate(row_values):
        for j, c_value in enumerate(col_values):
            cell = cells.get((r_value, c_value))
            if not cell:
                texts.append((i, j, "n/a", 0.0))
                continue
            # Several points can share a cell (sizes, other tuning axes): show the best.
            best = max(cell, key=lambda r: number(r, "occupancy.theoretical"))
            occupancy = number(best, "occupancy.theoretical")
            folded |= len({number(r, "occupancy.theoretical") for r in cell}) > 1
            grid[i, j] = occupancy
            blocks = number(best, "occupancy.active_blocks_per_sm")
            limiter = field(best, "occupancy.limiter") or "?"
            achieved = number(best, "counters.achieved_occupancy")
            lines = [f"{occupancy:.2f}", f"{blocks:g} blk" if blocks is not None else "",
                     LIMITER_SHORT.get(limiter, limiter),
                     f"ach {achieved:.2f}" if achieved is not None else ""]
            any_achieved |= achieved is not None
            texts.append((i, j, "\n".join(filter(None, lines)), occupancy))
    image = ax.imshow(np.ma.masked_invalid(grid), cmap="viridis", vmin=0, vmax=1,
                      aspect="auto")
    image.cmap.set_bad("0.92")
    for i, j, text, occupancy in texts:
        ax.text(j, i, text, ha="center", va="center", fontsize=8,
                color="black" if occupancy > 0.6 or text == "n/a" else "white")
    ax.set_xticks(range(len(col_values)))
    ax.set_xticklabels([short_number(v) for v in col_values],
                       rotation=45 if len(col_values) > 10 else 0)
    ax.set_yticks(range(len(row_values)))
    ax.set_yticklabels([str(v) for v in row_values])
    ax.set_xlabel(col_label or "(no swept parameter)")
    ax.set_ylabel(row_label)
    colorbar = fig.colorbar(image, ax=ax)
    colorbar.set_label("theoretical occupancy\n(active ÷ max warps per SM)")
    note = "each cell: occupancy, active blocks per SM, limiter (regs: registers, smem: shared memory)"
    if any_achieved:
        note += ", achieved occupancy measured by the counters (ach)"
    if folded:
        note += "\ncells that hold several points show the highest"
    what = "theoretical occupancy and limiter"
    if row_label != "variant":
        what += " of " + ", ".join(members)
    figure_title(fig, what, study,
                 all_sizes_text(study, rows) or "all sizes", note)
    slug = "occupancy" + (f"_{col_label}" if col_label else "") + (
        f"_{row_label}" if row_label != "variant" else "")
    return slug, fig


def sort_key(value):
    return (0, value, "") if isinstance(value, (int, float)) else (1, 0, str(value))


# ----------------------------------------------------------------------------------------- main

def figures_for(doc, kinds=KINDS, notes=None):
    """(slug, Figure) for every figure of the requested kinds that the data supports; reasons for
    figures not drawn are appended to `notes`."""
    notes = [] if notes is None else notes
    families = defaultdict(list)
    for row in doc["results"]:
        family = row.get("family") or (doc.get("config") or {}).get("family") or "results"
        families[family].append(row)
    figures = []
    for family, rows in families.items():
        study = Study(doc, family, rows)
        prefix = f"{family}_" if len(families) > 1 else ""
        if not study.timed and set(kinds) & {"sweep", "compare", "roofline"}:
            notes.append(f"{family}: no timed points (run kind '{study.run_kind}'): "
                         "only the occupancy map can be drawn")
        elif study.timed:
            note = study.left_out_note(study.rows)
            if note:
                notes.append(f"{family}: {note}")
        produced, missing = [], []
        if "sweep" in kinds and study.timed:
            sweeps, why = sweep_figures(study)
            produced += sweeps
            missing.append(why)
        if "compare" in kinds and study.timed:
            produced.append(compare_figure(study))
        if "roofline" in kinds and study.timed:
            roofline, why = roofline_figure(study)
            produced += [("roofline", roofline)] if roofline else []
            missing.append(why)
        if "occupancy" in kinds:
            maps, why = occupancy_figures(study)
            produced += maps
            missing.append(why)
        if "sensitivity" in kinds and study.timed:
            sensitivity = sensitivity_figure(study)  # only sweeps over occupancy_limit have one
            produced += [("sensitivity", sensitivity)] if sensitivity else []
        if "hierarchy" in kinds and study.timed:
            # Only results of `run --counters` have measured bytes; others skip it silently.
            hierarchy = hierarchical_roofline_figure(study)
            produced += [("hierarchical_roofline", hierarchy)] if hierarchy else []
        if "energy" in kinds and study.timed:
            # Only results of `run --energy` have energy sections; others skip it silently.
            energy_figs, why = energy.energy_figures(study)
            produced += energy_figs
            missing.append(why)
        if "search" in kinds:
            # Only a live search (run --strategy local|genetic|model) has a progress figure.
            produced += search.progress_figures(doc, study)
        notes += [f"{family}: {why}" for why in missing if why]
        figures += [(prefix + slug, fig) for slug, fig in produced]
    return figures


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="+", help="occbench results JSON (schema_version 1)")
    parser.add_argument("--out", help="folder for the figures (default: beside each results file)")
    parser.add_argument("--formats", default="png,svg", help="comma list (default png,svg)")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help=f"comma list of {', '.join(KINDS)} (default all)")
    parser.add_argument("--overlay", action="store_true",
                        help="draw all files together, a series per device (sweep and compare)")
    parser.add_argument("--name", default="overlay", help="--overlay: the figures' file name stem")
    args = parser.parse_args(argv)
    args.kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in args.kinds if k not in KINDS]
    if unknown:
        parser.error(f"--kinds: unknown {', '.join(unknown)}; expected some of {', '.join(KINDS)}")
    args.formats = [f.strip().lstrip(".") for f in args.formats.split(",") if f.strip()]
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        # Check every file before drawing any, so a typo fails fast and leaves nothing half done.
        docs = [(Path(path), load_results(path)) for path in args.results]
    except ResultsError as error:
        print(f"occplot: error: {error}", file=sys.stderr)
        return 2
    if args.overlay:
        import overlay  # noqa: PLC0415 (plots/overlay.py, beside this script)
        notes = []
        figures = overlay.overlay_figures(docs, args.kinds, notes)
        for note in notes:
            print(f"overlay: {note}")
        save_figures(figures, Path(args.out) if args.out else docs[0][0].parent, args.name, args.formats)
        return 0
    for path, doc in docs:
        out_dir = Path(args.out) if args.out else path.parent
        out_dir.mkdir(parents=True, exist_ok=True)
        notes = []
        figures = figures_for(doc, args.kinds, notes)
        for note in notes:
            print(f"{path}: {note}")
        save_figures(figures, out_dir, path.stem, args.formats)
    return 0


def save_figures(figures, out_dir, stem, formats):
    out_dir.mkdir(parents=True, exist_ok=True)
    for slug, fig in figures:
        for fmt in formats:
            target = out_dir / f"{stem}_{slug}.{fmt}"
            fig.savefig(target, dpi=130)
            print(f"wrote {target}")


if __name__ == "__main__":
    sys.exit(main())

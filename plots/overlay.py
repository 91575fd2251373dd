"""Several results files in one figure, a series per device: `occplot.py --overlay A.json B.json`.

Each GPU is one source: a single-GPU results file is one; a document of `run --devices` or
`occbench merge` (a `devices` array, each point's `device` index) is one per device record. The
sweep figure draws each source's median time against the swept parameter (colour: variant, line
and marker fill: device) with each device's time relative to the first device's below; the
comparison figure puts each variant's best time and achieved bandwidth side by side per device,
with each device's measured copy bandwidth as its roof. Points are matched by point id.
"""
from collections import defaultdict
from pathlib import Path

from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from study import Study, best_by_time, make_room_above, number, pick_swept_axis, short_number, sizes_text, spans_decades, use_param_axis

LINESTYLES = ("-", "--", ":", "-.")


class Source:
    """The points one GPU measured, from one file."""

    def __init__(self, label, device, rows, doc, path):
        self.label, self.device, self.rows, self.doc, self.path = label, device, rows, doc, Path(path)


def sources_from(named_docs):
    """[(path, doc)] -> [Source], one per GPU model, with labels unique across them.

    A document of several GPUs (run --devices, occbench merge) is split by device only where the
    models differ: GPUs of one model measured disjoint points of one sweep, which belong together."""
    sources = []
    for path, doc in named_docs:
        devices = doc.get("devices")
        models = {short_name(d) for d in devices} if isinstance(devices, list) else set()
        if len(models) > 1:
            for index, device in enumerate(devices):
                rows = [r for r in doc["results"] if r.get("device") == index]
                if rows:
                    ordinal = device.get("ordinal", index)
                    sources.append(Source(f"{short_name(device)} #{ordinal}", device, rows, doc, path))
        else:
            label = short_name(doc.get("device") or {})
            if isinstance(devices, list) and len(devices) > 1:
                label += f" ×{len(devices)}"
            sources.append(Source(label, doc.get("device") or {}, doc["results"], doc, path))
    counts = defaultdict(int)
    for source in sources:
        counts[source.label] += 1
    for source in sources:
        if counts[source.label] > 1:
            source.label += f" ({source.path.stem})"
    return sources


def short_name(device):
    return (device.get("name") or "unknown device").replace("NVIDIA ", "")


def device_style(index):
    return {"linestyle": LINESTYLES[index % len(LINESTYLES)],
            "markerfacecolor": None if index == 0 else "white"}


def studies_by_family(sources):
    """{family: [(source, Study)]} for the families every source measured with timings."""
    per_family = defaultdict(list)
    for source in sources:
        groups = defaultdict(list)
        for row in source.rows:
            family = row.get("family") or (source.doc.get("config") or {}).get("family") or "results"
            groups[family].append(row)
        for family, rows in groups.items():
            doc = dict(source.doc, device=source.device)
            per_family[family].append((source, Study(doc, family, rows)))
    return per_family


def overlay_sweep(family, pairs):
    """Median time against the swept parameter, a line per (device, variant); below, each
    device's time over the first device's at the same point."""
    first = pairs[0][1]
    timed = [r for _, study in pairs for r in study.timed]
    axis = pick_swept_axis(first, timed, numeric=True)
    if axis is None:
        return [], "no numeric parameter besides the sizes varies: no overlaid sweep"
    variants = list(dict.fromkeys(v for _, study in pairs for v in study.variants))
    palette = colormaps["tab10"].colors
    color = {v: palette[i % 10] for i, v in enumerate(variants)}
    size_groups = sorted({first.sizes_of(r) for _, s in pairs for r in s.timed}, key=str)
    figures = []
    for sizes in size_groups:
        fig = Figure(figsize=(11, 8), layout="constrained")
        ax_time, ax_ratio = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1.4]})
        reference = {}  # (variant, x) -> the first device's median
        times, xs_all, drawn = [], [], []
        for index, (source, study) in enumerate(pairs):
            for variant in variants:
                best = {}
                for row in study.timed:
                    if row["variant"] != variant or study.sizes_of(row) != sizes or axis not in row["params"]:
                        continue
                    x = row["params"][axis]
                    best[x] = best_by_time([row] + ([best[x]] if x in best else []))
                if not best:
                    continue
                xs = sorted(best)
                medians = [number(best[x], "timing.median_ms") for x in xs]
                times += medians
                xs_all += xs
                drawn += [variant] if variant not in drawn else []
                style = dict(device_style(index), color=color[variant], marker="o", markersize=5)
                ax_time.plot(xs, medians, **style)
                if index == 0:
                    reference.update({(variant, x): m for x, m in zip(xs, medians)})
                else:
                    ratio = [(x, m / reference[(variant, x)]) for x, m in zip(xs, medians) if (variant, x) in reference]
                    if ratio:
                        ax_ratio.plot(*zip(*ratio), **style)
        if not times:
            continue
        use_param_axis(ax_ratio, xs_all)
        if spans_decades(times):
            ax_time.set_yscale("log")
        ax_time.set_ylabel("median time (ms)")
        ax_time.grid(True, alpha=0.3)
        ax_ratio.axhline(1.0, color="0.4", linewidth=1)
        ax_ratio.set_ylabel(f"time / {pairs[0][0].label}'s\n(below 1: faster)")
        ax_ratio.set_xlabel(axis)
        ax_ratio.grid(True, alpha=0.3)
        handles = [Line2D([], [], color=color[v], marker="o", linestyle="-", label=v) for v in drawn]
        handles += [Line2D([], [], color="0.3", marker="o", label=source.label, **device_style(i))
                    for i, (source, _) in enumerate(pairs)]
        ax_time.legend(handles=handles, title="variant · device", loc="upper left",
                       bbox_to_anchor=(1.01, 1.0), fontsize=9)
        devices = " vs ".join(source.label for source, _ in pairs)
        fig.suptitle(f"{family}: median time vs {axis}, by device\n{devices}  ·  "
                     f"{sizes_text(sizes) or 'all sizes'}", fontsize=11)
        slug = "sweep" + ("_" + "_".join(f"{k}{short_number(v)}" for k, v in sizes)
                          if len(size_groups) > 1 else "")
        figures.append((slug, fig))
    return figures, ""


def overlay_compare(family, pairs):
    """Each variant's best time at each size, a bar per device; beside it the achieved bandwidth
    against each device's own measured copy bandwidth."""
    first = pairs[0][1]
    keys = []
    best = {}
    for index, (_, study) in enumerate(pairs):
        for row in study.timed:
            key = (study.sizes_of(row), row["variant"])
            if key not in keys:
                keys.append(key)
            previous = best.get((index, key))
            best[(index, key)] = best_by_time([row] + ([previous] if previous else []))
    keys = [k for k in keys if all((i, k) in best for i in range(len(pairs)))]  # measured on every device
    if not keys:
        return None, "no variant and size was timed on every device: no overlaid comparison"
    order = {v: i for i, v in enumerate(first.variants)}
    keys.sort(key=lambda k: (str(k[0]), order.get(k[1], 99)))
    fig = Figure(figsize=(min(24, 5 + 0.9 * len(keys) * len(pairs)), 6.5), layout="constrained")
    ax_time, ax_bw = fig.subplots(1, 2)
    width = 0.8 / len(pairs)
    palette = colormaps["Set2"].colors
    times, rates = [], []
    for index, (source, _) in enumerate(pairs):
        xs = [k + (index - (len(pairs) - 1) / 2) * width for k in range(len(keys))]
        rows = [best[(index, key)] for key in keys]
        medians = [number(r, "timing.median_ms") for r in rows]
        times += medians
        color = palette[index % len(palette)]
        bars = ax_time.bar(xs, medians, width, color=color, label=source.label)
        if index > 0:
            base = [number(best[(0, key)], "timing.median_ms") for key in keys]
            ax_time.bar_label(bars, labels=[f"{b / m:.2f}×" for b, m in zip(base, medians)],
                              rotation=90, padding=3, fontsize=8)
        bandwidth = [(x, number(r, "metrics.achieved_bandwidth_gbps")) for x, r in zip(xs, rows)]
        bandwidth = [(x, b) for x, b in bandwidth if b]
        if bandwidth:
            ax_bw.bar(*zip(*bandwidth), width, color=color, label=source.label)
            rates += [b for _, b in bandwidth]
        copy = source.device.get("measured_bandwidth_gbps")
        if copy:
            ax_bw.axhline(copy, color=color, linestyle="--", linewidth=1.3,
                          label=f"{source.label} copy {copy:.0f} GB/s")
            rates.append(copy)
    labels = [f"{variant}\n{sizes_text(sizes, compact=True)}" for sizes, variant in keys]
    for ax in (ax_time, ax_bw):
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
    make_room_above(ax_time, times, log=spans_decades(times))
    ax_time.set_ylabel("best median time (ms), lower is better")
    ax_time.set_title(f"time; label: {pairs[0][0].label}'s time / this device's", fontsize=10)
    ax_bw.set_ylabel("achieved bandwidth (GB/s, minimal DRAM bytes / median)")
    ax_bw.set_title("bandwidth; dashed: each device's measured copy bandwidth", fontsize=10)
    if rates:
        make_room_above(ax_bw, rates, log=spans_decades(rates), share=0.88)
    ax_bw.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9)
    fig.suptitle(f"{family}: each variant's best time and bandwidth, by device\n"
                 + " vs ".join(source.label for source, _ in pairs), fontsize=11)
    return fig, ""


def overlay_figures(named_docs, kinds=("sweep", "compare"), notes=None):
    """(slug, Figure) pairs for the overlaid sweep and comparison figures of every family."""
    notes = [] if notes is None else notes
    sources = sources_from(named_docs)
    figures = []
    per_family = studies_by_family(sources)
    for family, pairs in per_family.items():
        pairs = [(source, study) for source, study in pairs if study.timed]
        if len(pairs) < 2:
            notes.append(f"{family}: timed on {len(pairs)} device(s): nothing to overlay")
            continue
        prefix = f"{family}_" if len(per_family) > 1 else ""
        if "sweep" in kinds:
            sweeps, why = overlay_sweep(family, pairs)
            figures += [(prefix + slug, fig) for slug, fig in sweeps]
            if why:
                notes.append(f"{family}: {why}")
        if "compare" in kinds:
            fig, why = overlay_compare(family, pairs)
            if fig:
                figures.append((prefix + "compare", fig))
            else:
                notes.append(f"{family}: {why}")
    return figures

"""Energy figures for results of `occbench run --energy` (occplot.py draws them as kind 'energy'):

- energy_front: median time against joules per launch, every point of one size, each variant its own
  colour and marker, with the Pareto front (the points no other beats in both) as a step line and the
  fastest and least-energy points named, as `occbench report` names them;
- energy_clock: for a sweep over the sm_clock_mhz axis, joules per launch (solid) and the median time
  (dashed, right axis) against the SM clock measured on the GPU, one curve per variant and launch,
  the least-energy clock starred.
"""
from collections import defaultdict

from study import figure_title, number, scatter_variants, sizes_text, spans_decades
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

SM_CLOCK = "sm_clock_mhz"


def energy_rows(study):
    """Timed rows with an energy reading."""
    return [r for r in study.timed
            if (r.get("energy") or {}).get("status") == "ok" and number(r, "energy.joules_per_launch")]


def pareto_front(rows):
    """The rows no other row beats in both median and joules per launch, fastest first."""
    front = []
    for row in sorted(rows, key=lambda r: (number(r, "timing.median_ms"), number(r, "energy.joules_per_launch"))):
        if not front or number(row, "energy.joules_per_launch") < number(front[-1], "energy.joules_per_launch"):
            front.append(row)
    return front


def by_sizes(study, rows):
    groups = defaultdict(list)
    for row in rows:
        groups[study.sizes_of(row)].append(row)
    return groups


def joules_scale(values):
    """(factor, unit) to print joules per launch with."""
    top = max(values)
    return (1.0, "J") if top >= 0.1 else (1e3, "mJ") if top >= 1e-4 else (1e6, "µJ")


def front_figure(study, sizes, rows):
    fig = Figure(figsize=(8.5, 5.8), layout="constrained")
    ax = fig.add_subplot()
    factor, unit = joules_scale([number(r, "energy.joules_per_launch") for r in rows])
    scatter_variants(ax, study, rows, lambda r: number(r, "timing.median_ms"),
                     lambda r: factor * number(r, "energy.joules_per_launch"), s=42)
    capped = [r for r in rows if (r.get("energy") or {}).get("at_power_limit")]
    if capped:  # read at the board's power limit: ringed
        ax.scatter([number(r, "timing.median_ms") for r in capped],
                   [factor * number(r, "energy.joules_per_launch") for r in capped],
                   s=140, facecolors="none", edgecolors="crimson", linewidths=1.2, zorder=1, label="at the power limit")
    front = pareto_front(rows)
    ax.step([number(r, "timing.median_ms") for r in front],
            [factor * number(r, "energy.joules_per_launch") for r in front],
            where="post", color="0.3", linewidth=1.2, linestyle="--", zorder=2)
    fastest = front[0]
    least = min(rows, key=lambda r: number(r, "energy.joules_per_launch"))
    for row, what in ((fastest, "fastest"), (least, "least energy")):
        if least is fastest:
            what = "fastest, least energy"
        ax.annotate(f"{what}\n{row['variant']} " + " ".join(f"{k}={v}" for k, v in row["params"].items()
                                                          if k not in study.size_keys),
                    (number(row, "timing.median_ms"), factor * number(row, "energy.joules_per_launch")),
                    xytext=(12, 12 if what != "fastest" else -26), textcoords="offset points", fontsize=8,
                    arrowprops={"arrowstyle": "-", "color": "0.4"})
        if row is fastest and row is least:
            break
    times = [number(r, "timing.median_ms") for r in rows]
    joules = [number(r, "energy.joules_per_launch") for r in rows]
    if spans_decades(times):
        ax.set_xscale("log")
    if spans_decades(joules):
        ax.set_yscale("log")
    ax.set_xlabel("median time per launch (ms, cold)")
    ax.set_ylabel(f"energy per launch ({unit}, launches back to back)")
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], color="0.3", linestyle="--"))
    labels.append("Pareto front")
    ax.legend(handles, labels, fontsize=8, loc="best")
    saving = 1 - number(least, "energy.joules_per_launch") / number(fastest, "energy.joules_per_launch")
    cost = number(least, "timing.median_ms") / number(fastest, "timing.median_ms") - 1
    note = ("the fastest point is also the least-energy one" if least is fastest else
            f"least energy vs fastest: {100 * saving:.1f}% less energy, {100 * cost:+.1f}% time")
    figure_title(fig, "time against energy per launch", study, sizes_text(sizes), note)
    return fig


def clock_curves(study, rows):
    """{(variant, other launch params, sizes): rows sorted by measured clock} for rows with sm_clock_mhz."""
    curves = defaultdict(list)
    for row in rows:
        if SM_CLOCK not in row["params"] or number(row, "sm_clock.observed_sm_mhz") is None:
            continue
        rest = " ".join(f"{k}={v}" for k, v in row["params"].items() if k != SM_CLOCK and k not in study.size_keys)
        curves[(row["variant"], rest, study.sizes_of(row))].append(row)
    return {key: sorted(points, key=lambda r: number(r, "sm_clock.observed_sm_mhz"))
            for key, points in curves.items() if len(points) >= 2}


def clock_figure(study, rows):
    curves = clock_curves(study, rows)
    if not curves:
        return None
    fig = Figure(figsize=(9, 5.8), layout="constrained")
    ax = fig.add_subplot()
    time_ax = ax.twinx()
    for (variant, rest, sizes), points in curves.items():
        colour, marker = study.style[variant]
        label = f"{variant} {rest}".strip()
        locked = [r for r in points if r["params"][SM_CLOCK] != 0]
        clocks = [number(r, "sm_clock.observed_sm_mhz") for r in locked]
        ax.plot(clocks, [number(r, "energy.joules_per_launch") for r in locked], color=colour, marker=marker, label=label)
        time_ax.plot(clocks, [number(r, "timing.median_ms") for r in locked], color=colour, linestyle="--", alpha=0.7)
        for r in points:
            if r["params"][SM_CLOCK] == 0:  # the driver's default clocks, where the clock was measured
                ax.scatter([number(r, "sm_clock.observed_sm_mhz")], [number(r, "energy.joules_per_launch")],
                           facecolors="none", edgecolors=colour, s=120, zorder=4)
        best = min(locked or points, key=lambda r: number(r, "energy.joules_per_launch"))
        ax.scatter([number(best, "sm_clock.observed_sm_mhz")], [number(best, "energy.joules_per_launch")],
                   marker="*", s=220, color=colour, edgecolors="black", zorder=5)
    ax.set_xlabel("SM clock (MHz, measured on the GPU while locked by sm_clock_mhz)")
    ax.set_ylabel("energy per launch (J, solid)")
    time_ax.set_ylabel("median time per launch (ms, dashed)")
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    handles += [Line2D([], [], marker="*", color="0.3", linestyle="", markersize=12),
                Line2D([], [], marker="o", markerfacecolor="none", color="0.3", linestyle="", markersize=10)]
    labels += ["least energy", "default clocks (sm_clock_mhz 0)"]
    ax.legend(handles, labels, fontsize=8, loc="upper center")
    figure_title(fig, "energy and time against the SM clock", study, "; ".join(sorted({sizes_text(k[2]) for k in curves})))
    return fig


def energy_figures(study):
    """(slug, Figure) pairs, and why none were drawn ('' when some were)."""
    rows = energy_rows(study)
    if not rows:
        return [], ""  # a run without --energy: nothing to say
    figures = []
    groups = by_sizes(study, rows)
    for sizes, members in groups.items():
        slug = "energy_front" + ("_" + "_".join(f"{k}{v}" for k, v in sizes) if len(groups) > 1 else "")
        figures.append((slug, front_figure(study, sizes, members)))
    clock = clock_figure(study, rows)
    if clock:
        figures.append(("energy_clock", clock))
    return figures, ""

#!/usr/bin/env python3
"""Search figures.

- Of `occbench replay --out REPLAY.json`: for each space (one size of the replayed run), the
  fraction of the optimum found against the points evaluated, one line per strategy (the median
  over seeds) with its quartiles as a band, the 95% line and the 5%-of-the-space budget marked.

      python3 plots/search.py REPLAY.json [--out DIR] [--formats png,svg]

  Written as <replay stem>_search[_<n>] beside the file unless --out says otherwise.
- Of a live search (`occbench run --strategy local|genetic|model`, drawn by occplot.py as kind
  'search'): each point's objective in the order the strategy chose it, coloured by variant, the
  failed ones marked, and the best so far as a step line.

Importable for tests: search_figures() and progress_figures() return (slug, Figure) pairs.
"""

import argparse
import json
import sys
from pathlib import Path

from matplotlib.figure import Figure

COLOURS = {"random": "0.45", "local": "tab:blue", "genetic": "tab:green", "model": "tab:red", "model_plan": "tab:purple"}
SEARCHES = ("local", "genetic", "model")


def space_figure(replay, space):
    fig = Figure(figsize=(8.5, 5.4), layout="constrained")
    ax = fig.add_subplot()
    total = space["points"]
    for strategy in space["strategies"]:
        steps = strategy["steps"]
        x = [s["points"] for s in steps]
        colour = COLOURS.get(strategy["name"])
        ax.plot(x, [s["median"] for s in steps], label=strategy["name"], color=colour,
                linewidth=2.2 if strategy["name"] != "random" else 1.6,
                linestyle="--" if strategy["name"] == "random" else "-")
        ax.fill_between(x, [s["lower_quartile"] for s in steps], [s["upper_quartile"] for s in steps],
                        color=colour, alpha=0.12, linewidth=0)
    ax.axhline(0.95, color="0.3", linewidth=0.8, linestyle=":")
    ax.text(1, 0.95, " 95% of the optimum", va="bottom", fontsize=8, color="0.3")
    five = max(1, round(0.05 * total))
    ax.axvline(five, color="0.3", linewidth=0.8, linestyle=":")
    ax.text(five, 0.02, " 5% of the space", fontsize=8, color="0.3", rotation=90, va="bottom")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.03)
    ax.set_xlabel(f"points evaluated (of {total}; log scale)")
    ax.set_ylabel(f"fraction of the optimum found ({replay['objective']})")
    sizes = space["sizes"] or "one size"
    device = replay.get("device", "")
    ax.set_title(f"Search replayed on {Path(replay['replay_of']).name}: {sizes}\n"
                 f"{device}{', ' if device else ''}median and quartiles of {replay['seeds']} seeds", fontsize=10)
    ax.legend(title="strategy", loc="lower right")
    ax.grid(True, which="both", alpha=0.25)
    return fig


def search_figures(replay):
    spaces = replay.get("spaces", [])
    return [("search" if len(spaces) == 1 else f"search_{i + 1}", space_figure(replay, space))
            for i, space in enumerate(spaces)]


def objective_of(strategy):
    """(dotted field, maximise?) of a run's strategy block."""
    text = strategy.get("objective") or "timing.median_ms"
    field, _, direction = text.partition(":")
    return field, direction == "max"


def value_at(row, field):
    node = row
    for key in field.split("."):
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, (int, float)) and not isinstance(node, bool) else None


def progress_figures(doc, study):
    """The progress of a live search: [] for runs that were not a search."""
    strategy = (doc.get("run") or {}).get("strategy") or {}
    if strategy.get("name") not in SEARCHES:
        return []
    field, maximise = objective_of(strategy)
    fig = Figure(figsize=(8.5, 5.2), layout="constrained")
    ax = fig.add_subplot()
    values, best, best_line = [], None, []
    for i, row in enumerate(study.rows, start=1):
        value = value_at(row, field) if row.get("status") == "ok" else None
        values.append((i, row, value))
        if value is not None and (best is None or (value > best if maximise else value < best)):
            best = value
        best_line.append(best)
    for variant in study.variants:
        colour, marker = study.style[variant]
        points = [(i, v) for i, r, v in values if v is not None and r["variant"] == variant]
        if points:
            ax.scatter([i for i, _ in points], [v for _, v in points], color=colour, marker=marker, s=22, label=variant, zorder=3)
    failed = [i for i, _, v in values if v is None]
    known = [v for _, _, v in values if v is not None]
    if failed and known:
        top = max(known) if not maximise else min(known)
        ax.scatter(failed, [top] * len(failed), marker="x", color="0.4", s=20, label="failed or skipped", zorder=2)
    steps = [(i, b) for i, b in enumerate(best_line, start=1) if b is not None]
    if steps:
        ax.step([i for i, _ in steps], [b for _, b in steps], where="post", color="black", linewidth=1.4, label="best so far")
    if known and min(known) > 0 and max(known) / min(known) > 20:
        ax.set_yscale("log")
    ax.set_xlabel("points in the order the strategy chose them")
    ax.set_ylabel(f"{field} ({'higher' if maximise else 'lower'} is better)")
    budget = strategy.get("max_points")
    ax.set_title(f"{strategy['name']} search of {(doc.get('config') or {}).get('name', study.family)}: "
                 f"{len(values)} points{f' of a budget of {budget}' if budget else ''}, seed {strategy.get('seed', 0)}",
                 fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.25)
    return [("search_progress", fig)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("replay", help="the JSON of occbench replay --out")
    parser.add_argument("--out", help="folder for the figures (default: beside the file)")
    parser.add_argument("--formats", default="png,svg", help="comma list (default png,svg)")
    args = parser.parse_args(argv)
    path = Path(args.replay)
    try:
        replay = json.loads(path.read_text())
        if not replay.get("spaces"):
            raise KeyError("spaces")
        figures = search_figures(replay)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"error: {path}: expected the JSON of occbench replay --out: {e}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else path.parent
    out.mkdir(parents=True, exist_ok=True)
    for slug, fig in figures:
        for fmt in args.formats.split(","):
            target = out / f"{path.stem}_{slug}.{fmt}"
            fig.savefig(target, dpi=130)
            print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""results/reference/h100/search.md's table of the strategies on the CPU tests' synthetic tuning space
(tests/search_test_support.hpp): per budget and strategy, the median and lower quartile over the
seeds of the fraction of the optimum found, from what the built tool
`tests/occbench_synthetic_space_fractions` prints (each seed's fraction; the space is code, so
the table is made from it, not from a record).

    python3 scripts/search/synthetic_space_table.py [--seeds 50]

The tool is looked for as $BUILD_DIR/tests/occbench_synthetic_space_fractions (build/ by default).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = "occbench_synthetic_space_fractions"


def fractions(seeds):
    tool = ROOT / os.environ.get("BUILD_DIR", "build") / "tests" / TOOL
    if not tool.is_file():
        sys.exit(f"synthetic_space_table: {tool} is not built (cmake --build build --target {TOOL})")
    return json.loads(subprocess.run([str(tool), str(seeds)], check=True, capture_output=True, text=True).stdout)


def summary(values):
    """(median, lower quartile) of one budget's seeds."""
    return statistics.median(values), statistics.quantiles(values, n=4, method="inclusive")[0]


def table(data):
    names = list(data["strategies"])
    lines = [f"{data['seeds']} seeds, median [lower quartile] of the fraction of the optimum found; the best median of a "
             "budget in bold.", "", "| budget | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for b, (percent, points) in enumerate(zip(data["percents"], data["budgets"])):
        cells = {name: summary(data["strategies"][name][b]) for name in names}
        best = max(median for median, _ in cells.values())
        shown = [f"**{m:.3f}** [{q:.3f}]" if m == best else f"{m:.3f} [{q:.3f}]" for m, q in cells.values()]
        lines.append(f"| {percent:g}% ({points}) | " + " | ".join(shown) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=50)
    print(table(fractions(parser.parse_args().seeds)))


if __name__ == "__main__":
    main()

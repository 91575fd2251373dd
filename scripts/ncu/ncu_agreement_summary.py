#!/usr/bin/env python3
"""A summary of scripts/ncu/ncu_agreement.py's tables: per config, how many points agree with Nsight
Compute within the target (2% at >= 20 us, 1 us below) and the worst point.

    python3 scripts/ncu/ncu_agreement_summary.py DIR...   # each DIR holds ncu_agreement.py's CONFIG.md outputs
"""
import re
import sys
from pathlib import Path

DIFF = re.compile(r"([+-][\d.]+) µs \(([+-][\d.]+)%\)")


def rows(md):
    """(point, occbench µs, ncu µs, diff µs, diff %, within, source) of each table row."""
    for line in md.read_text().splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) == 7 and cells[4] in ("yes", "NO"):
            diff = DIFF.search(cells[3])
            yield cells[0], float(cells[1]), float(cells[2]), float(diff[1]), float(diff[2]), cells[4] == "yes", cells[6]


def summary(folders):
    lines = ["| config | timing source | points | within target | worst point | occbench / ncu | difference |",
             "|---|---|---:|---:|---|---|---|"]
    for folder in folders:
        for md in sorted(Path(folder).glob("*.md")):
            found = list(rows(md))
            if not found:
                continue
            worst = max(found, key=lambda r: abs(r[4]))
            sources = ", ".join(sorted({r[6] for r in found}))
            lines.append(f"| {md.stem} | {sources} | {len(found)} | {sum(r[5] for r in found)} | {worst[0]} "
                         f"| {worst[1]:.2f} / {worst[2]:.2f} µs | {worst[3]:+.2f} µs ({worst[4]:+.1f}%) |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(summary(sys.argv[1:]), end="")

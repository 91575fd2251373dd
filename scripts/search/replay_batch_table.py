#!/usr/bin/env python3
"""The median fraction of the optimum per strategy and budget of two `occbench replay` outputs of
one space, one at a time against batches, side by side (results/reference/h100/search/batches).

    python3 scripts/search/replay_batch_table.py NAME ONE_AT_A_TIME.txt BATCHES.txt [NAME A.txt B.txt ...]
"""
import re
import sys
from pathlib import Path

STRATEGIES = ["local", "genetic", "model"]


def medians(path):
    """{budget label: {strategy: median}} of the first table (fraction of the optimum) of a replay output."""
    lines = Path(path).read_text().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("fraction of the optimum found"))
    header = [c.strip() for c in lines[start + 1].strip("|").split("|")]
    out = {}
    for line in lines[start + 3:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        out[(cells[0], cells[1])] = {name: float(re.match(r"[\d.]+", cell)[0]) for name, cell in zip(header, cells)
                                     if name in STRATEGIES}
    return out


def table(groups):
    lines = ["| space, budget (points) | " + " | ".join(f"{s} 1 → 16" for s in STRATEGIES) + " |", "|---" * 4 + "|"]
    for name, one, batch in groups:
        a, b = medians(one), medians(batch)
        for (budget, points), row in a.items():
            cells = [f"{row[s]:.3f} → {b[(budget, points)][s]:.3f}" for s in STRATEGIES]
            lines.append(f"| {name} {budget} ({points}) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    args = sys.argv[1:]
    print(table([args[i:i + 3] for i in range(0, len(args), 3)]), end="")

#!/usr/bin/env python3
"""A write-up's table of `occbench compare` against the committed references, configs grouped, from
the summary scripts/device/device_reference.sh saves (reference_compare.md: one line per config).

    python3 scripts/studies/compare_summary_table.py SUMMARY.md [LABEL=CONFIG[,CONFIG...] ...]

Each group's points (compared, not compared and those in one record only), unchanged, faster,
slower and not compared, summed over its configs; without groups, one row per config.
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import text_of  # noqa: E402  (one reader of a file or of one inside an archive)

# "| NAME | EXIT | REFERENCE | 34 compared: 0 faster, 0 slower, 34 unchanged, 0 unknown; 0 only in BASE, 0 only in NEW, 0 not compared. |"
LINE = re.compile(r"^\| (\S+) \| \d+ \| \S+ \| (\d+) compared: (\d+) faster, (\d+) slower, (\d+) unchanged, \d+ unknown; "
                  r"(\d+) only in BASE, (\d+) only in NEW, (\d+) not compared\. \|$", re.M)


def counts(summary):
    """{config: (points, unchanged, faster, slower, not compared)} of a saved summary."""
    out = {}
    for name, compared, faster, slower, unchanged, base, new, skipped in LINE.findall(summary):
        compared, faster, slower, unchanged, base, new, skipped = map(int, (compared, faster, slower, unchanged, base, new, skipped))
        out[name] = (compared + base + new + skipped, unchanged, faster, slower, skipped)
    return out


def table(summary, groups):
    found = counts(summary)
    groups = [g.partition("=") for g in groups] or [(name, "=", name) for name in found]
    lines = ["| config | points | unchanged | faster | slower | not compared |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for label, _, configs in groups:
        sums = [sum(column) for column in zip(*(found[c] for c in configs.split(",")))]
        lines.append(f"| {label} | " + " | ".join(map(str, sums)) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(table(text_of(sys.argv[1]), sys.argv[2:]))

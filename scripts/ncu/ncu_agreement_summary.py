#!/usr/bin/env python3
"""A summary of scripts/ncu/ncu_agreement.py's tables: per config, how many points agree with Nsight
Compute within the target (2% at >= 20 us, 1 us below) and the worst point.

    python3 scripts/ncu/ncu_agreement_summary.py DIR...   # each DIR holds ncu_agreement.py's CONFIG.md outputs
    python3 scripts/ncu/ncu_agreement_summary.py --against CSV BASE_CSV
        # per config of CSV: points within the target there and in BASE_CSV (another run of the same
        # points, another timing source), CSV's difference to ncu, and its event-pair median over BASE's
    python3 scripts/ncu/ncu_agreement_summary.py --ranges "LABEL|CSV|CONFIG|POINT_REGEX" ...
        # per LABEL: the range of occbench - ncu over the config's points that match, and how many are within
    python3 scripts/ncu/ncu_agreement_summary.py --side-by-side "LABEL|CSV" "LABEL|CSV" ...
        # per config (and all): points within the target and the median occbench - ncu of each run
(a CSV is ncu_agreement.py's ncu_agreement.csv, a file or ARCHIVE.tar.xz:PATH inside an evidence archive)
"""
import csv
import io
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import text_of  # noqa: E402  (one reader of a file in an archive)

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


def csv_rows(path):
    return list(csv.DictReader(io.StringIO(text_of(path))))


def within(row):
    return row["within_target"] in ("True", True)


def against(path, base_path):
    """Per config of `path`: within the target there and (in brackets) in the base run, the difference
    to ncu, and how much the run's own event pair moved against the base run's median (the base's source)."""
    rows, base = csv_rows(path), {r["point_id"]: r for r in csv_rows(base_path)}
    lines = ["| config | points | within the target (base run) | occbench − ncu, median [min, max] | "
             "event-pair median / base run's median |", "|---|---:|---|---|---|"]
    for config in dict.fromkeys(r["config"] for r in rows):
        mine = [r for r in rows if r["config"] == config]
        diffs = [float(r["diff_us"]) for r in mine]
        ratios = [float(r["event_median_us"]) / float(base[r["point_id"]]["occbench_median_us"])
                  for r in mine if r["point_id"] in base and r.get("event_median_us")]
        lines.append(f"| {config} | {len(mine)} | {sum(map(within, mine))} ({sum(within(base[r['point_id']]) for r in mine if r['point_id'] in base)}) | "
                     f"{statistics.median(diffs):+.2f} µs [{min(diffs):+.2f}, {max(diffs):+.2f}] | "
                     f"{min(ratios):.3f}–{max(ratios):.3f}, median {statistics.median(ratios):.3f} |")
    return "\n".join(lines) + "\n"


def ranges(specs):
    """Per "LABEL|CSV|CONFIG|POINT_REGEX": the range of occbench − ncu over the matching points, and how many are within."""
    lines = ["| kernels | points | occbench − ncu | within the target |", "|---|---:|---|---|"]
    for spec in specs:
        label, path, config, pattern = spec.split("|", 3)
        mine = [r for r in csv_rows(path) if r["config"] == config and re.search(pattern, r["point_id"])]
        diffs = sorted(float(r["diff_us"]) for r in mine)
        lines.append(f"| {label} | {len(mine)} | {diffs[0]:+.2f} to {diffs[-1]:+.2f} µs | {sum(map(within, mine))} of {len(mine)} |")
    return "\n".join(lines) + "\n"


def side_by_side(specs):
    """Per config of the first run (and all of them): each run's points within the target and median difference."""
    runs = [(label, csv_rows(path)) for label, path in (spec.split("|", 1) for spec in specs)]
    head = "| config | points | " + " | ".join(f"within 2% / 1 µs: {label} | median occbench − ncu, {label}" for label, _ in runs) + " |"
    lines = [head, "|---|---:|" + "---:|---:|" * len(runs)]
    configs = list(dict.fromkeys(r["config"] for r in runs[0][1]))
    for config in configs + [None]:
        cells = []
        for _, rows in runs:
            mine = [r for r in rows if config is None or r["config"] == config]
            cells.append(f"{sum(map(within, mine))} | {statistics.median(float(r['diff_us']) for r in mine):+.2f} µs")
        points = sum(1 for r in runs[0][1] if config is None or r["config"] == config)
        lines.append(f"| {config or '**all**'} | {points} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if sys.argv[1:2] == ["--against"]:
        print(against(sys.argv[2], sys.argv[3]), end="")
    elif sys.argv[1:2] == ["--side-by-side"]:
        print(side_by_side(sys.argv[2:]), end="")
    elif sys.argv[1:2] == ["--ranges"]:
        print(ranges(sys.argv[2:]), end="")
    else:
        print(summary(sys.argv[1:]), end="")

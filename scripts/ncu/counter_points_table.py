#!/usr/bin/env python3
"""One counter of some points across runs of scripts/ncu/ncu_counters_agreement.py: per point, occbench
against ncu in each run's CSV (and whether occbench's runs lie within 2% of ncu's, where a run has two).

    python3 scripts/ncu/counter_points_table.py COUNTER POINT_REGEX "LABEL|CSV" ["LABEL|CSV" ...]
        # the rows: the points of the last CSV whose point_id matches; a CSV is a file or ARCHIVE.tar.xz:PATH
    python3 scripts/ncu/counter_points_table.py --per-config COUNTER CSV
        # per config: the median and the range of occbench − ncu over its points, in MB
    python3 scripts/ncu/counter_points_table.py --gap-median "LABEL|CSV|OCCBENCH_COLUMN|NCU_COLUMN[|COUNTER|CONFIG]" ...
        # per LABEL: the median over the CSV's points (of COUNTER and CONFIG where the CSV has those columns) of
        # occbench's reading − ncu's, in MB; a column of several runs ("a;b") counts as their median
"""
import statistics
import csv
import io
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import text_of  # noqa: E402  (one reader of a file in an archive)


def counter_rows(path, counter):
    """{point_id: CSV row} of one counter in a run's CSV."""
    return {r["point_id"]: r for r in csv.DictReader(io.StringIO(text_of(path))) if r["counter"] == counter}


def cell(row):
    if row is None:
        return "–"
    text = f"{float(row['diff_pct']):+.1f}%"
    if row.get("within_2pct_of_runs") not in (None, ""):
        text += ", within ncu's runs" if row["within_2pct_of_runs"] == "True" else ", outside ncu's runs"
    return text


def main(counter, pattern, *specs):
    runs = [(label, counter_rows(path, counter)) for label, path in (s.split("|", 1) for s in specs)]
    points = [p for p in runs[-1][1] if re.search(pattern, p)]
    print(f"| point | {' | '.join(f'{counter}: occbench − ncu, {label}' for label, _ in runs)} |")
    print("|---|" + "---:|" * len(runs))
    for point in points:
        print(f"| {point} | {' | '.join(cell(rows.get(point)) for _, rows in runs)} |")


def per_config(counter, path):
    rows = [r for r in csv.DictReader(io.StringIO(text_of(path))) if r["counter"] == counter and r["ncu"] != ""]
    print(f"| config | points | {counter}: occbench − ncu, median MB | range MB | ncu's median MB |")
    print("|---|---:|---:|---|---:|")
    for config in dict.fromkeys(r["config"] for r in rows):
        gaps = [(float(r["occbench"]) - float(r["ncu"])) / 1e6 for r in rows if r["config"] == config]
        ncu = statistics.median(float(r["ncu"]) / 1e6 for r in rows if r["config"] == config)
        print(f"| {config} | {len(gaps)} | {statistics.median(gaps):+.2f} | {min(gaps):+.2f} to {max(gaps):+.2f} | {ncu:.2f} |")


def runs_median(text):
    return statistics.median(float(v) for v in text.split(";"))


def gap_median(specs):
    print("| L2 state before the kernel | points | occbench − ncu, median MB |\n|---|---:|---:|")
    for spec in specs:
        label, path, occ, ncu, *which = spec.split("|")
        rows = [r for r in csv.DictReader(io.StringIO(text_of(path)))
                if all(r.get(column) == value for column, value in zip(("counter", "config"), which))]
        gaps = [(runs_median(r[occ]) - runs_median(r[ncu])) / 1e6 for r in rows]
        print(f"| {label} | {len(gaps)} | {statistics.median(gaps):+.2f} |")


if __name__ == "__main__":
    if sys.argv[1] == "--gap-median":
        gap_median(sys.argv[2:])
    elif sys.argv[1] == "--per-config":
        per_config(*sys.argv[2:4])
    else:
        main(*sys.argv[1:])

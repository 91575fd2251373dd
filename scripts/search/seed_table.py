#!/usr/bin/env python3
"""A write-up's table of live searches seed by seed, made from the studies' committed runs: per row,
the walls (walls.txt) or the bests' fractions of the fastest timed again (search_bests.py's) of the
runs a regular expression names in a study, listed and with their median.

    python3 scripts/search/seed_table.py SPEC.json [TABLE]

SPEC.json: {"TABLE": {"header": [...], "rows": [{"cells": ["A, 27", "local, batches"], "values": [
    {"study": "ARCHIVE.tar.xz:FOLDER", "runs": "local-batch-s[1-5]", "of": "wall_s" | "fraction",
     "as": "list, median" | "list (median)" | "list (median m)" | "list" | "each, median" | "joined"}],
     "after": [...]}]}}
"list, median": two cells, the values then their median; "list (median)", "list (median m)": one
cell; "each, median": a cell per value, then the median; "joined": one cell, the values joined by
" / ". A value's "study" may be a list (runs of several studies in one cell); a row's "after" cells
follow its values.
"""
import json
import re
import statistics
import sys
from pathlib import Path

from search_bests import searches
from study_files import run_records, study_files

FORMAT = {"wall_s": "{:.1f}", "fraction": "{:.3f}"}
_studies = {}


def files_of(study):
    if study not in _studies:
        _studies[study] = study_files(study)
    return _studies[study]


def walls(files):
    out = {}
    for line in files["walls.txt"].splitlines():
        wall = re.search(r"wall_s=([0-9.e-]+)", line)
        if wall:
            out[line.split()[0]] = float(wall.group(1))
    return out


def fractions(files):
    """Each run's best, timed again in the study's bests run, as a fraction of the fastest timed there."""
    again = {r["point_id"]: r["timing"]["median_ms"] for r in run_records(files, "bests") if r.get("status") == "ok"}
    fastest = min(again.values())
    return {name: fastest / again[best["point_id"]] for name, best in searches(files) if best["point_id"] in again}


def values(spec):
    """The values of the runs `runs` names, in walls.txt's order, study after study."""
    found = []
    for study in ([spec["study"]] if isinstance(spec["study"], str) else spec["study"]):
        files = files_of(study)
        by_run = walls(files) if spec["of"] == "wall_s" else fractions(files)
        order = [line.split()[0] for line in files["walls.txt"].splitlines() if line.strip()]
        found += [by_run[name] for name in order if re.fullmatch(spec["runs"], name) and name in by_run]
    if not found:
        sys.exit(f"seed_table: no run of {spec['study']} matches {spec['runs']!r}")
    return found


def cells(spec):
    found = values(spec)
    text = [FORMAT[spec["of"]].format(v) for v in found]
    median = FORMAT[spec["of"]].format(statistics.median(found))
    return {"list, median": [", ".join(text), median], "list (median)": [f"{', '.join(text)} ({median})"],
            "list (median m)": [f"{', '.join(text)} (median {median})"], "list": [", ".join(text)],
            "each, median": [*text, median], "joined": [" / ".join(text)]}[spec["as"]]


def table(spec):
    lines = ["| " + " | ".join(spec["header"]) + " |", spec.get("separator", "|" + "---|" * len(spec["header"]))]
    for row in spec["rows"]:
        row_cells = list(row["cells"]) + [c for value in row["values"] for c in cells(value)] + list(row.get("after", []))
        lines.append("| " + " | ".join(row_cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    specs = json.loads(Path(sys.argv[1]).read_text())
    print(table(specs[sys.argv[2]] if len(sys.argv) > 2 else next(iter(specs.values()))), end="")


if __name__ == "__main__":
    main()

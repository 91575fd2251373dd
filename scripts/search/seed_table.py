#!/usr/bin/env python3
"""A write-up's table of live searches seed by seed, made from the studies' committed runs: per row,
the walls (walls.txt), the compilations (walls_compile.txt) or the bests' fractions of the fastest
timed again (search_bests.py's) of the runs a regular expression names, as cells a template says.

    python3 scripts/search/seed_table.py SPEC.json TABLE

SPEC.json: {"studies": {"S27": "ARCHIVE.tar.xz:FOLDER", "S5": {"runs": FOLDER, "again": FOLDER, "kernel_tuner": FOLDER}, ...},
           "TABLE": {"header": [...], "separator": "|---|---:|" (optional), "rows": [
    {"values": {"w": {"study": "S27" (a name of "studies", or a folder) or [several], "runs": "local-batch-s[1-5]",
                      "of": "wall_s" | "fraction" | "compiled"}},
     "cells": ["A, 27", "{w.list}", "{w.median}"]}]}}
A cell's template names a value's {NAME.list} (", "-joined), {NAME.median}, {NAME.mean}, {NAME.range} (min–max),
{NAME.joined} (" / "-joined); a cell that is exactly "{NAME.each}" is one cell per run. Runs are in
walls.txt's order, study after study. "compiled" is walls_compile.txt's kernels (CPU seconds) and
"compile_s" its seconds for all / the slowest: neither has a median. "best_ms" is a run's own time of
its best, "again_ms" that point's time timed again. A study given as {"runs", "again", "kernel_tuner"}
reads its runs from one folder (its walls.txt from "walls" where it lies apart), the bests timed again from another (a run of the whole space times
any run's best), and Kernel Tuner's runs (NAME.json, as kt-NAME, their wall_s) from a third.
"""
import functools
import json
import re
import statistics
import sys
from pathlib import Path

from search_bests import searches, timed_again
from study_files import compile_times, study_files, text_of, walls

@functools.lru_cache(maxsize=None)
def files_of(study):
    """A study's files, read once however many cells name it (a JSON text: a study of parts)."""
    return composite(json.loads(study)) if study.startswith("{") else study_files(study)


def composite(parts):
    """A study's files put together: its runs, the bests timed again (as its bests/ folder) and
    Kernel Tuner's runs (kt-NAME.json, with their walls added to walls.txt)."""
    files = dict(study_files(parts["runs"]))
    if "walls" in parts:  # kept beside the runs' folder (studies 1-4)
        files["walls.txt"] = text_of(parts["walls"])
    if "again" in parts:  # in place of the study's own bests run
        files = {name: text for name, text in files.items() if not name.startswith("bests/")}
        files.update({f"bests/{name}": text for name, text in study_files(parts["again"]).items()})
    for name, text in sorted(study_files(parts["kernel_tuner"]).items()) if "kernel_tuner" in parts else []:
        if text:
            files[f"kt-{name}"] = text
            files["walls.txt"] += f"kt-{name[:-len('.json')]} wall_s={json.loads(text)['wall_s']}\n"
    return files


def compiled(files):
    """walls_compile.txt's kernels (CPU seconds of NVRTC), "N (S)", by run."""
    return {name: f"{t['kernels']:.0f} ({t['compile_s_sum']:.0f})" for name, t in compile_times(files).items()}


def compile_s(files):
    """walls_compile.txt's NVRTC seconds for all a run's kernels / its slowest, "S / M", by run."""
    return {name: f"{t['compile_s_sum']:.1f} / {t['compile_s_max']:.1f}" for name, t in compile_times(files).items()}


def saved_fractions(files):
    """The fractions of search_bests.py's table as the study saved it (bests.md), where its bests run's
    records were not kept (studies 22-24)."""
    rows = [line.split("|")[1:-1] for line in files.get("bests.md", "").splitlines()[2:]]
    return {cells[0].strip(): float(cells[-1]) for cells in rows if cells and cells[-1].strip() not in ("", "–")}


def fractions(files):
    """Each run's best, timed again in the study's bests run, as a fraction of the fastest timed there."""
    again = timed_again(files)
    if not again:
        return saved_fractions(files)
    fastest = min(again.values())
    return {name: fastest / again[best["point_id"]] for name, best in searches(files) if best["point_id"] in again}


def best_ms(files):
    """Each run's own time of its best point, in ms."""
    return {name: best["timing"]["median_ms"] for name, best in searches(files)}


def again_ms(files):
    """Each run's best point timed again in the study's bests run, in ms."""
    again = timed_again(files)
    return {name: again[best["point_id"]] for name, best in searches(files) if best["point_id"] in again}


READERS = {"wall_s": lambda files: walls(files["walls.txt"]), "fraction": fractions, "compiled": compiled, "compile_s": compile_s,
           "best_ms": best_ms, "again_ms": again_ms}
FORMAT = {"wall_s": "{:.1f}", "fraction": "{:.3f}", "compiled": "{}", "compile_s": "{}", "best_ms": "{:.4f}", "again_ms": "{:.4f}"}


class Values:
    """The values of the runs a spec names, and the ways a cell shows them."""

    def __init__(self, spec, studies):
        self.found = []
        for study in ([spec["study"]] if isinstance(spec["study"], str) else spec["study"]):
            where = studies.get(study, study)
            files = files_of(json.dumps(where, sort_keys=True) if isinstance(where, dict) else where)
            by_run = READERS[spec["of"]](files)
            self.found += [by_run[name] for name in walls(files["walls.txt"]) if re.fullmatch(spec["runs"], name) and name in by_run]
        if not self.found:
            sys.exit(f"seed_table: no run of {spec['study']} matches {spec['runs']!r}")
        self.text = [FORMAT[spec["of"]].format(v) for v in self.found]
        self.form = FORMAT[spec["of"]]

    @property
    def list(self):
        return ", ".join(self.text)

    @property
    def joined(self):
        return " / ".join(self.text)

    @property
    def median(self):
        return self.form.format(statistics.median(self.found))

    @property
    def mean(self):
        return self.form.format(statistics.mean(self.found))

    @property
    def range(self):
        return f"{self.form.format(min(self.found))}–{self.form.format(max(self.found))}"


def row_cells(row, studies):
    values = {name: Values(spec, studies) for name, spec in row.get("values", {}).items()}
    out = []
    for template in row["cells"]:
        each = re.fullmatch(r"\{(\w+)\.each\}", template)
        out += values[each.group(1)].text if each else [template.format(**values)]
    return out


def table(spec, studies):
    lines = ["| " + " | ".join(spec["header"]) + " |", spec.get("separator", "|" + "---|" * len(spec["header"]))]
    lines += ["| " + " | ".join(row_cells(row, studies)) + " |" for row in spec["rows"]]
    return "\n".join(lines) + "\n"


def main():
    specs = json.loads(Path(sys.argv[1]).read_text())
    print(table(specs[sys.argv[2]], specs.get("studies", {})), end="")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A write-up's table of a run's record (occbench run's .json), each cell a template over the record's
points, so a study's table is what its committed record says:

    python3 scripts/studies/record_table.py SPEC.json TABLE

SPEC.json: {"TABLE": {"record": "results/reference/h100/x.json" (or ARCHIVE.tar.xz:PATH; or "records":
    {"NAME": PATH, ...}: each NAME's helpers as NAME.ms(...), and R[NAME] for a row's name of one),
    "header": [...], "separator": "|---:|---:|" (optional),
    "rows": [{"b": 128}, {"b": 256}] (each row's names) or {"b": [128, 256]} (one row per value),
    "cells": ["{b}", "{ms('global', n=N16, block_size=b) / ms('shared_static', n=N16, block_size=b):.3f}"]},
    (a row's own "cells" replace the table's, for a table whose rows differ)
  "names": {"N16": 16777216} (optional, for every table)}
A cell is a Python f-string over the row's names and these helpers (every point they name must be
in the record, measured, or the table is not made):
  point(variant, **params)   the one ok point of that variant with those parameters (its record)
  best(variant, **params)    the fastest ok point among those (its record)
  ms(variant, **params)      point(...)'s median ms;  us(...) in µs
  get(rec, "metrics.achieved_bandwidth_gbps")   a field of a record by its dotted path
  copy_gbps, peak_gflops      the device's measured copy bandwidth, its FP32 peak
  fmt_time(ms)               "671.8 µs", "41.39 ms";  ratio(x) "0.98", "10.8";  bold(text, condition)
  span(values, ".1f")        "min-max" of some values
  ok, total("counters.added_s")   the record's ok points; the sum of a field over them
  wall(name)                 with "walls": PATH in the table's spec, that run's wall seconds in the walls file
"""
import json
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import text_of, walls  # noqa: E402  (one reader of a file in an archive, of a walls file)


class Record:
    """The helpers a cell calls, over one record's ok points."""

    def __init__(self, doc, where):
        self.where = where
        self.ok = [r for r in doc["results"] if r.get("status") == "ok"]
        self.copy_gbps = doc["device"].get("measured_bandwidth_gbps")
        self.peak_gflops = doc["device"].get("peak_fp32_gflops")

    def matching(self, variant, params):
        found = [r for r in self.ok if r["variant"] == variant and all(r["params"].get(k) == v for k, v in params.items())]
        if not found:
            sys.exit(f"record_table: {self.where}: no ok point of {variant} with {params}")
        return found

    def point(self, variant, **params):
        found = self.matching(variant, params)
        if len(found) > 1:
            sys.exit(f"record_table: {self.where}: {len(found)} points of {variant} with {params}; name them all")
        return found[0]

    def best(self, variant, **params):
        return min(self.matching(variant, params), key=lambda r: r["timing"]["median_ms"])

    def helpers(self):
        """The names a cell sees for this record."""
        return {"point": self.point, "best": self.best, "copy_gbps": self.copy_gbps, "peak_gflops": self.peak_gflops,
                "ms": lambda v, **p: self.point(v, **p)["timing"]["median_ms"],
                "us": lambda v, **p: 1e3 * self.point(v, **p)["timing"]["median_ms"],
                "ok": self.ok, "total": self.total}

    def total(self, path):
        """The sum of a field over the ok points that have it (seconds a run spent on something)."""
        return sum(value for r in self.ok if isinstance(value := field(r, path), (int, float)))


def fmt_time(ms):
    """A median in µs below a millisecond, else in ms, to four significant digits."""
    return f"{1e3 * ms:#.4g} µs" if ms < 1 else f"{ms:#.4g} ms"


def ratio(x):
    """A ratio to two decimals, or one from 10 on."""
    return f"{x:.2f}" if x < 10 else f"{x:.1f}"


def bold(text, wanted):
    return f"**{text}**" if wanted else text


def span(values, spec=".1f"):
    """The range of some values, "min-max"."""
    values = list(values)
    return f"{min(values):{spec}}-{max(values):{spec}}"


def get(record, path):
    for key in path.split("."):
        record = record[key]
    return record


def field(record, path):
    """get(), or None where the record lacks the field."""
    try:
        return get(record, path)
    except (KeyError, TypeError):
        return None


def rows_of(spec):
    rows = spec["rows"]
    if isinstance(rows, dict):
        [(name, values)] = rows.items()
        return [{name: v} for v in values]
    return rows


def helpers_of(spec):
    """The helpers of the table's record, or one namespace of helpers per named record (and R of them)."""
    common = {"get": get, "fmt_time": fmt_time, "bold": bold, "ratio": ratio, "span": span}
    if "walls" in spec:  # a study's walls.txt or walls.tsv: wall(name) in seconds
        common["wall"] = walls(text_of(spec["walls"])).__getitem__
    if "record" in spec:
        return {**common, **Record(json.loads(text_of(spec["record"])), spec["record"]).helpers()}
    each = {name: SimpleNamespace(**Record(json.loads(text_of(path)), path).helpers()) for name, path in spec["records"].items()}
    return {**common, **each, "R": each}


def table(spec, names):
    helpers = helpers_of(spec)
    lines = ["| " + " | ".join(spec["header"]) + " |", spec.get("separator", "|" + "---|" * len(spec["header"]))]
    for row in rows_of(spec):
        scope = {**helpers, **names, **{k: v for k, v in row.items() if k != "cells"}}
        lines.append("| " + " | ".join(eval("f" + repr(cell), dict(scope)) for cell in row.get("cells", spec.get("cells"))) + " |")
    return "\n".join(lines) + "\n"


def main():
    specs = json.loads(Path(sys.argv[1]).read_text())
    print(table(specs[sys.argv[2]], specs.get("names", {})), end="")


if __name__ == "__main__":
    main()

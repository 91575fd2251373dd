#!/usr/bin/env python3
"""A write-up's table of a re-run against the run before it, config by config: how the points'
medians moved (NEW/OLD, matched by point id), the wall time, the time in timed samples, its share of
the wall, and where the rest went (problems, verification, sampling loops).

    python3 scripts/studies/rerun_table.py SPEC.json --table NAME

SPEC.json (results/reference/<gpu>/tables/rerun_tables.json): {NAME: {"columns": [...], "rows":
[{"label": "...", "old": SOURCE, "new": SOURCE, "medians": true}, ...], "skip_variants": ["host"], "digits": 1}}. A SOURCE is a record
(.json) or the run's printed log (.log), a file or ARCHIVE.tar.xz:PATH; records a later run replaced
are kept in logs/history_records.tar.xz (scripts/studies/slim_history.py). A record without the run's
time use (before it was recorded) gives its wall as finished − started, in whole seconds, and its
timed seconds as the sum of its points' samples. A log gives the medians as it printed them (four or
five digits).

Columns: points, ratios (NEW/OLD median: min / median / max), wall (old → new), timed (old → new),
timed_now, share (old → new), use (the new run's problems / verification / sampling loops s).
"""
import argparse
import json
import re
import statistics
import sys
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "search"))
from study_files import text_of  # noqa: E402  (the one reader of a file or of one inside an archive)

MS_PER = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3}
# "[3/7] matmul/naive m=1024 n=1024 k=1024 block_size=32: 354.75 us ±0.2% ..." (a point's progress line)
POINT_LINE = re.compile(r"^\[\d+/\d+\] (\S+)((?: \S+=\S+)*): ([0-9.]+) (ns|us|µs|ms|s) ", re.M)
# "time: 5.5 s of timed samples in 9.7 s of wall time (57%); sampling loops 6.7 s, problems 1.2 s, verification 1.6 s"
TIME_LINE = re.compile(r"^time: ([0-9.]+) s of timed samples in ([0-9.]+) s of wall time \((\d+)%\)"
                       r"(?:; sampling loops ([0-9.]+) s, problems ([0-9.]+) s, verification ([0-9.]+) s)?", re.M)
HEADERS = {"points": "points", "ratios": "NEW/OLD median: min / median / max", "wall": "wall s (old → new)",
           "timed": "timed samples s (old → new)", "timed_now": "timed s", "share": "timed share (old → new)",
           "use": "problems / verification / sampling loops s"}
ALIGN = {"points": "---:", "timed_now": "---:"}


def seconds_between(run):
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    return (datetime.strptime(run["finished_utc"], stamp) - datetime.strptime(run["started_utc"], stamp)).total_seconds()


def from_record(doc):
    """A record's medians by point id and its time use; before runs recorded their time, what the points say."""
    ok = [r for r in doc["results"] if r["status"] == "ok"]
    run = doc["run"]
    out = {"medians": {r["point_id"]: r["timing"]["median_ms"] for r in ok}}
    if "wall_s" in run:
        use = run.get("time_use_s")
        out.update(wall_s=run["wall_s"], timed_s=run["timed_s"], share=run["timed_fraction"], whole_seconds=False,
                   use=use and (use["problem_s"], use["verify_s"], use["sampling_s"]))
    else:
        wall, timed = seconds_between(run), sum(r["timing"]["total_ms"] for r in ok) / 1e3
        out.update(wall_s=wall, timed_s=timed, share=timed / wall if wall else None, whole_seconds=True, use=None)
    return out


def from_log(text):
    """A run's printed log: the medians of its progress lines and its closing time line."""
    medians = {f"{name}/{params.strip().replace(' ', '/')}".rstrip("/"): float(value) * MS_PER[unit]
               for name, params, value, unit in POINT_LINE.findall(text)}
    timed, wall, share, sampling, problems, verify = TIME_LINE.search(text).groups()
    return {"medians": medians, "wall_s": float(wall), "timed_s": float(timed), "share": int(share) / 100,
            "whole_seconds": False, "use": sampling and (float(problems), float(verify), float(sampling))}


def load(source):
    text = text_of(ROOT / source)
    return from_log(text) if source.endswith(".log") else from_record(json.loads(text))


def gpu_points(run, skip):
    """The run's medians less those of the variants `skip` names (a host-timed baseline is no GPU point)."""
    return {p: m for p, m in run["medians"].items() if p.split("/")[1] not in skip}


def ratios(old, new):
    found = sorted(new[p] / old[p] for p in new if p in old)
    return f"{found[0]:.3f} / {statistics.median(found):.3f} / {found[-1]:.3f}" if found else "–"


def seconds(run, key, digits):
    if run is None:
        return "–"
    return f"{run[key]:.0f}" if run["whole_seconds"] and key == "wall_s" else f"{run[key]:.{digits}f}"


def percent(run):
    return "–" if run is None or run["share"] is None else f"{run['share']:.0%}"


def cells(row, old, new, spec):
    """{column: cell} of one row; `old` None where the earlier record was not kept."""
    use, digits, skip = new["use"], spec.get("digits", 1), spec.get("skip_variants", [])
    return {"points": str(len(gpu_points(new, skip))),
            "ratios": ratios(gpu_points(old, skip), gpu_points(new, skip)) if old and row.get("medians", True) else "–",
            "wall": f"{seconds(old, 'wall_s', 1)} → {seconds(new, 'wall_s', digits)}",
            "timed": f"{seconds(old, 'timed_s', 1)} → {seconds(new, 'timed_s', 1)}",
            "timed_now": seconds(new, "timed_s", digits),
            "share": f"{percent(old)} → {percent(new)}",
            "use": " / ".join(f"{s:.{digits}f}" for s in use) if use else "–"}


def table(spec):
    columns = spec["columns"]
    lines = ["| config | " + " | ".join(HEADERS[c] for c in columns) + " |",
             "|---|" + "|".join(ALIGN.get(c, "---") for c in columns) + "|"]
    for row in spec["rows"]:
        old = load(row["old"]) if row.get("old") else None
        made = cells(row, old, load(row["new"]), spec)
        lines.append(f"| {row['label']} | " + " | ".join(made[c] for c in columns) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec")
    parser.add_argument("--table", required=True)
    args = parser.parse_args()
    print(table(json.loads((ROOT / args.spec).read_text())[args.table]))


if __name__ == "__main__":
    main()

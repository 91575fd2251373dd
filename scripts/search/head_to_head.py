#!/usr/bin/env python3
"""The live head-to-head of scripts/search/search_batch_study.sh (occbench's searches before and after
a change, its random sample, Kernel Tuner's strategies, every best timed again in one process),
kept as one small JSON and written up from it.

    python3 scripts/search/head_to_head.py collect STUDY_FOLDER --out SUMMARY.json [--commit C --device D]
    python3 scripts/search/head_to_head.py walls SUMMARY.json    # per search: walls over the seeds, median
    python3 scripts/search/head_to_head.py bests SUMMARY.json    # every best timed again together
"""
import argparse
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_bests import searches, timed_again  # noqa: E402  (the same bests as the study's bests.md)
from study_files import study_files, walls as walls_of  # noqa: E402


def walls(study):
    """{run name: wall s} of walls.txt (the runs with a folder) and walls_kernel_tuner.txt."""
    out = {}
    for name in ("walls.txt", "walls_kernel_tuner.txt"):
        path = study / name
        for run, wall_s in (walls_of(path.read_text()) if path.exists() else {}).items():
            if name != "walls.txt" or (study / run).is_dir():
                out[run] = wall_s
    return out


def collect(args):
    study = Path(args.study)
    files = study_files(study)
    again = timed_again(files)
    bests = dict(searches(files))  # each run's records read once
    runs = []
    for name, wall in walls(study).items():
        best = bests.get(name)
        runs.append({"run": name, "search": re.sub(r"-s\d+$", "", name), "wall_s": wall,
                     "best_point": best["point_id"] if best else None,
                     "best_ms_in_its_run": best["timing"]["median_ms"] if best else None,
                     "best_ms_timed_again": again.get(best["point_id"]) if best else None})
    summary = {"device": args.device, "commit": args.commit, "points_per_search": args.points, "runs": runs}
    Path(args.out).write_text(json.dumps(summary, indent=1) + "\n")


def wall_table(summary):
    by = {}
    for r in summary["runs"]:
        by.setdefault(r["search"], []).append(r["wall_s"])
    print("| search | runs | walls s, in seed order | median s |")
    print("|---|---:|---|---:|")
    for search, values in by.items():
        print(f"| {search} | {len(values)} | {', '.join(f'{v:.1f}' for v in values)} | {statistics.median(values):.1f} |")


def best_table(summary):
    timed = [r for r in summary["runs"] if r["best_ms_timed_again"]]
    fastest = min(r["best_ms_timed_again"] for r in timed)
    by = {}
    for r in timed:
        by.setdefault(r["search"], []).append(r["best_ms_timed_again"])
    print("| search | bests timed again together, µs, in seed order | median µs | fraction of the fastest (median) |")
    print("|---|---|---:|---:|")
    for search, values in by.items():
        median = statistics.median(values)
        print(f"| {search} | {', '.join(f'{1e3 * v:.1f}' for v in values)} | {1e3 * median:.1f} | {fastest / median:.3f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    c = sub.add_parser("collect")
    c.add_argument("study")
    c.add_argument("--out", required=True)
    c.add_argument("--device", default="")
    c.add_argument("--commit", default=subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip())
    c.add_argument("--points", type=int, default=120)
    for name in ("walls", "bests"):
        sub.add_parser(name).add_argument("summary")
    args = ap.parse_args()
    if args.what == "collect":
        collect(args)
    else:
        summary = json.loads(Path(args.summary).read_text())
        wall_table(summary) if args.what == "walls" else best_table(summary)


if __name__ == "__main__":
    main()

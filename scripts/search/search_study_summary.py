#!/usr/bin/env python3
"""The tables of results/reference/<gpu>/search.md from what scripts/search/search_study.sh left in OUT_DIR:

    python3 scripts/search/search_study_summary.py OUT_DIR [--objective timing.median_ms]
    python3 scripts/search/search_study_summary.py --live-table WALLS.tsv FULL.jsonl NAME=LIVE.jsonl...
        # the live searches' table alone, from files kept apart (each a file or ARCHIVE.tar.xz:PATH)

Live searches against the full sweep (the best found as a fraction of the space's optimum, points,
wall against the full sweep's), the killed-and-resumed search against the same search run
uninterrupted, and for SYRK the best point against cuBLAS SSYRK."""
import argparse
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from study_files import text_of  # noqa: E402  (a file kept inside an evidence archive)


def records_of_file(path):
    """The point records of a .jsonl, a file or ARCHIVE.tar.xz:PATH ([] where it does not exist)."""
    return [r for r in (json.loads(line) for line in text_of(path, missing="").splitlines() if line.strip()) if "point_id" in r]


def records(folder):
    """The point records of the one .jsonl in folder (a --devices run: the merged one)."""
    paths = sorted(glob.glob(os.path.join(folder, "*.jsonl")))
    return records_of_file(paths[0]) if paths else []


def value(record, field):
    node = record
    for key in field.split("."):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node if isinstance(node, (int, float)) and record.get("status") == "ok" else None


def best(recs, field):
    found = [(value(r, field), r["point_id"]) for r in recs if value(r, field) is not None]
    return min(found) if found else (None, None)


def walls(path):
    """walls.tsv's "STUDY-NAME\tMS" lines as {NAME: seconds}."""
    table = {}
    for line in text_of(path, missing="").splitlines():
        name, ms = line.split("\t")[:2]
        table[name.split("-", 1)[1]] = int(ms) / 1000
    return table


def live_table(wall, full, lives, objective):
    """The live searches against the full sweep: {name: records} of each, its best against the optimum."""
    optimum, _ = best(full, objective)
    lines = ["| search | points | best found | fraction of the optimum | wall s | wall / full run |", "|---|---:|---:|---:|---:|---:|"]
    for name, recs in lives.items():
        found, _ = best(recs, objective)
        w = wall.get(f"live-{name}")
        lines.append(f"| {name} | {len(recs)} | - | - | - | - |" if found is None else
                     f"| {name} | {len(recs)} | {found:.4f} | {optimum / found:.3f} | {w:.1f} | {w / wall['full']:.3f} |")
    return "\n".join(lines)


def main():
    if sys.argv[1:2] == ["--live-table"]:  # --live-table WALLS FULL NAME=LIVE...
        lives = {name: records_of_file(path) for name, path in (a.split("=", 1) for a in sys.argv[4:])}
        print(live_table(walls(sys.argv[2]), records_of_file(sys.argv[3]), lives, "timing.median_ms"))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--objective", default="timing.median_ms")
    args = parser.parse_args()
    wall = walls(os.path.join(args.out, "walls.tsv"))
    full = records(os.path.join(args.out, "full"))
    if not full:
        sys.exit(f"{args.out}/full: no .jsonl")
    optimum, optimum_id = best(full, args.objective)
    ok = sum(r.get("status") == "ok" for r in full)
    print(f"full sweep: {len(full)} points, {ok} ok, optimum {optimum:.4f} at {optimum_id}; "
          f"plan {wall.get('plan', float('nan')):.1f} s, run {wall.get('full', float('nan')):.1f} s\n")
    lives = {os.path.basename(folder)[len("live-"):]: records(folder) for folder in sorted(glob.glob(os.path.join(args.out, "live-*")))}
    print(live_table(wall, full, lives, args.objective))
    resumed = records(os.path.join(args.out, "resume"))
    straight = records(os.path.join(args.out, "uninterrupted"))
    if resumed and straight:
        killed = records_of_file(os.path.join(args.out, "resume-killed.jsonl"))
        same = [r["point_id"] for r in resumed] == [r["point_id"] for r in straight]
        print(f"\nkill -9 after {len(killed)} points, resumed: {len(resumed)} points; "
              f"the same points in the same order as the uninterrupted search: {'yes' if same else 'NO'}")
    cublas = records(os.path.join(args.out, "cublas"))
    mine = records(os.path.join(args.out, "best-counters"))
    if cublas and mine:
        c, c_id = best(cublas, args.objective)
        m, m_id = best(mine, args.objective)
        print(f"\ncuBLAS SSYRK {c:.4f} ({c_id}); the best point again {m:.4f} ({m_id}): "
              f"{c / m:.3f} of cuBLAS's throughput")


if __name__ == "__main__":
    main()

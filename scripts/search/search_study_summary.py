#!/usr/bin/env python3
"""The tables of results/reference/<gpu>/search.md from what scripts/search/search_study.sh left in OUT_DIR:

    python3 scripts/search/search_study_summary.py OUT_DIR [--objective timing.median_ms]

Live searches against the full sweep (the best found as a fraction of the space's optimum, points,
wall against the full sweep's), the killed-and-resumed search against the same search run
uninterrupted, and for SYRK the best point against cuBLAS SSYRK."""
import argparse
import glob
import json
import os
import sys


def records_of_file(path):
    """The point records of a .jsonl ([] where it does not exist)."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [r for r in (json.loads(line) for line in f if line.strip()) if "point_id" in r]


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


def walls(out):
    table = {}
    path = os.path.join(out, "walls.tsv")
    if os.path.exists(path):
        for line in open(path):
            name, ms = line.split("\t")[:2]
            table[name.split("-", 1)[1]] = int(ms) / 1000
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--objective", default="timing.median_ms")
    args = parser.parse_args()
    wall = walls(args.out)
    full = records(os.path.join(args.out, "full"))
    if not full:
        sys.exit(f"{args.out}/full: no .jsonl")
    optimum, optimum_id = best(full, args.objective)
    ok = sum(r.get("status") == "ok" for r in full)
    print(f"full sweep: {len(full)} points, {ok} ok, optimum {optimum:.4f} at {optimum_id}; "
          f"plan {wall.get('plan', float('nan')):.1f} s, run {wall.get('full', float('nan')):.1f} s\n")
    print("| search | points | best found | fraction of the optimum | wall s | wall / full run |")
    print("|---|---:|---:|---:|---:|---:|")
    for folder in sorted(glob.glob(os.path.join(args.out, "live-*"))):
        name = os.path.basename(folder)[len("live-"):]
        recs = records(folder)
        found, _ = best(recs, args.objective)
        if found is None:
            print(f"| {name} | {len(recs)} | - | - | - | - |")
            continue
        w = wall.get(f"live-{name}")
        print(f"| {name} | {len(recs)} | {found:.4f} | {optimum / found:.3f} | {w:.1f} | {w / wall['full']:.3f} |")
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

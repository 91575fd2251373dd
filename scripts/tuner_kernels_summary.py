#!/usr/bin/env python3
"""The tables of results/reference/<gpu>/tuner_kernels.md from what scripts/tuner_kernels_study.sh
left in OUT_DIR:

    python3 scripts/tuner_kernels_summary.py OUT_DIR

Compile ahead: per run, the wall, the seconds the measuring process waited for NVRTC (the compile
blocks' compile_ms: the GPU idle between points on its account) and how many kernels came from the
workers' cache. Faults: the sweep's wall against its correct points alone, and where the rest went
(the faulting points' own time, from the fault's launch to its report, and the new processes)."""
import glob
import json
import os
import sys


def document(folder):
    paths = sorted(glob.glob(os.path.join(folder, "*.json")))
    return json.load(open(paths[0])) if paths else None


def walls(out):
    table = {}
    for line in open(os.path.join(out, "walls.tsv")):
        name, ms = line.split("\t")[:2]
        table[name] = int(ms) / 1000
    return table


def compile_table(out, wall):
    print("| run | points | wall s | waited for NVRTC s | kernels from the workers' cache |")
    print("|---|---:|---:|---:|---:|")
    for name in ("matmul-before", "matmul-after", "matmul-2core-before", "matmul-2core-after"):
        doc = document(os.path.join(out, name))
        if not doc:
            continue
        compiles = [r.get("compile") or {} for r in doc["results"]]
        waited = sum(c.get("compile_ms", 0.0) for c in compiles) / 1000
        hits = sum(bool(c.get("cache_hit")) for c in compiles)
        print(f"| {name} | {len(compiles)} | {wall.get(name, doc['run']['wall_s']):.1f} | {waited:.1f} | {hits} |")


def faults_table(out, wall):
    doc = document(os.path.join(out, "faults-all"))
    if not doc or "faults-correct" not in wall:
        return
    failed = [r for r in doc["results"] if r["status"] == "failed"]
    own = sum(r["time_use"]["point_s"] for r in failed)
    correct = wall["faults-correct"]
    total = wall["faults-all"]
    rest = total - own - correct
    each = ", ".join(f"{r['time_use']['point_s']:.2f}" for r in failed)
    bound = 1.5 * correct + 0.3 * len(failed)
    print(f"\nfaults: {len(doc['results'])} points, {len(failed)} faulted (each named: "
          f"{all(r.get('reason') for r in failed)}); wall {total:.2f} s, its correct points alone {correct:.2f} s; "
          f"bound 1.5 x {correct:.2f} + 0.3 x {len(failed)} = {bound:.2f} s")
    print(f"  the faulting points' own time (launch to the fault's report) {own:.2f} s "
          f"({each}); the rest {rest:.2f} s, "
          f"{rest / len(failed):.3f} s per fault")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    wall = walls(sys.argv[1])
    compile_table(sys.argv[1], wall)
    faults_table(sys.argv[1], wall)


if __name__ == "__main__":
    main()

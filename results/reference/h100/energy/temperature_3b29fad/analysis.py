#!/usr/bin/env python3
"""Joules per launch of the same point in three processes of one device call (p1, p2, p3: the
covariance chunk sweep; adjacent difference in p1 and p2) beside the GPU's temperature as each
point's window closed.
    python3 analysis.py   (in this folder)"""
import csv
import glob
import statistics


def points(run, sweep):
    paths = glob.glob(f"{run}/{sweep}-*.csv")
    if not paths:
        return None
    return {r["point_id"]: r for r in csv.DictReader(open(paths[0])) if r["energy_status"] == "ok"}


def ratio(b, a, field):
    return float(b["energy_" + field]) / float(a["energy_" + field]) - 1


for sweep in ("adjacent_difference", "covariance_chunk_sweep"):
    runs = {r: p for r in ("p1", "p2", "p3") if (p := points(r, sweep))}
    names = sorted(runs)
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            a, b = runs[x], runs[y]
            devs = sorted((abs(ratio(b[k], a[k], "joules_per_launch")) * 100, k) for k in a if k in b)
            hotter = statistics.median(float(b[k]["energy_gpu_temperature_c"]) - float(a[k]["energy_gpu_temperature_c"]) for k in a)
            power = statistics.median(ratio(b[k], a[k], "average_w") * 100 for k in a)
            print(f"{sweep} {x} against {y}: within 3% {sum(d <= 3 for d, _ in devs)} of {len(devs)}, median {statistics.median(d for d, _ in devs):.2f}%, "
                  f"worst {devs[-1][0]:.2f}% ({devs[-1][1].split('/', 1)[1]}); {y} {hotter:+.0f} C and {power:+.1f}% power in the median")
    for r, p in runs.items():
        t = [float(v["energy_gpu_temperature_c"]) for v in p.values()]
        print(f"    {r}: {min(t):.0f} to {max(t):.0f} C")

#!/usr/bin/env python3
"""The repeatability tables of results/reference/<gpu>/energy.md from the runs scripts/studies/energy_study.sh
wrote (one folder per run: p0, p1, p2, window0.1, window0.3, window1.0, plain, energy):

    python3 scripts/studies/energy_agreement.py results/reference/h100/energy

For adjacent_difference and covariance_chunk_sweep: joules per launch of the same point in two
processes (p1, p2; the default 0.2 s window; p0, where there is one: a first run on the GPU as
found), in two window lengths (0.3 s, 1 s; 0.1 s), and the counter's average power against the
mean of the driver's power samples in the same window (with how many points kept a window
measured again, the counter disagreeing with its samples, and how many were read again at the
power limit); and the wall time of each sweep with and without --energy (logs/walls.tsv or walls.tsv).
"""
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import walls as walls_of  # noqa: E402  (one reader of a study's walls file, in seconds)

SWEEPS = ("adjacent_difference", "covariance_chunk_sweep")


def energy_points(folder, sweep):
    """{point_id: record} of the sweep's points with an energy reading in one run's folder."""
    paths = sorted(Path(folder).glob(f"{sweep}-*.json"))
    if len(paths) != 1:
        return None
    doc = json.loads(paths[0].read_text())
    return {r["point_id"]: r for r in doc["results"] if (r.get("energy") or {}).get("status") == "ok"}


def spread_row(label, a, b, limit):
    """|b/a - 1| of joules per launch over the points both have: a table row (None without both runs)."""
    if not a or not b:
        return None
    devs = sorted((abs(b[k]["energy"]["joules_per_launch"] / a[k]["energy"]["joules_per_launch"] - 1) * 100, k)
                  for k in a if k in b)
    within = sum(d <= limit for d, _ in devs)
    worst, where = devs[-1]
    return (f"| {label} | {len(devs)} | {statistics.median(d for d, _ in devs):.2f}% | {worst:.2f}% "
            f"(`{where}`) | {within} of {len(devs)} |")


def power_row(label, points):
    devs = sorted(abs(r["energy"]["power_samples_mean_w"] / r["energy"]["average_w"] - 1) * 100
                  for r in points.values() if r["energy"].get("power_samples_mean_w"))
    again = sum("other_window" in r["energy"] for r in points.values())
    at_limit = sum(bool(r["energy"].get("at_power_limit")) for r in points.values())
    return (f"| {label} | {len(devs)} | {statistics.median(devs):.2f}% | {devs[-1]:.2f}% | "
            f"{sum(d <= 5 for d in devs)} of {len(devs)} | {again} | {at_limit} |")


RUNS = ("p0", "p1", "p2", "window0.1", "window0.3", "window1.0")
PAIRS = (("p1", "p2", "two processes, 0.2 s window"),
         ("p0", "p1", "the first run on the GPU as found against the next, 0.2 s"),
         ("window0.3", "window1.0", "0.3 s against 1 s window"),
         ("window0.1", "window1.0", "0.1 s against 1 s window"))
COST = (("adjacent_difference", "adjacent_difference-energy-p1"), ("adjacent_difference", "adjacent_difference-energy-p2"),
        ("covariance_chunk_sweep", "covariance_chunk_sweep-energy-p1"),
        ("covariance_chunk_sweep", "covariance_chunk_sweep-energy-p2"),
        ("covariance_seed_size", "covariance_seed_size-energy"), ("matmul", "matmul-energy"),
        ("matmul_4096", "matmul_4096-energy"))


def cost_rows(walls):
    rows = ["| config | without --energy | with --energy | ratio |", "|---|---:|---:|---:|"]
    for sweep, energy_run in COST:
        if f"{sweep}-plain" in walls and energy_run in walls:
            plain, with_energy = walls[f"{sweep}-plain"], walls[energy_run]
            rows.append(f"| {sweep} ({energy_run.rsplit('-', 1)[1]}) | {plain:.1f} s | {with_energy:.1f} s | {with_energy / plain:.2f}x |")
    return rows


def main(root):
    root = Path(root)
    out = ["| compared | points | median | worst | within 3% |", "|---|---:|---:|---:|---:|"]
    power = ["| run | points | median | worst | within 5% | measured again | at the power limit |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for sweep in SWEEPS:
        runs = {name: energy_points(root / name, sweep) for name in RUNS}
        out += [row for a, b, label in PAIRS if (row := spread_row(f"{sweep}: {label}", runs[a], runs[b], 3))]
        power += [power_row(f"{sweep} {name}", points) for name, points in runs.items() if points]
    walls_path = next((p for p in (root / "logs" / "walls.tsv", root / "walls.tsv") if p.exists()), None)
    walls = walls_of(walls_path.read_text()) if walls_path else {}
    print("Joules per launch, run against run:\n\n" + "\n".join(out))
    print("\nCounter against the driver's power samples in the same window (|mean of samples / counter's average - 1|):\n\n"
          + "\n".join(power))
    print("\nWall time of the whole command:\n\n" + "\n".join(cost_rows(walls)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "results/reference/h100/energy"))

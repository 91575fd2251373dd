#!/usr/bin/env python3
"""Joules per launch with the counter's energy divided by the nominal window (counter periods x the
calibrated period, as occbench does) or by the observed one (from the reading that saw the opening
step to the one that saw the closing step): two processes (p1, p2) and the driver's power samples.
    python3 analysis.py   (in this folder)"""
import csv
import glob
import statistics


def points(run, sweep):
    rows = csv.DictReader(open(glob.glob(f"{run}/{sweep}-*.csv")[0]))
    return {r["point_id"]: r for r in rows if r["energy_status"] == "ok"}


def watts(r, observed):
    return float(r["energy_energy_j"]) / float(r["energy_window_observed_s" if observed else "energy_window_s"])


def joules(r, observed):
    return watts(r, observed) * float(r["energy_launch_ms"]) * 1e-3


for sweep in ("adjacent_difference", "covariance_chunk_sweep"):
    a, b = points("p1", sweep), points("p2", sweep)
    for observed in (False, True):
        devs = sorted((abs(joules(b[k], observed) / joules(a[k], observed) - 1) * 100, k) for k in a if k in b)
        print(f"{sweep}, {'observed' if observed else 'nominal'} window: two processes median {statistics.median(d for d, _ in devs):.2f}% "
              f"worst {devs[-1][0]:.2f}% within 3% {sum(d <= 3 for d, _ in devs)} of {len(devs)}")
        for run, p in (("p1", a), ("p2", b)):
            dv = [abs(float(r["energy_power_samples_mean_w"]) / watts(r, observed) - 1) * 100 for r in p.values()
                  if int(r["energy_power_samples"])]
            print(f"    {run} power samples against the counter: median {statistics.median(dv):.2f}% worst {max(dv):.2f}% "
                  f"within 5% {sum(x <= 5 for x in dv)} of {len(dv)}")
    ratio = [float(r["energy_window_observed_s"]) / float(r["energy_window_s"]) for r in list(a.values()) + list(b.values())]
    print(f"    observed / nominal window: {min(ratio):.3f} to {max(ratio):.3f}, median {statistics.median(ratio):.4f}")

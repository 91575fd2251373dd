#!/usr/bin/env python3
"""Two GPUs' records of the same sweeps, point by point (matched by point id): per group of points, the
speedup (first GPU's median over the second's), each GPU's achieved bandwidth as a share of its own
measured copy bandwidth, and the speedup over the ratio of the copy bandwidths (1.0: the group scales
with the memory; below: it does not).

    python3 scripts/studies/gpu_compare_table.py SPEC.json
SPEC.json: {"first": "results/reference/h100", "second": "results/reference/h200", "names": ["H100", "H200"],
            "rows": [{"label": "...", "sweeps": ["adjacent_difference"], "variants": ["vectorized"],
                      "params": {"n": 268435456}, "pct": "best" (the most of the points), "range" or "none"}, ...]}
"""
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def ok_points(folder, sweep):
    doc = json.loads((ROOT / folder / f"{sweep}.json").read_text())
    return {r["point_id"]: r for r in doc["results"] if r.get("status") == "ok"}, doc["device"]["measured_bandwidth_gbps"]


def pairs(spec, row):
    """(first, second, first's copy GB/s, second's) of each point of the row's sweeps, variants and params."""
    out = []
    for sweep in row["sweeps"]:
        (a, copy_a), (b, copy_b) = ok_points(spec["first"], sweep), ok_points(spec["second"], sweep)
        for pid, r in a.items():
            if pid in b and (not row.get("variants") or r["variant"] in row["variants"]) and \
                    all(r["params"].get(k) == v for k, v in row.get("params", {}).items()):
                out.append((r, b[pid], copy_a, copy_b))
    return out


def pct(r):
    return r["metrics"].get("pct_of_measured_bandwidth")


def line(row, found):
    speedups = [a["timing"]["median_ms"] / b["timing"]["median_ms"] for a, b, _, _ in found]
    copy_ratio = found[0][3] / found[0][2]
    geo = math.exp(sum(map(math.log, speedups)) / len(speedups))
    if row.get("pct") == "best":
        share = f"{max(pct(a) for a, _, _, _ in found):.0f} → {max(pct(b) for _, b, _, _ in found):.0f}% (the most)"
    elif row.get("pct") == "range":
        share = f"{min(pct(a) for a, _, _, _ in found):.0f}–{max(pct(a) for a, _, _, _ in found):.0f} → " \
                f"{min(pct(b) for _, b, _, _ in found):.0f}–{max(pct(b) for _, b, _, _ in found):.0f}%"
    else:
        share = "—"
    return (f"| {row['label']} | {len(found)} | {min(speedups):.2f}–{max(speedups):.2f}× (geometric mean {geo:.2f}×) | "
            f"{share} | {geo / copy_ratio:.2f} |")


def main(path):
    spec = json.loads(Path(path).read_text())
    first, second = spec["names"]
    print(f"| sweep, variant | points | speedup {first} → {second} | % of copy, {first} → {second} | "
          "geometric-mean speedup ÷ copy-bandwidth ratio |")
    print("| --- | ---: | --- | --- | ---: |")
    for row in spec["rows"]:
        print(line(row, pairs(spec, row)))


if __name__ == "__main__":
    main(sys.argv[1])

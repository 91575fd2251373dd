#!/usr/bin/env python3
"""Markdown tables of the occupancy study (issue 13) from occbench results files:

    python3 scripts/studies/occupancy_tables.py results/reference/h100/occupancy/occupancy_*.json

the device's measured ceilings and the Little's-law figure; per curve over occupancy_limit, the time
at each forced occupancy over the curve's best, the knee and the prediction; seed 000's chunk sizes
at equal occupancy; the __launch_bounds__ variants (registers, spills, occupancy, time).
The knee is occbench report's: the lowest theoretical occupancy within 5% of the curve's best.
"""
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "plots"))
from occplot import number as num  # noqa: E402  (row["a"]["b"] for "a.b" when a finite number, else None)

TOLERANCE = 0.05


def timed(doc):
    return [r for r in doc["results"] if r.get("status") == "ok" and num(r, "timing.median_ms")]


def curve_name(r):
    rest = " ".join(f"{k}={v}" for k, v in r["params"].items() if k != "occupancy_limit")
    return f"{r['family']}/{r['variant']} {rest}"


def curves(rows):
    """Forced points by curve; occupancy_limit 0 (unforced) is each curve's reference, not a point."""
    out = defaultdict(list)
    for r in rows:
        if r["params"].get("occupancy_limit", 0) != 0:
            out[curve_name(r)].append(r)
    return {k: sorted(v, key=lambda r: num(r, "occupancy.theoretical")) for k, v in out.items() if len(v) >= 2}


def unforced_text(reference, points, best):
    """The unforced launch's median over the curve's best, and over the forced point at its occupancy."""
    if not reference:
        return "–"
    same = [r for r in points if num(r, "occupancy.theoretical") == num(reference, "occupancy.theoretical")]
    text = f"{num(reference, 'timing.median_ms') / best:.2f} of best"
    if same:
        text += f"; forced/unforced {num(same[0], 'timing.median_ms') / num(reference, 'timing.median_ms'):.3f}"
    return text


def ms(value):
    return f"{value * 1e3:.1f} µs" if value < 1 else f"{value:.3g} ms"


def main(paths):
    docs = [json.load(open(p)) for p in paths]
    d = docs[0]["device"]
    bw, lat, sms = d.get("measured_bandwidth_gbps"), d.get("dram_latency_ns"), d.get("sm_count")
    latencies = ", ".join(f"{x['device']['dram_latency_ns']:.0f}" for x in docs)
    print(f"Device: {d['name']}, {sms} SMs; copy bandwidth {bw:.0f} GB/s and DRAM latency {lat:.0f} ns measured "
          f"(latency of each run: {latencies} ns); "
          f"Little's law: {bw * lat / 1e3:.0f} KB in flight, {bw * lat / sms:.0f} B per SM.\n")

    print("| curve | natural occupancy | time / best at each forced occupancy | knee (blocks/SM) | predicted knee | "
          "B in flight per warp | unforced (default carveout) |")
    print("|---|---|---|---|---|---|---|")
    for doc in docs:
        unforced = {curve_name(r): r for r in timed(doc) if r["params"].get("occupancy_limit") == 0}
        for name, points in curves(timed(doc)).items():
            best = min(num(r, "timing.median_ms") for r in points)
            knee = next(r for r in points if num(r, "timing.median_ms") <= (1 + TOLERANCE) * best)
            cells = ", ".join(f"{num(r, 'occupancy.theoretical'):.3g}: {num(r, 'timing.median_ms') / best:.2f}" for r in points)
            natural = max(num(r, "occupancy.forced.natural_blocks_per_sm") * num(r, "occupancy.active_warps_per_sm")
                          / num(r, "occupancy.active_blocks_per_sm") / num(r, "occupancy.max_warps_per_sm") for r in points)
            predicted = num(points[0], "littles_law.predicted_knee_occupancy")
            b = num(points[0], "work.bytes_in_flight_per_warp")
            print(f"| {name} | {natural:.3g} | {cells} (best {ms(best)}) | {num(knee, 'occupancy.theoretical'):.3g} "
                  f"({num(knee, 'occupancy.active_blocks_per_sm')}) | {'–' if predicted is None else f'{predicted:.3g}'} | "
                  f"{'–' if b is None else f'{b:.0f}'} | {unforced_text(unforced.get(name), points, best)} |")

    rows = [r for doc in docs for r in timed(doc)]
    shared = [r for r in rows if r["family"] == "covariance" and r["variant"].startswith("shared_")]
    if shared:
        print("\nSeed 000, covariance shared kernel (m = 5,000, n = 2,475): median at each chunk and occupancy\n")
        print("| variant | chunk | blocks/SM | occupancy | median | ballast B |")
        print("|---|---|---|---|---|---|")
        for r in sorted(shared, key=lambda r: (r["variant"], r["params"]["chunk_size"], -num(r, "occupancy.theoretical"))):
            print(f"| {r['variant']} | {r['params']['chunk_size']} | {num(r, 'occupancy.active_blocks_per_sm')} | "
                  f"{num(r, 'occupancy.theoretical'):.3g} | {ms(num(r, 'timing.median_ms'))} | {num(r, 'launch.ballast_bytes') or 0} |")

    bounded = [r for r in rows if r["variant"].endswith("_bounded") or
               (r["variant"] == "register_tiled" and "occupancy_limit" in r["params"])]
    if bounded:
        print("\nRegisters as the lever (__launch_bounds__(threads, min_blocks)) beside ballast\n")
        print("| variant | params | registers | local B/thread | blocks/SM | occupancy | limiter | median |")
        print("|---|---|---|---|---|---|---|---|")
        for r in bounded:
            params = " ".join(f"{k}={v}" for k, v in r["params"].items() if k not in ("m", "n", "k"))
            print(f"| {r['variant']} | {params} | {num(r, 'resources.registers_per_thread')} | "
                  f"{num(r, 'resources.local_bytes_per_thread')} | {num(r, 'occupancy.active_blocks_per_sm')} | "
                  f"{num(r, 'occupancy.theoretical'):.3g} | {r['occupancy']['limiter']} | {ms(num(r, 'timing.median_ms'))} |")


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""Markdown tables of the occupancy study (issue 13) from occbench results files:

    python3 scripts/studies/occupancy_tables.py [--table NAME] results/reference/h100/occupancy/occupancy_*.json

device: the measured ceilings and the Little's-law figure; curves: per curve over occupancy_limit,
the time at each forced occupancy over the curve's best, the knee and the prediction; chunks: seed
000's chunk sizes at equal occupancy; little: the predicted knee beside the measured one;
bounds: the __launch_bounds__ variants (registers, spills, occupancy, time). All of them without --table.
The knee is occbench report's: the lowest theoretical occupancy within 5% of the curve's best.
"""
import argparse
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


def median(r):
    return num(r, "timing.median_ms")


def occupancy(r):
    return num(r, "occupancy.theoretical")


def fmt(value, spec=".3g"):
    return "–" if value is None else format(value, spec)


def device_line(docs):
    d = docs[0]["device"]
    bw, lat, sms = d.get("measured_bandwidth_gbps"), d.get("dram_latency_ns"), d.get("sm_count")
    latencies = ", ".join(f"{x['device']['dram_latency_ns']:.0f}" for x in docs)
    return [f"Device: {d['name']}, {sms} SMs; copy bandwidth {bw:.0f} GB/s and DRAM latency {lat:.0f} ns measured "
            f"(latency of each run: {latencies} ns); "
            f"Little's law: {bw * lat / 1e3:.0f} KB in flight, {bw * lat / sms:.0f} B per SM."]


COLUMNS = (0.125, 0.25, 0.5, 0.75, 1.0)  # the forced occupancies every curve's row shows


def curve_rows(docs):
    """(name, forced points by occupancy, the unforced point, best ms, knee point) of each curve."""
    for doc in docs:
        unforced = {curve_name(r): r for r in timed(doc) if r["params"].get("occupancy_limit") == 0}
        for name, points in curves(timed(doc)).items():
            best = min(median(r) for r in points)
            knee = next(r for r in points if median(r) <= (1 + TOLERANCE) * best)
            yield name, points, unforced.get(name), best, knee


def curves_table(docs):
    out = [f"| curve | natural occupancy (limiter) | time ÷ best at {' · '.join(f'{c:g}' for c in COLUMNS)} | best | "
           "knee (blocks/SM) | predicted (Little) | forced ÷ unforced at natural |", "|---|---|---|---|---|---|---|"]
    for name, points, unforced, best, knee in curve_rows(docs):
        at = {occupancy(r): median(r) / best for r in points}
        natural = next((r for r in points if occupancy(r) == occupancy(unforced)), None) if unforced else None
        limiter = f"{fmt(occupancy(unforced))} ({', '.join(unforced['occupancy']['limiters'])})" if unforced else "–"
        forced_over = fmt(median(natural) / median(unforced), ".3f") if natural else "–"
        out.append(f"| {name} | {limiter} | {' · '.join(fmt(at.get(c), '.2f') for c in COLUMNS)} | {ms(best)} | "
                   f"{fmt(occupancy(knee))} ({num(knee, 'occupancy.active_blocks_per_sm')}) | "
                   f"{fmt(num(points[0], 'littles_law.predicted_knee_occupancy'))} | {forced_over} |")
    return out


def chunk_points(rows):
    """{chunk: (unforced, forced at its natural occupancy, forced at 0.5)} of seed 000's shared kernel;
    shared_static where it has the chunk, else shared_dynamic."""
    shared = [r for r in rows if r["family"] == "covariance" and r["variant"] in ("shared_static", "shared_dynamic")]
    out = {}
    for chunk in sorted({r["params"]["chunk_size"] for r in shared}):
        mine = [r for r in shared if r["params"]["chunk_size"] == chunk]
        variant = "shared_static" if any(r["variant"] == "shared_static" for r in mine) else "shared_dynamic"
        mine = [r for r in mine if r["variant"] == variant]
        unforced = next(r for r in mine if r["params"].get("occupancy_limit") == 0)
        forced = {occupancy(r): r for r in mine if r["params"].get("occupancy_limit")}
        out[chunk] = (variant, unforced, forced.get(occupancy(unforced)), forced.get(0.5))
    return out


def chunks_table(docs):
    points = chunk_points([r for doc in docs for r in timed(doc)])
    _, ref_unforced, ref_natural, ref_half = points[max(points)]
    out = [f"| chunk | natural occupancy | unforced | forced, natural occupancy | forced to 0.5 | ÷ chunk {max(points)} unforced | "
           f"÷ chunk {max(points)}, both forced at 1.0 | ÷ chunk {max(points)}, both at 0.5 |", "|---|---|---|---|---|---|---|---|"]
    for chunk, (variant, unforced, natural, half) in points.items():
        half = half or (natural if occupancy(unforced) == 0.5 else None)
        at_one = median(natural) / median(ref_natural) if natural and occupancy(natural) == 1 else None
        out.append(f"| {chunk} (`{variant}`) | {fmt(occupancy(unforced))} | {ms(median(unforced))} | {ms(median(natural))} | "
                   f"{ms(median(half)) if half else '–'} | {median(unforced) / median(ref_unforced):.2f}× | "
                   f"{fmt(at_one, '.2f')}{'×' if at_one else ''} | "
                   f"{fmt(median(half) / median(ref_half) if half else None, '.2f')}{'×' if half else ''} |")
    return out


def little_table(docs):
    """Each modelled curve: the warps Little's law needs, the predicted and measured knee, and the share of
    the copy bandwidth reached at the first forced point at or above the prediction and at the knee."""
    out = ["| curve | b (B per warp) | warps needed | predicted knee | measured knee | % of copy bandwidth at the "
           "first point ≥ predicted | % at the knee |", "|---|---|---|---|---|---|---|"]
    for name, points, _, _, knee in curve_rows(docs):
        predicted = num(points[0], "littles_law.predicted_knee_occupancy")
        if predicted is None:
            continue
        above = next((r for r in points if occupancy(r) >= predicted), points[-1])
        pct = "metrics.pct_of_measured_bandwidth"
        out.append(f"| {name} | {num(points[0], 'littles_law.bytes_in_flight_per_warp'):.0f} | "
                   f"{num(points[0], 'littles_law.warps_per_sm_needed')} | {predicted:.3g} | {fmt(occupancy(knee))} | "
                   f"{num(above, pct):.1f}% at {fmt(occupancy(above))} | {num(knee, pct):.1f}% |")
    return out


def unbounded(r, rows):
    """The launch a __launch_bounds__ variant bounds: its plain variant, unforced, with the same parameters."""
    base = r["variant"].removesuffix("_bounded")
    same = {k: v for k, v in r["params"].items() if k != "min_blocks"}
    return next((x for x in rows if x["variant"] == base and x["params"].get("occupancy_limit") == 0
                 and all(x["params"].get(k) == v for k, v in same.items())), None)


def bounds_table(docs):
    rows = [r for doc in docs for r in timed(doc)]
    out = ["| variant | params | registers | local B/thread | blocks/SM | occupancy | limiter | median | ÷ unbounded |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in (r for r in rows if r["variant"].endswith("_bounded")):
        params = " ".join(f"{k}={v}" for k, v in r["params"].items() if k not in ("m", "n", "k"))
        base = unbounded(r, rows)
        out.append(f"| {r['variant']} | {params} | {num(r, 'resources.registers_per_thread')} | "
                   f"{num(r, 'resources.local_bytes_per_thread')} | {num(r, 'occupancy.active_blocks_per_sm')} | "
                   f"{fmt(occupancy(r))} | {r['occupancy']['limiter']} | {ms(median(r))} | "
                   f"{fmt(median(r) / median(base) if base else None, '.2f')} |")
    return out


TABLES = {"device": device_line, "curves": curves_table, "chunks": chunks_table, "little": little_table,
          "bounds": bounds_table}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", choices=TABLES, help="print this table alone")
    ap.add_argument("results", nargs="+")
    a = ap.parse_args()
    docs = [json.load(open(p)) for p in a.results]
    names = [a.table] if a.table else list(TABLES)
    print("\n\n".join("\n".join(TABLES[name](docs)) for name in names))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The table of examples/launch_matmul's loop (capture, tune, run tuned), from what run.sh wrote:

    python3 scripts/studies/launch_example_table.py results/reference/h200/launch_example

reads untuned.json (the application's first run, which captured each size) and tuned.json (its run
with the tuning's results: the tuned kernel and the defaults in one process, their launches
interleaved) and prints, per size, the configuration occbench::launch chose and why, both times,
the speedup, whether every bit of C equals the defaults' in that run, and whether C's hash equals
the untuned run's.
"""
import argparse
import json
import sys
from pathlib import Path


def shape(params):
    return f"{params['BLOCK_X']}x{params['BLOCK_Y']} threads, {params['TILE_X']}x{params['TILE_Y']} each"


def why(record):
    if record["from"] == "defaults":
        return "defaults (no results)"
    reason = record["reason"]
    where = "at this size" if "best at this size" in reason else "nearest tuned size " + reason.split("best at ")[1].split(",")[0]
    return f"this GPU's best {where}" if record["from"] == "this_gpu" else f"same architecture's best {where}"


def table(folder):
    untuned = {s["n"]: s for s in json.loads((folder / "untuned.json").read_text())["sizes"]}
    tuned = json.loads((folder / "tuned.json").read_text())
    lines = [f"On the {tuned['gpu']} (compute capability {tuned['compute_capability']}); times are medians of one launch, "
             "the tuned kernel's and the defaults' launches interleaved in one process.", "",
             "| n | configuration | chosen | defaults (ms) | tuned (ms) | speedup | C = defaults' C | C = untuned run's |",
             "|---:|---|---|---:|---:|---:|---|---|"]
    for s in tuned["sizes"]:
        app, defaults = s["app"], s["defaults"]
        same_run = "every bit" if s["identical_to_defaults"] else f"no (max diff {s['max_abs_difference_to_defaults']:.3g})"
        before = untuned.get(s["n"])
        same_untuned = "—" if before is None else ("same hash" if before["c_fnv1a64"] == s["c_fnv1a64"] else "DIFFERENT")
        lines.append(f"| {s['n']} | {shape(app['params'])} | {why(app)} | {defaults['median_ms']:.3f} | {app['median_ms']:.3f} | "
                     f"{s['speedup_over_defaults']:.2f}x | {same_run} | {same_untuned} |")
    lines.append("")
    lines.append(f"Defaults: {shape(tuned['sizes'][0]['defaults']['params'])}. Sampled elements checked against the CPU: "
                 f"{sum(s['checked_elements'] for s in tuned['sizes'])}, wrong: {sum(s['wrong_elements'] for s in tuned['sizes'])}.")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="run.sh's output folder (untuned.json, tuned.json)")
    a = ap.parse_args()
    sys.stdout.write(table(a.folder))

#!/usr/bin/env python3
"""The README's first command timed as a new user meets it: RUNS fresh clones of this checkout, one
after the other, `bash scripts/quickstart.sh` in each, the wall time and the script's own `time per
step` line of each kept (docs/install.md quotes the median).

    python3 scripts/checks/quickstart_bench.py --runs 3 --out results/reference/cpu/quickstart.json
    python3 scripts/checks/quickstart_bench.py --table results/reference/cpu/quickstart.json
"""
import argparse
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench_cli import bench_main, machine

ROOT = Path(__file__).resolve().parents[2]
STEP = re.compile(r"([^,]+?) (\d+) s")


def steps_of(log):
    """{step: seconds} from quickstart's `time per step: packages 0 s, build (sm_90) 121 s, ...` line."""
    line = next((l for l in log.splitlines() if "time per step:" in l), "")
    return {name.strip(): int(s) for name, s in STEP.findall(line.split("time per step:", 1)[-1])}


def one_run(scratch, i):
    clone = Path(scratch) / f"clone{i}"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    start = time.perf_counter()
    done = subprocess.run(["bash", "scripts/quickstart.sh"], cwd=clone, capture_output=True, text=True)
    wall = time.perf_counter() - start
    return {"exit": done.returncode, "wall_s": round(wall, 1), "steps_s": steps_of(done.stdout + done.stderr)}


def run(runs):
    commit = subprocess.run(["git", "rev-parse", "--short=7", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as scratch:
        rows = [one_run(scratch, i) for i in range(runs)]
    return {"commit": commit, "machine": machine(), "runs": rows}


def table(data):
    rows = data["runs"]
    names = list(dict.fromkeys(name for r in rows for name in r["steps_s"]))
    lines = [f"| step | " + " | ".join(f"run {i + 1}" for i in range(len(rows))) + " | median |",
             "|---|" + "---:|" * (len(rows) + 1)]
    for name in names:
        values = [r["steps_s"].get(name, 0) for r in rows]
        lines.append(f"| {name} | " + " | ".join(f"{v} s" for v in values) + f" | {statistics.median(values):g} s |")
    walls = [r["wall_s"] for r in rows]
    lines.append("| **whole command (wall)** | " + " | ".join(f"{w:.0f} s" for w in walls) + f" | **{statistics.median(walls):.0f} s** |")
    return "\n".join(lines) + f"\n\n({len(rows)} fresh clones of `{data['commit']}`, {data['machine']['cores']} cores, one after the other.)\n"


if __name__ == "__main__":
    bench_main(argparse.ArgumentParser(description=__doc__.splitlines()[0]), lambda a: run(a.runs), table)

#!/usr/bin/env python3
"""`occbench plan` of a user kernel's 320 instantiations, each with its own -D options, from an empty
NVRTC cache: compiled one point after another in the plan's own process ($OCCBENCH_COMPILE_PROCESSES=1)
against worker processes filling the cache first (one per core), on an idle machine (the 2-core
development machine: results/reference/cpu/compile_ahead.md), never in a timed test.

    python3 scripts/checks/compile_ahead_bench.py --occbench build/occbench --runs 1 --out results/reference/cpu/compile_ahead.json
    python3 scripts/checks/compile_ahead_bench.py --table results/reference/cpu/compile_ahead.json
"""
import os
import statistics
import subprocess
import tempfile
import time

from bench_cli import machine, occbench_bench_main

CONFIG = "examples/compile_benchmark/compile_benchmark_defines.json"
MODES = [("before: compiled one point after another (OCCBENCH_COMPILE_PROCESSES=1)", "1"),
         (f"after: {os.cpu_count()} worker processes fill the cache first", None)]


def plan_wall_s(occbench, processes):
    """One plan's wall from an empty cache (its own folder), in seconds."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "OCCBENCH_CACHE_DIR": cache, "CUDA_CACHE_DISABLE": "1"}
        env.pop("OCCBENCH_COMPILE_PROCESSES", None)
        if processes:
            env["OCCBENCH_COMPILE_PROCESSES"] = processes
        start = time.perf_counter()
        subprocess.run([occbench, "plan", CONFIG, "--gpu", "h100", "--out", out], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - start


def run(occbench, runs):
    rows = [{"mode": mode, "wall_s": [plan_wall_s(occbench, processes) for _ in range(runs)]} for mode, processes in MODES]
    return {"machine": machine(), "runs": runs, "rows": rows}


def table(data):
    before = statistics.median(data["rows"][0]["wall_s"])
    lines = ["| | wall s | ratio |", "|---|---:|---:|"]
    lines += [f"| {r['mode']} | {statistics.median(r['wall_s']):.1f} | {before / statistics.median(r['wall_s']):.2f}× |" for r in data["rows"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    occbench_bench_main(run, table)

#!/usr/bin/env python3
"""Each command's wall time and peak memory on a space of 9*10^9 points (ten axes of ten values,
one restriction; also with a templated kernel, and a restriction over every axis at 1 and 100
sizes), the bound issue 59 sets: within 10 s and 1 GB on 2 cores, or refused at once; and the
spaces the fuzzer found too slow to answer (tests/fuzz/regressions/config/), answered now.
The same space as tests/test_counted_sweep.cpp's EveryCommandAnswersATenBillionPointSpaceInBoundedMemory,
which holds the memory bound in CI; the times are measured here, on an idle machine.

    python3 scripts/checks/bounds_bench.py --occbench build/occbench --runs 3 --out results/reference/cpu/bounds.json
    python3 scripts/checks/bounds_bench.py --table results/reference/cpu/bounds.json
"""
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench_cli import machine, occbench_bench_main

KERNEL = "__global__ void k(float* out, unsigned n) { unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 1.0f; }\n"


TEMPLATE = ("template <int P> __global__ void t(float* out, unsigned n) { unsigned i = blockIdx.x * blockDim.x + threadIdx.x; "
            "if (i < n) out[i] = P * D; }\n")


def space_config(folder, restriction="p0 + p1 > 5", name="space", kernel=None, sizes=(4096,)):
    doc = {"name": "space", "source": "k.cu", "sizes": {"n": list(sizes)},
           "axes": {f"p{a}": list(range(1, 11)) for a in range(10)}, "restrictions": [restriction],
           "arguments": [{"name": "out", "role": "output", "type": "float32", "count": "n"},
                         {"name": "n", "role": "scalar", "type": "uint32", "value": "n"}],
           "kernels": {"first": {"kernel": "k", "grid": "ceil_div(n, 128)", "block": "128"}},
           "reference": {"variant": "first", "params": {}}}
    if kernel:  # a templated kernel: its name reads p0, a define p1
        doc["source"] = "t.cu"
        doc["kernels"]["first"].update(kernel=kernel, defines={"D": "p1"})
    (folder / "k.cu").write_text(KERNEL)
    (folder / "t.cu").write_text(TEMPLATE)
    (folder / f"{name}.json").write_text(json.dumps(doc))
    return str(folder / f"{name}.json")


def commands(config, folder):
    return [["validate", config], ["run", config, "--dry-run"],
            ["run", config, "--dry-run", "--strategy", "random", "--max-points", "5"],
            ["run", config, "--dry-run", "--strategy", "local", "--max-points", "5"],
            ["run", config, "--dry-run", "--shard", "3/7"], ["run", config, "--dry-run", "--filter", "p0=3"],
            ["plan", config, "--gpu", "h100", "--out", str(folder / "plan")]]


# A restriction over every axis: counting it would visit nearly every combination, so the space is
# refused, within a bounded number of steps (CountedSweep).
UNCOUNTABLE = " + ".join(f"p{a}" for a in range(10)) + " > 12"
# The same over 100 sizes: each size's count is bounded together with the others' (memory and steps).
HUNDRED_SIZES = range(32, 3232, 32)


# The spaces the fuzzer found too slow to answer (docs/fuzzing.md), answered now: the GEMM space of
# 15 axes at a hundred sizes (its regression input, beside a stand-in for its source) and SYRK's.
ROOT = Path(__file__).resolve().parents[2]
GEMM = "gemm_space_over_many_sizes_counted_too_long.json"
SYRK = ROOT / "examples" / "search" / "syrk" / "syrk.json"


def found_spaces(folder):
    shutil.copy(ROOT / "tests" / "fuzz" / "regressions" / "config" / GEMM, folder / GEMM)
    (folder / "probe.cu").write_text(KERNEL)
    return [["validate", str(folder / GEMM)], ["validate", str(SYRK)]]


def shown_path(arg, scratch):
    """An argument as the table shows it: the plan's folder PLAN, a file by its name in the repository."""
    if arg.startswith(scratch):
        return "PLAN" if arg.endswith("plan") else Path(arg).name
    return arg.replace(f"{ROOT}/", "")


def measure(occbench, args):
    """(exit code, wall s, peak resident MB) of one run of the command, its output dropped."""
    start = time.perf_counter()
    child = subprocess.Popen([occbench, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    return os.waitstatus_to_exitcode(status), time.perf_counter() - start, usage.ru_maxrss / 1024


def run(occbench, runs):
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        config, far = space_config(folder), space_config(folder, UNCOUNTABLE, "far")
        templated = space_config(folder, name="templated", kernel="t<{p0}>")
        far_sizes = space_config(folder, UNCOUNTABLE, "far_sizes", sizes=HUNDRED_SIZES)
        names = {config: "SPACE.json", far: "FAR.json", templated: "TEMPLATED.json", far_sizes: "FAR100.json"}
        for args in commands(config, folder) + [["validate", far], ["run", far, "--dry-run"], ["validate", templated],
                                                ["run", templated, "--dry-run"], ["validate", far_sizes]] + found_spaces(folder):
            samples = [measure(occbench, args) for _ in range(runs)]
            shown = " ".join(names.get(a, shown_path(a, scratch)) for a in args)
            rows.append({"command": shown, "exit": samples[0][0], "wall_s": [s[1] for s in samples],
                         "peak_mb": max(s[2] for s in samples)})
    return {"machine": machine(), "runs": runs, "rows": rows}


def table(data):
    lines = ["| command (SPACE: 9·10⁹ points; FAR: 10¹⁰ under a restriction over every axis, FAR100 at 100 sizes; "
             "TEMPLATED: SPACE with a kernel `t<{p0}>` and a define of p1) | exit | wall, median (s) "
             "| peak memory (MB) |", "|---|---:|---:|---:|"]
    for r in data["rows"]:
        lines.append(f"| `occbench {r['command']}` | {r['exit']} | {statistics.median(r['wall_s']):.2f} | {r['peak_mb']:.0f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    occbench_bench_main(run, table)

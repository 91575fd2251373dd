#!/usr/bin/env python3
"""Whole-process wall and peak memory of the commands that count examples/search/large_space
(12 axes, 100,663,296 combinations, twelve restrictions keeping 223,956 points) instead of
expanding it: the table of results/reference/h100/search/batches/README.md, measured on an idle
machine (the 2-core development machine), never in a timed test.

    python3 scripts/checks/large_space_bench.py --occbench build/occbench --runs 5 --out results/reference/cpu/large_space.json
    python3 scripts/checks/large_space_bench.py --table results/reference/cpu/large_space.json
"""
import statistics
import tempfile

from bench_cli import machine, occbench_bench_main
from bounds_bench import measure

CONFIG = "examples/search/large_space/large_space.json"
COMMANDS = [  # (what it shows, its arguments, runs: plan is slower)
    ("`validate` (the count)", ["validate", CONFIG], None),
    ("`run --dry-run` (the count, the first 1,000 points, what each restriction rules out)", ["run", CONFIG, "--dry-run"], None),
    ("`run --dry-run --strategy random --max-points 120`", ["run", CONFIG, "--dry-run", "--strategy", "random", "--max-points", "120"], None),
    ("`run --dry-run --strategy local --max-points 120` (the search's 100,000 candidates drawn)",
     ["run", CONFIG, "--dry-run", "--strategy", "local", "--max-points", "120"], None),
    ("`plan --gpu h100` (a uniform sample of 10,000 planned)", ["plan", CONFIG, "--gpu", "h100", "--out", "{scratch}/plan"], 3),
]


def run(occbench, runs):
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for shown, args, fewer in COMMANDS:
            samples = [measure(occbench, [a.format(scratch=scratch) for a in args]) for _ in range(min(runs, fewer or runs))]
            if samples[0][0] != 0:
                raise SystemExit(f"large_space_bench: occbench {' '.join(args)} exited {samples[0][0]} (run from the repository's root)")
            rows.append({"command": shown, "exit": samples[0][0], "wall_s": [s[1] for s in samples],
                         "peak_mb": max(s[2] for s in samples)})
    return {"machine": machine(), "runs": runs, "rows": rows}


def table(data):
    lines = ["| command | wall s | peak MiB |", "|---|---:|---:|"]
    lines += [f"| {r['command']} | {statistics.median(r['wall_s']):.2f} | {r['peak_mb']:.0f} |" for r in data["rows"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    occbench_bench_main(run, table)

"""The command line the benchmarks of scripts/checks/ share: measure (--runs) and write the data as
JSON (--out, else standard output), or print the table of committed data (--table FILE), which
scripts/checks/generated_tables.py runs to check a generated table."""
import argparse
import json
import os
import platform
from pathlib import Path


def bench_main(ap, run, table):
    """`ap`: the script's parser with its own flags; `run(args)` measures; `table(data)` renders."""
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out")
    ap.add_argument("--table")
    a = ap.parse_args()
    if a.table:
        print(table(json.loads(Path(a.table).read_text())), end="")
        return
    text = json.dumps(run(a), indent=1) + "\n"
    Path(a.out).write_text(text) if a.out else print(text, end="")


def machine():
    """The machine a benchmark measured on, as its data records it."""
    return {"cores": os.cpu_count(), "platform": platform.platform()}


def occbench_bench_main(run, table):
    """bench_main for a benchmark of occbench's commands: `run(occbench, runs)`, --occbench naming the binary."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--occbench", default="build/occbench")
    bench_main(ap, lambda a: run(a.occbench, a.runs), table)

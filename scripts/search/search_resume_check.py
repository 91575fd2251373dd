#!/usr/bin/env python3
"""Whether a search measured on the GPU chose each point as a search resumed from the records
before it would (what a search killed there and resumed measures next): for every k, the first k
records are written as a killed run's .jsonl and `occbench run --resume --dry-run` names its next
point, which must be record k+1's.

    python3 scripts/search/search_resume_check.py RUN.jsonl [...] [--occbench build/occbench]

Run from the repository root (the records name their config's source relative to it). No GPU."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def check(path, occbench):
    with open(path) as f:
        lines = [line for line in f if line.strip()]
    header, records = lines[0], lines[1:]
    if "multi_device" in json.loads(header):
        print(f"{path}: a search shared by run --devices (each worker chose with the others' records as they "
              "came), not checked here", file=sys.stderr)
        return None, len(records)
    predicted = 0
    with tempfile.TemporaryDirectory() as folder:
        prefix = os.path.join(folder, "killed.jsonl")
        for k, record in enumerate(records):
            with open(prefix, "w") as out:
                out.write(header + "".join(records[:k]))
            run = subprocess.run([occbench, "run", "--resume", prefix, "--dry-run"], capture_output=True, text=True)
            said = [line for line in run.stdout.splitlines() if " point(s) recorded; next: " in line]
            if said and said[0].split("next: ", 1)[1] == json.loads(record)["point_id"]:
                predicted += 1
            else:
                print(f"{path}: point {k + 1} is not what a search resumed after {k} records proposes: "
                      f"{said or run.stderr.strip()}", file=sys.stderr)
    return predicted, len(records)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", nargs="+")
    parser.add_argument("--occbench", default=os.environ.get("OCCBENCH", "build/occbench"))
    args = parser.parse_args()
    every = True
    for path in args.records:
        predicted, total = check(path, args.occbench)
        if predicted is None:
            continue
        print(f"{path}: {predicted} of {total} points are what a search resumed from the records before them proposes")
        every &= predicted == total
    sys.exit(0 if every else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The table of a fuzzing campaign (scripts/fuzz/fuzz.sh) from the tallies its targets write
(OCCBENCH_FUZZ_TALLY: inputs, and per command the count of each exit code and the slowest run).

    python3 scripts/fuzz/fuzz_tally_table.py build-fuzz/tally      # a folder of TARGET.json or TARGET.SEED.json

A target's runs with several seeds add up: their inputs and exit codes summed, the slowest the
slowest of all.
"""
import json
import sys
from pathlib import Path

ORDER = ["config", "expression", "flags", "npy", "results", "jsonl"]


def outcomes(codes):
    return ", ".join(f"exit {code} ×{count:,}" for code, count in sorted(codes.items(), key=lambda item: int(item[0])))


def add(total, tally):
    total["inputs"] = total.get("inputs", 0) + tally["inputs"]
    commands = total.setdefault("commands", {})
    for command, counts in tally["commands"].items():
        into = commands.setdefault(command, {})
        for key, value in counts.items():
            into[key] = max(into.get(key, 0), value) if key == "slowest_s" else into.get(key, 0) + value
    return total


def tallies_of(folder):
    tallies = {}
    for path in sorted(Path(folder).glob("*.json")):
        add(tallies.setdefault(path.name.split(".")[0], {}), json.loads(path.read_text()))
    return tallies


def table(folder):
    tallies = tallies_of(folder)
    lines = ["| target | inputs | command | outcomes | slowest (s) |", "| --- | ---: | --- | --- | ---: |"]
    for target in sorted(tallies, key=lambda t: ORDER.index(t) if t in ORDER else len(ORDER)):
        tally = tallies[target]
        name, inputs = target, f"{tally['inputs']:,}"
        for command, counts in tally["commands"].items():
            codes = {k: v for k, v in counts.items() if k.lstrip("-").isdigit()}
            lines.append(f"| {name} | {inputs} | `{command}` | {outcomes(codes)} | {counts.get('slowest_s', 0):.2f} |")
            name, inputs = "", ""
    total = sum(t["inputs"] for t in tallies.values())
    lines.append(f"| all | {total:,} | | | |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(table(sys.argv[1]), end="")

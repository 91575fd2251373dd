#!/usr/bin/env python3
"""Checks that two occbench builds say the same thing: `occbench list` (text and --json) byte for
byte, and `occbench plan` of every shipped config (configs/*.json) for each of --gpus (h100,h200) as the
same JSON once the fields that name the run (timestamps, command, commit) are dropped. For
refactors that must not change behaviour (e.g. how families register).

    python3 scripts/checks/same_outputs.py BEFORE/occbench AFTER/occbench [--gpus h100,t4] [--keep DIR]

Exit 0 when everything matches, 1 with the first differences otherwise. Needs no GPU.
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN_FIELDS_THAT_DIFFER = ("started_utc", "finished_utc", "command")


def outputs(binary, out_dir, gpus):
    """{name: text or parsed JSON} of everything compared, for one build."""
    found = {"list": run([binary, "list"]), "list --json": run([binary, "list", "--json"])}
    for config in sorted((ROOT / "configs").glob("*.json")):
        if config.name == "schema.json":
            continue
        for gpu in gpus:
            folder = Path(out_dir) / config.stem / gpu
            run([binary, "plan", str(config), "--gpu", gpu, "--out", str(folder)], check_ok=False)
            (json_path,) = folder.glob("*.json")
            (csv_path,) = folder.glob("*.csv")
            doc = json.loads(json_path.read_text())
            for field in RUN_FIELDS_THAT_DIFFER:
                doc.get("run", {}).pop(field, None)
            doc.get("tool", {}).pop("git_commit", None)
            found[f"plan {config.name} --gpu {gpu}"] = doc
            found[f"plan {config.name} --gpu {gpu} (csv)"] = csv_path.read_text()
    return found


def run(command, check_ok=True):
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    if check_ok and done.returncode != 0:
        sys.exit(f"{' '.join(map(str, command))}: exit {done.returncode}: {done.stderr}")
    return done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--gpus", default="h100,h200", help="GPU keys to plan for (architectures both builds have)")
    parser.add_argument("--keep", help="write both sets of outputs here (before.json, after.json)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        before = outputs(args.before, Path(tmp) / "before", args.gpus.split(","))
        after = outputs(args.after, Path(tmp) / "after", args.gpus.split(","))
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
        for name, found in (("before", before), ("after", after)):
            (Path(args.keep) / f"{name}.json").write_text(json.dumps(found, indent=1) + "\n")
    differ = [name for name in before if before[name] != after.get(name)]
    for name in differ:
        print(f"differs: {name}")
    print(f"{len(before) - len(differ)} of {len(before)} outputs identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""What each strategy finds within a given wall, under replay's compile-cost model: for each wall, the
median fraction of the optimum found by the budget that finds the most among those whose median
modeled wall fits (a user picks the budget that fits the time they have), with its points.

    python3 scripts/search/replay_wall_table.py run build/occbench MODEL.jsonl --cores 16 --out WALL.json [--budgets ...] [--seeds 100] [--batch 16]
    python3 scripts/search/replay_wall_table.py table WALL.json --walls 10,15,20

`run` replays MODEL.jsonl (a space measured in full with its compile times, made by
compile_model_space.py) with occbench's defaults (the width rule) and `--compile-s 0.8 --cores N`,
and keeps, per strategy and budget, the points, the median fraction found and the median modeled
wall: a few KB, where replay's own --out keeps every point count. `table` prints the Markdown table
(docs/search.md's is checked by scripts/checks/generated_tables.py).
"""
import argparse
import json
import subprocess
import tempfile
from pathlib import Path

BUDGETS = ",".join(str(b / 2).rstrip("0").rstrip(".") for b in range(1, 17))  # 0.5, 1, ..., 8% of the space


def replay(occbench, model, flags):
    """occbench replay's curves at each budget: {strategy: [{points, median, wall_s}]}."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "replay.json"
        subprocess.run([occbench, "replay", model, *flags, "--out", out], check=True, stdout=subprocess.DEVNULL)
        document = json.loads(out.read_text())
    space = document["spaces"][0]
    budgets_in_points = set(space["budgets"])
    return document, {s["name"]: [{"points": x["points"], "median": round(x["median"], 4), "wall_s": round(x["wall_s"], 2)}
                                  for x in s["steps"] if x["points"] in budgets_in_points]
                      for s in space["strategies"]}


def run(args):
    flags = ["--strategy", "local,genetic,model", "--budgets", args.budgets, "--seeds", str(args.seeds),
             "--compile-s", "0.8", "--cores", str(args.cores), *(["--batch", str(args.batch)] if args.batch else [])]
    document, curves = replay(args.occbench, args.model, flags)
    summary = {"command": "occbench replay MODEL " + " ".join(flags), "batch": args.batch or "the width rule",
               "model": "scripts/search/compile_model_space.py results/reference/h100/search/convolution/convolution_full.jsonl "
                        "results/reference/h100/search/evidence.tar.xz --runs batches/study22to24_logs_csv/study24/",
               "cores": args.cores, "seeds": args.seeds, "space_points": document["spaces"][0]["points"], "strategies": curves}
    Path(args.out).write_text(json.dumps(summary, indent=1) + "\n")


def within(curve, wall_s):
    """The budget that finds the most among those whose median wall fits `wall_s` (the larger on a tie), or None."""
    fits = [b for b in curve if b["wall_s"] <= wall_s]
    return max(fits, key=lambda b: (b["median"], b["points"])) if fits else None


def table(summary, walls):
    names = list(summary["strategies"])
    batches = "the width rule's batches" if summary["batch"] == "the width rule" else f"batches of {summary['batch']}"
    lines = [f"Median fraction of the optimum found within each wall ({summary['cores']} cores, {batches}, {summary['seeds']} seeds; "
             "in brackets the points of the budget that found it)", "",
             "| wall | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for wall in walls:
        cells = [within(summary["strategies"][n], wall) for n in names]
        top = max((c["median"] for c in cells if c), default=None)
        text = [("–" if c is None else (f"**{c['median']:.3f}**" if c["median"] == top else f"{c['median']:.3f}") + f" ({c['points']})")
                for c in cells]
        lines.append(f"| {wall:g} s | " + " | ".join(text) + " |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("occbench")
    r.add_argument("model")
    r.add_argument("--cores", type=int, required=True)
    r.add_argument("--budgets", default=BUDGETS)
    r.add_argument("--seeds", type=int, default=100)
    r.add_argument("--batch", type=int, help="replay's --batch (default: the width rule, as run)")
    r.add_argument("--out", required=True)
    t = sub.add_parser("table")
    t.add_argument("summary")
    t.add_argument("--walls", required=True)
    args = parser.parse_args()
    if args.command == "run":
        run(args)
    else:
        print(table(json.loads(Path(args.summary).read_text()), [float(w) for w in args.walls.split(",")]), end="")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Two replays of the same spaces side by side (occbench replay ... --out A.json, then B.json):
per space, strategy and budget, the mean and the median fraction of the optimum found over the
seeds, B less A. A median of a few dozen seeds moves by a percent from one set of seeds to the
next on these spaces (the top configurations are few), so the mean of many seeds says more.

  python3 scripts/search/replay_compare.py BEFORE.json AFTER.json [--label-a one-at-a-time --label-b batches]
"""
import argparse
import json


def steps_at(space, name):
    for strategy in space["strategies"]:
        if strategy["name"] == name:
            return {step["points"]: step for step in strategy["steps"]}
    return {}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--label-a", default="A")
    parser.add_argument("--label-b", default="B")
    args = parser.parse_args()
    a, b = (json.load(open(path)) for path in (args.a, args.b))
    print(f"seeds: {args.label_a} {a['seeds']}, {args.label_b} {b['seeds']}")
    for space_a, space_b in zip(a["spaces"], b["spaces"]):
        print(f"\n{space_a['sizes']}: {space_a['points']} points")
        print(f"| strategy | budget | points | mean {args.label_a} → {args.label_b} (Δ) | median {args.label_a} → {args.label_b} |")
        print("|---|---:|---:|---|---|")
        for strategy in space_b["strategies"]:
            name = strategy["name"]
            steps_a, steps_b = steps_at(space_a, name), steps_at(space_b, name)
            for points in space_b["budgets"]:
                share = f"{100 * points / space_b['points']:.0f}"
                if points not in steps_a or points not in steps_b:
                    continue
                sa, sb = steps_a[points], steps_b[points]
                delta = sb["mean"] - sa["mean"]
                print(f"| {name} | {share}% | {points} | {sa['mean']:.3f} → {sb['mean']:.3f} ({delta:+.3f}) "
                      f"| {sa['median']:.3f} → {sb['median']:.3f} |")


if __name__ == "__main__":
    main()

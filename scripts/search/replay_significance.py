#!/usr/bin/env python3
"""The width rule against one point at a time and against batches of 16, replayed on spaces
measured in full: per space, strategy and budget, each seed's fraction of the optimum and modeled
wall (replay's seed_fractions, seed_walls_s), and a one-sided Mann-Whitney U test of "the rule
finds less than one point at a time". A difference flagged on the first seeds (p < 0.05) is
confirmed or not on as many fresh seeds again (the issue's 50, then 200).

    python3 scripts/search/replay_significance.py run OCCBENCH RECORD... --out SUMMARY.json \\
        [--model "--compile-s 0.8 --cores 16"] [--strategies local,genetic,model,model_plan] \\
        [--seeds 50] [--confirm-seeds 200]
    python3 scripts/search/replay_significance.py table SUMMARY.json   # the Markdown table

`run` needs scipy (the test); `table` only reads the summary, so a generated table can be checked
anywhere (scripts/checks/generated_tables.py).
"""
import argparse
import json
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SETTINGS = {"one": ["--batch", "1"], "rule": ["--batch", "0"], "sixteen": ["--batch", "16"]}
FIRST_FRESH_SEED = 1000


def replay(occbench, record, strategies, seeds, first_seed, model, batch):
    """{strategy: {budget_points: (fractions, walls)}} of one replay, and the space's budgets."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "replay.json"
        command = [occbench, "replay", record, "--strategy", strategies, "--seeds", str(seeds), "--seed", str(first_seed),
                   "--out", str(out), *shlex.split(model), *batch]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        space = json.loads(out.read_text())["spaces"][0]
    found = {}
    for curve in space["strategies"]:
        steps = {s["points"]: s for s in curve["steps"] if "seed_fractions" in s}
        found[curve["name"]] = {b: (steps[b]["seed_fractions"], steps[b]["seed_walls_s"]) for b in space["budgets"]}
    return found, space["budgets"], space["points"]


def worse_p(candidate, baseline):
    """One-sided Mann-Whitney U: the candidate's fractions stochastically below the baseline's."""
    from scipy.stats import mannwhitneyu  # only here: `table` needs no scipy
    if candidate == baseline:
        return 1.0
    return float(mannwhitneyu(candidate, baseline, alternative="less").pvalue)


def run(args):
    rows = []
    for record in args.records:
        got = {name: replay(args.occbench, record, args.strategies, args.seeds, 0, args.model, flags) for name, flags in SETTINGS.items()}
        budgets, points = got["one"][1], got["one"][2]
        fresh = {}
        for strategy in args.strategies.split(","):
            for b in budgets:
                one, rule, sixteen = (got[name][0][strategy][b] for name in ("one", "rule", "sixteen"))
                row = {"space": Path(record).stem, "strategy": strategy, "budget_points": b, "budget_percent": round(100 * b / points, 1),
                       "one": one[0], "rule": rule[0], "sixteen_walls_s": sixteen[1], "rule_walls_s": rule[1], "one_walls_s": one[1],
                       "p_rule_worse": worse_p(rule[0], one[0])}
                if row["p_rule_worse"] < 0.05:  # confirmed or not on fresh seeds
                    if strategy not in fresh:
                        fresh[strategy] = {name: replay(args.occbench, record, strategy, args.confirm_seeds, FIRST_FRESH_SEED,
                                                        args.model, SETTINGS[name])[0][strategy] for name in ("one", "rule")}
                    row["p_rule_worse_confirm"] = worse_p(fresh[strategy]["rule"][b][0], fresh[strategy]["one"][b][0])
                rows.append(row)
                print(f"{row['space']} {strategy} {b}: p={row['p_rule_worse']:.3g} {row.get('p_rule_worse_confirm', '')}", file=sys.stderr)
    summary = {"model": args.model, "seeds": args.seeds, "confirm_seeds": args.confirm_seeds,
               "first_fresh_seed": FIRST_FRESH_SEED, "rows": rows}
    Path(args.out).write_text(json.dumps(summary) + "\n")  # compact: 50 seeds x 3 series a row


def verdict(row):
    confirmed = row.get("p_rule_worse_confirm")
    if row["p_rule_worse"] >= 0.05:
        return "no"
    return f"**yes** (p {confirmed:.2g} on fresh seeds)" if confirmed < 0.05 else f"not confirmed (p {confirmed:.2g})"


def table(path):
    summary = json.loads(Path(path).read_text())
    lines = [f"| space | strategy | budget | one at a time | the rule | p (rule worse, {summary['seeds']} seeds) | worse? "
             "| wall: the rule / batches of 16 | wall: the rule / one at a time |",
             "|---|---|---:|---:|---:|---:|---|---:|---:|"]
    for r in summary["rows"]:
        median = statistics.median
        lines.append(f"| {r['space']} | {r['strategy']} | {r['budget_percent']:g}% ({r['budget_points']}) | {median(r['one']):.3f} "
                     f"| {median(r['rule']):.3f} | {r['p_rule_worse']:.2g} | {verdict(r)} "
                     f"| {median(r['rule_walls_s']) / median(r['sixteen_walls_s']):.2f} "
                     f"| {median(r['rule_walls_s']) / median(r['one_walls_s']):.2f} |")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("occbench")
    r.add_argument("records", nargs="+")
    r.add_argument("--out", required=True)
    r.add_argument("--model", default="--compile-s 0.8 --cores 16", help="replay's wall-model flags, the same for every setting")
    r.add_argument("--strategies", default="local,genetic,model,model_plan")
    r.add_argument("--seeds", type=int, default=50)
    r.add_argument("--confirm-seeds", type=int, default=200)
    t = sub.add_parser("table")
    t.add_argument("summary")
    args = ap.parse_args()
    run(args) if args.what == "run" else table(args.summary)


if __name__ == "__main__":
    main()

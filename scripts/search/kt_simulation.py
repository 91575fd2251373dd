#!/usr/bin/env python3
"""occbench's search against Kernel Tuner's strategies in its simulation mode, on spaces measured
in full (issue 56, item 3): the same points, the same recorded times, the same budgets.

    python3 scripts/search/kt_simulation.py run OCCBENCH RECORD.jsonl... --out SUMMARY.json \\
        [--strategy local] [--seeds 50] [--confirm-seeds 200] [--jobs 2]
    python3 scripts/search/kt_simulation.py table SUMMARY.json     # the Markdown table

`run` needs Kernel Tuner (1.5.0: pip install kernel_tuner==1.5.0 scikit-learn scipy; its
strategies run on the CPU in simulation mode) and scipy. For each record it keeps the variant
that was searched (the one with the most points), writes that space as a record for
`occbench replay` and as Kernel Tuner's cache file (each point's median time as `time`; a
restriction that keeps exactly the recorded points), and runs occbench's strategy (replay) and
every Kernel Tuner strategy at 1, 2, 5, 10 and 20% of the space (replay's budgets), seeds 0..N-1:
each run's fraction of the optimum found (the optimum's time over the best found). A one-sided
Mann-Whitney U test per strategy and budget says whether occbench's fractions are higher
(`better_p`) or lower (`worse_p`); a difference with p < 0.05 is confirmed or not on as many fresh
seeds again (from 1000). `table` only reads the summary, so the generated table is checked anywhere.
"""
import argparse
import json
import multiprocessing
import random
import statistics
import subprocess
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path

KT_STRATEGIES = ["random_sample", "greedy_ils", "greedy_mls", "ordered_greedy_mls", "mls", "genetic_algorithm", "pso",
                 "firefly_algorithm", "simulated_annealing", "diff_evo", "basinhopping", "dual_annealing", "minimize",
                 "bayes_opt", "hybrid_vndx", "adaptive_tabu_greywolf"]
FRESH_SEED = 1000


def read_space(record):
    """(header, searched variant's records, axis names): the variant with the most points."""
    lines = [json.loads(line) for line in Path(record).read_text().splitlines() if line.strip()]
    header, points = lines[0], [r for r in lines[1:] if "point_id" in r]
    variant = Counter(r["variant"] for r in points).most_common(1)[0][0]
    points = [r for r in points if r["variant"] == variant]
    sizes = set(header["config"]["sizes"])
    keys = [a for a in header["config"]["axes"] if a not in sizes and a in points[0]["params"]]
    return header, points, keys


def time_ms(point):
    return point["timing"]["median_ms"] if point["status"] == "ok" else None


def write_space(header, points, keys, folder):
    """The space as a record for occbench replay and as Kernel Tuner's cache file; their paths."""
    record = folder / "space.jsonl"
    record.write_text("\n".join(json.dumps(x) for x in [header, *points]) + "\n")
    tune_params = {k: sorted({p["params"][k] for p in points}) for k in keys}
    cache = {}
    for p in points:
        params = {k: p["params"][k] for k in keys}
        t = time_ms(p)
        cache[",".join(str(params[k]) for k in keys)] = dict(
            params, time=t if t is not None else "RuntimeFailedConfig", times=[t] if t is not None else [], compile_time=0,
            verification_time=0, benchmark_time=1000 * p.get("time_use", {}).get("point_s", 0), strategy_time=0, framework_time=0,
            timestamp="")
    doc = {"device_name": header["device"]["name"], "kernel_name": header["config"]["name"], "problem_size": [1],
           "tune_params_keys": keys, "tune_params": tune_params, "objective": "time", "cache": cache}
    kt_cache = folder / "kt_cache.json"
    kt_cache.write_text(json.dumps(doc))
    return record, kt_cache, tune_params


def occbench_fractions(occbench, record, strategy, seeds, first_seed):
    """(budgets, {budget: fractions}) of occbench replay over `seeds` seeds."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "replay.json"
        subprocess.run([occbench, "replay", str(record), "--strategy", strategy, "--seeds", str(seeds), "--seed", str(first_seed),
                        "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
        space = json.loads(out.read_text())["spaces"][0]
    [curve] = [c for c in space["strategies"] if c["name"] == strategy]
    steps = {s["points"]: s["seed_fractions"] for s in curve["steps"] if "seed_fractions" in s}
    return space["budgets"], {b: steps[b] for b in space["budgets"]}


def kt_run(task):
    """One Kernel Tuner strategy on one space at every budget and seed: {budget: fractions}."""
    kt_cache, keys, tune_params, strategy, budgets, seeds, first_seed = task
    import numpy as np
    import kernel_tuner
    warnings.simplefilter("ignore")
    cache = json.loads(Path(kt_cache).read_text())
    valid = set(cache["cache"])
    times = [v["time"] for v in cache["cache"].values() if isinstance(v["time"], (int, float))]
    optimum = min(times)

    def kept(p):  # exactly the recorded points (a def: Kernel Tuner reads a lambda's source as a restriction's text)
        return ",".join(str(p[k]) for k in keys) in valid

    found = {}
    for budget in budgets:
        fractions = []
        for seed in range(first_seed, first_seed + seeds):
            random.seed(seed)
            np.random.seed(seed)
            results, _ = kernel_tuner.tune_kernel(cache["kernel_name"], "__global__ void k() {}", [1], [], tune_params,
                                                  restrictions=kept, cache=str(kt_cache), simulation_mode=True, strategy=strategy,
                                                  strategy_options={"max_fevals": budget}, quiet=True, verbose=False)
            best = min((r["time"] for r in results if isinstance(r.get("time"), (int, float))), default=None)
            fractions.append(optimum / best if best else 0.0)
        found[budget] = fractions
    return strategy, found


def p_greater(a, b):
    """One-sided Mann-Whitney U: p of "a's values are higher than b's"."""
    from scipy.stats import mannwhitneyu
    if a == b or (len(set(a)) == 1 and set(a) == set(b)):
        return 1.0
    return float(mannwhitneyu(a, b, alternative="greater").pvalue)


def compare(occ, kt):
    """{budget: {"better_p", "worse_p"}} of occbench's fractions against one Kernel Tuner strategy's."""
    return {b: {"better_p": p_greater(occ[b], kt[b]), "worse_p": p_greater(kt[b], occ[b])} for b in occ}


def confirm(space, occbench, strategy, seeds, kt_tasks_for, jobs):
    """Re-tests each difference with p < 0.05 on `seeds` fresh seeds: adds confirm_better_p/confirm_worse_p."""
    flagged = {(name, b) for name, by in space["tests"].items() for b, t in by.items() if min(t["better_p"], t["worse_p"]) < 0.05}
    if not flagged or not seeds:
        return
    _, occ = occbench_fractions(occbench, space["record"], strategy, seeds, FRESH_SEED)
    tasks = [kt_tasks_for(name, sorted({int(b) for n, b in flagged if n == name}), seeds, FRESH_SEED) for name in sorted({n for n, _ in flagged})]
    with multiprocessing.Pool(jobs) as pool:
        for name, kt in pool.imap_unordered(kt_run, tasks):
            for b, fractions in kt.items():
                space["tests"][name][str(b)].update(confirm_better_p=p_greater(occ[b], fractions), confirm_worse_p=p_greater(fractions, occ[b]))


def run(args):
    summary = {"kernel_tuner": None, "occbench_strategy": args.strategy, "seeds": args.seeds, "confirm_seeds": args.confirm_seeds,
               "spaces": []}
    import kernel_tuner
    summary["kernel_tuner"] = getattr(kernel_tuner, "__version__", "?")
    work = Path(tempfile.mkdtemp(prefix="kt-simulation-"))
    for i, record in enumerate(args.records):
        header, points, keys = read_space(record)
        folder = work / str(i)
        folder.mkdir()
        space_record, kt_cache, tune_params = write_space(header, points, keys, folder)
        budgets, occ = occbench_fractions(args.occbench, space_record, args.strategy, args.seeds, 0)
        kt_tasks_for = lambda name, bs, seeds, first: (str(kt_cache), keys, tune_params, name, bs, seeds, first)
        space = {"name": header["config"]["name"], "source": str(record), "record": str(space_record), "points": len(points),
                 "budgets": budgets, "occbench": {str(b): occ[b] for b in budgets}, "kernel_tuner": {}, "tests": {}}
        with multiprocessing.Pool(args.jobs) as pool:
            for name, kt in pool.imap_unordered(kt_run, [kt_tasks_for(s, budgets, args.seeds, 0) for s in args.kt_strategies]):
                space["kernel_tuner"][name] = {str(b): f for b, f in kt.items()}
                space["tests"][name] = {str(b): t for b, t in compare(occ, kt).items()}
                print(f"{space['name']}: {name} done", file=sys.stderr, flush=True)
        confirm(space, args.occbench, args.strategy, args.confirm_seeds, kt_tasks_for, args.jobs)
        del space["record"]
        summary["spaces"].append(space)
    write_summary(summary, args.out)


def write_summary(summary, path):
    """The summary, each fraction to 4 decimals (a table shows 3), one space a line: small enough to commit."""
    for space in summary["spaces"]:
        space["occbench"] = {b: [round(f, 4) for f in fs] for b, fs in space["occbench"].items()}
        space["kernel_tuner"] = {n: {b: [round(f, 4) for f in fs] for b, fs in by.items()} for n, by in space["kernel_tuner"].items()}
    text = json.dumps({k: v for k, v in summary.items() if k != "spaces"}, separators=(",", ":"))[:-1]
    text += ',"spaces":[\n' + ",\n".join(json.dumps(s, separators=(",", ":")) for s in summary["spaces"]) + "]}\n"
    Path(path).write_text(text)


def verdict(test):
    """▲ occbench significantly better, ▼ worse (confirmed on fresh seeds where they were run), blank: neither."""
    for side, mark in (("better", "▲"), ("worse", "▼")):
        p = test.get(f"confirm_{side}_p", test[f"{side}_p"])
        if test[f"{side}_p"] < 0.05 and p < 0.05:
            return mark
    return ""


def table(path):
    s = json.loads(Path(path).read_text())
    out = [f"Kernel Tuner {s['kernel_tuner']} in simulation mode against occbench's `{s['occbench_strategy']}`, "
           f"median fraction of the optimum found over {s['seeds']} seeds; ▲/▼: occbench significantly better/worse "
           f"(one-sided Mann-Whitney U, p < 0.05 on these seeds and again on {s['confirm_seeds']} fresh ones).", ""]
    for space in s["spaces"]:
        budgets = space["budgets"]
        shares = [f"{100 * b / space['points']:.0f}% ({b})" for b in budgets]
        out += [f"**{space['name']}** ({space['points']} points)", "",
                "| strategy | " + " | ".join(shares) + " |", "|---|" + "---:|" * len(budgets)]
        occ = [f"**{statistics.median(space['occbench'][str(b)]):.3f}**" for b in budgets]
        out.append(f"| occbench {s['occbench_strategy']} | " + " | ".join(occ) + " |")
        for name in sorted(space["kernel_tuner"], key=lambda n: -statistics.median(space["kernel_tuner"][n][str(budgets[-1])])):
            cells = [f"{statistics.median(space['kernel_tuner'][name][str(b)]):.3f} {verdict(space['tests'][name][str(b)])}".rstrip()
                     for b in budgets]
            out.append(f"| {name} | " + " | ".join(cells) + " |")
        better = sum(verdict(t) == "▲" for by in space["tests"].values() for t in by.values())
        worse = sum(verdict(t) == "▼" for by in space["tests"].values() for t in by.values())
        cells = len(space["tests"]) * len(budgets)
        out += ["", f"occbench significantly better in {better} of {cells} strategy-budget cells, worse in {worse}.", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("occbench")
    r.add_argument("records", nargs="+")
    r.add_argument("--out", required=True)
    r.add_argument("--strategy", default="local")
    r.add_argument("--kt-strategies", type=lambda t: t.split(","), default=KT_STRATEGIES)
    r.add_argument("--seeds", type=int, default=50)
    r.add_argument("--confirm-seeds", type=int, default=200)
    r.add_argument("--jobs", type=int, default=2)
    t = sub.add_parser("table")
    t.add_argument("summary")
    args = ap.parse_args()
    if args.command == "run":
        run(args)
    else:
        print(table(args.summary))


if __name__ == "__main__":
    main()

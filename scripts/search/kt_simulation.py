#!/usr/bin/env python3
"""occbench's search against Kernel Tuner's strategies in its simulation mode, on spaces measured
in full (issue 56, item 3): the same points, the same recorded times, the same budgets.

    python3 scripts/search/kt_simulation.py run OCCBENCH RECORD.jsonl... --out SUMMARY.json \\
        [--strategy local] [--model "--compile-s 0.8 --cores 16"] [--seeds 50] [--confirm-seeds 200] [--jobs 2] [--store RUNS.jsonl]
    python3 scripts/search/kt_simulation.py kernel-tuner RECORD.jsonl... --store RUNS.jsonl [--jobs 16]
    python3 scripts/search/kt_simulation.py table SUMMARY.json     # the Markdown table

`run` needs Kernel Tuner (1.5.0: pip install kernel_tuner==1.5.0 scikit-learn scipy; its
strategies run on the CPU in simulation mode) and scipy. For each record it keeps the variant
that was searched (the one with the most points), writes that space as a record for
`occbench replay` and as Kernel Tuner's cache file (each point's median time as `time`; a
restriction that keeps exactly the recorded points), and runs occbench's strategy (replay) and
every Kernel Tuner strategy at 1, 2, 5, 10 and 20% of the space (replay's budgets), seeds 0..N-1:
each run's fraction of the optimum found (the optimum's time over the best found). A one-sided
Mann-Whitney U test per strategy and budget says whether occbench's fractions are higher
(`better_p`) or lower (`worse_p`); each is run again on --confirm-seeds fresh seeds (from 1000). A
difference counts where both seed sets find it (p < 0.05); one the fresh seeds alone find is marked
apart. `table` only reads the summary, so the generated table is checked anywhere.

Kernel Tuner's runs (one strategy, space and seed a line) go to a store that `run --store` reads
and adds to. `kernel-tuner` fills it with every strategy's runs on both the seeds and the fresh
ones, where there are cores to spare (hours on two cores, minutes on sixteen); a run cut short
keeps the lines it wrote, and the next one starts where it stopped.
"""
import argparse
import functools
import importlib.metadata
import json
import math
import multiprocessing
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path
from typing import NamedTuple

KT_STRATEGIES = ["random_sample", "greedy_ils", "greedy_mls", "ordered_greedy_mls", "mls", "genetic_algorithm", "pso",
                 "firefly_algorithm", "simulated_annealing", "diff_evo", "basinhopping", "dual_annealing", "minimize",
                 "bayes_opt", "hybrid_vndx", "adaptive_tabu_greywolf"]
SLOW_KT_STRATEGIES = {"bayes_opt"}  # seconds a run where the others take a fifth of one: started first
BUDGET_PERCENTS = (1, 2, 5, 10, 20)
FRESH_SEED = 1000


class KtTask(NamedTuple):
    """One Kernel Tuner strategy on one space at one seed, at every budget: one line of the store."""
    space: str
    kt_cache: str
    keys: list
    tune_params: dict
    strategy: str
    budgets: list
    seed: int


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


def occbench_fractions(occbench, record, strategy, seeds, first_seed, model=""):
    """(budgets, {budget: fractions}) of occbench replay over `seeds` seeds (`model`: replay's compile-cost flags)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "replay.json"
        subprocess.run([occbench, "replay", str(record), "--strategy", strategy, "--seeds", str(seeds), "--seed", str(first_seed),
                        "--out", str(out), *shlex.split(model)], check=True, stdout=subprocess.DEVNULL)
        space = json.loads(out.read_text())["spaces"][0]
    [curve] = [c for c in space["strategies"] if c["name"] == strategy]
    steps = {s["points"]: s["seed_fractions"] for s in curve["steps"] if "seed_fractions" in s}
    return space["budgets"], {b: steps[b] for b in space["budgets"]}


@functools.lru_cache(maxsize=None)
def cache_facts(kt_cache):
    """(kernel name, the recorded points' keys, the optimum's time) of a cache file: read once a worker, not once a run."""
    cache = json.loads(Path(kt_cache).read_text())
    optimum = min(v["time"] for v in cache["cache"].values() if isinstance(v["time"], (int, float)))
    return cache["kernel_name"], frozenset(cache["cache"]), optimum


def kt_run(task):
    """A KtTask's run: (task, {budget: fraction of the optimum found})."""
    from threadpoolctl import threadpool_limits  # Kernel Tuner's scikit-learn brings it
    warnings.simplefilter("ignore")
    kernel_name, valid, optimum = cache_facts(task.kt_cache)

    def kept(p):  # exactly the recorded points (a def: Kernel Tuner reads a lambda's source as a restriction's text)
        return ",".join(str(p[k]) for k in task.keys) in valid

    found = {}
    # One BLAS thread a run: a pool of N jobs whose runs each start N OpenBLAS threads spends its cores
    # waiting (bayes_opt: about 100 s a run on 16 cores where one thread takes about 5 s).
    with threadpool_limits(limits=1):
        for budget in task.budgets:
            found[budget] = kt_fraction(task, kernel_name, kept, optimum, budget)
    return task, found


def kt_fraction(task, kernel_name, kept, optimum, budget):
    """The fraction of the optimum one Kernel Tuner run finds within `budget` points."""
    import numpy as np
    import kernel_tuner
    random.seed(task.seed)
    np.random.seed(task.seed)
    results, _ = kernel_tuner.tune_kernel(kernel_name, "__global__ void k() {}", [1], [], task.tune_params,
                                          restrictions=kept, cache=task.kt_cache, simulation_mode=True, strategy=task.strategy,
                                          strategy_options={"max_fevals": budget}, quiet=True, verbose=False)
    best = min((r["time"] for r in results if isinstance(r.get("time"), (int, float))), default=None)
    return optimum / best if best else 0.0


def budgets_of(points):
    """replay's budgets: 1, 2, 5, 10 and 20% of the points, rounded up as replay rounds them."""
    return sorted({min(max(math.ceil(p / 100.0 * points), 1), points) for p in BUDGET_PERCENTS})


def read_store(path):
    """{(space, strategy, seed): {budget: fraction}} of the Kernel Tuner runs a store file holds."""
    done = {}
    if path and Path(path).exists():
        for line in Path(path).read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                done[(r["space"], r["strategy"], r["seed"])] = {int(b): f for b, f in r["fractions"].items()}
    return done


def fill_store(path, tasks, jobs):
    """Runs the tasks the store lacks, appending each as it ends (a run cut short keeps what it did); the store's runs."""
    done = read_store(path)
    todo = [t for t in tasks if (t.space, t.strategy, t.seed) not in done]
    todo.sort(key=lambda t: (t.seed >= FRESH_SEED, t.strategy not in SLOW_KT_STRATEGIES, t.seed))  # the seeds, then fresh ones; the long runs first
    if todo:
        with multiprocessing.Pool(jobs) as pool, open(path, "a") as store:
            for t, found in pool.imap_unordered(kt_run, todo):
                store.write(json.dumps({"space": t.space, "strategy": t.strategy, "seed": t.seed, "fractions": found}) + "\n")
                store.flush()
                done[(t.space, t.strategy, t.seed)] = found
    return done


def kt_fractions(done, space, strategy, budgets, seeds):
    """{budget: fractions over the seeds} from the store's runs."""
    return {b: [done[(space, strategy, s)][b] for s in seeds] for b in budgets}


def p_greater(a, b):
    """One-sided Mann-Whitney U: p of "a's values are higher than b's"."""
    from scipy.stats import mannwhitneyu
    if a == b or (len(set(a)) == 1 and set(a) == set(b)):
        return 1.0
    return float(mannwhitneyu(a, b, alternative="greater").pvalue)


def compare(occ, kt):
    """{budget: {"better_p", "worse_p"}} of occbench's fractions against one Kernel Tuner strategy's."""
    return {b: {"better_p": p_greater(occ[b], kt[b]), "worse_p": p_greater(kt[b], occ[b])} for b in occ}


def prepare(records, work):
    """Each record's searched space, written for both tools into its own folder under `work`."""
    spaces = []
    for i, record in enumerate(records):
        header, points, keys = read_space(record)
        folder = Path(work) / str(i)
        folder.mkdir(parents=True, exist_ok=True)
        space_record, kt_cache, tune_params = write_space(header, points, keys, folder)
        spaces.append(dict(name=header["config"]["name"], source=str(record), points=len(points), record=space_record,
                           kt_cache=str(kt_cache), keys=keys, tune_params=tune_params, budgets=budgets_of(len(points))))
    return spaces


def kt_tasks(space, strategies, seeds):
    return [KtTask(space["name"], space["kt_cache"], space["keys"], space["tune_params"], name, space["budgets"], seed)
            for name in strategies for seed in seeds]


def compare_space(space, occbench, args, store):
    """occbench's fractions against every Kernel Tuner strategy's, each difference confirmed on fresh seeds."""
    seeds = range(args.seeds)
    budgets, occ = occbench_fractions(occbench, space["record"], args.strategy, args.seeds, 0, args.model)
    if budgets != space["budgets"]:
        raise SystemExit(f"{space['source']}: replay's budgets {budgets} are not {space['budgets']}")
    done = fill_store(store, kt_tasks(space, args.kt_strategies, seeds), args.jobs)
    kt = {name: kt_fractions(done, space["name"], name, budgets, seeds) for name in args.kt_strategies}
    tests = {name: {str(b): t for b, t in compare(occ, kt[name]).items()} for name in args.kt_strategies}
    confirm(space, tests, occbench, args, store)
    return {"name": space["name"], "source": space["source"], "points": space["points"], "budgets": budgets,
            "occbench": {str(b): occ[b] for b in budgets},
            "kernel_tuner": {name: {str(b): f for b, f in by.items()} for name, by in kt.items()}, "tests": tests}


def confirm(space, tests, occbench, args, store):
    """Every test run again on the fresh seeds: its confirm_better_p and confirm_worse_p. A difference
    counts where both seed sets find it; where only the fresh ones do, the first seeds lacked the
    power to see it, and the table marks it apart."""
    if not tests or not args.confirm_seeds:
        return
    fresh = range(FRESH_SEED, FRESH_SEED + args.confirm_seeds)
    budgets, occ = occbench_fractions(occbench, space["record"], args.strategy, args.confirm_seeds, FRESH_SEED, args.model)
    done = fill_store(store, kt_tasks(space, sorted(tests), fresh), args.jobs)
    for name, by in tests.items():
        kt = kt_fractions(done, space["name"], name, budgets, fresh)
        for b, test in by.items():
            test.update(confirm_better_p=p_greater(occ[int(b)], kt[int(b)]), confirm_worse_p=p_greater(kt[int(b)], occ[int(b)]))


def run(args):
    # The version from the package's metadata: with every run in the store, Kernel Tuner is not imported.
    summary = {"kernel_tuner": importlib.metadata.version("kernel_tuner"), "occbench_strategy": args.strategy,
               "model": args.model, "seeds": args.seeds, "confirm_seeds": args.confirm_seeds, "spaces": []}
    work = tempfile.mkdtemp(prefix="kt-simulation-")
    store = args.store or str(Path(work) / "kernel_tuner_runs.jsonl")
    for space in prepare(args.records, work):
        summary["spaces"].append(compare_space(space, args.occbench, args, store))
        print(f"{space['name']}: compared", file=sys.stderr, flush=True)
    write_summary(summary, args.out)


def run_kernel_tuner(args):
    """Kernel Tuner's runs alone, into the store: where there are more cores than where occbench's side runs."""
    seeds = [*range(args.seeds), *range(FRESH_SEED, FRESH_SEED + args.confirm_seeds)]
    spaces = prepare(args.records, tempfile.mkdtemp(prefix="kt-simulation-"))
    fill_store(args.store, [t for space in spaces for t in kt_tasks(space, args.kt_strategies, seeds)], args.jobs)


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


def fresh_only(test):
    """(▲) occbench significantly better, (▼) worse on the fresh seeds alone (not on the first ones)."""
    if verdict(test):
        return ""
    for side, mark in (("better", "(▲)"), ("worse", "(▼)")):
        if test.get(f"confirm_{side}_p", 1.0) < 0.05:
            return mark
    return ""


def mark(test):
    """A cell's mark: ▲/▼ (both seed sets), (▲)/(▼) (the fresh seeds alone) or none."""
    return verdict(test) or fresh_only(test)


def table(path):
    s = json.loads(Path(path).read_text())
    model = f" replayed with `{s['model']}`" if s.get("model") else ""
    out = [f"Kernel Tuner {s['kernel_tuner']} in simulation mode against occbench's `{s['occbench_strategy']}`{model}, "
           f"median fraction of the optimum found over {s['seeds']} seeds; ▲/▼: occbench significantly better/worse "
           f"(one-sided Mann-Whitney U, p < 0.05 on these seeds and again on {s['confirm_seeds']} fresh ones); "
           f"(▲)/(▼): on the {s['confirm_seeds']} fresh seeds alone.", ""]
    for space in s["spaces"]:
        budgets = space["budgets"]
        shares = [f"{100 * b / space['points']:.0f}% ({b})" for b in budgets]
        out += [f"**{space['name']}** ({space['points']} points)", "",
                "| strategy | " + " | ".join(shares) + " |", "|---|" + "---:|" * len(budgets)]
        occ = [f"**{statistics.median(space['occbench'][str(b)]):.3f}**" for b in budgets]
        out.append(f"| occbench {s['occbench_strategy']} | " + " | ".join(occ) + " |")
        for name in sorted(space["kernel_tuner"], key=lambda n: -statistics.median(space["kernel_tuner"][n][str(budgets[-1])])):
            cells = [f"{statistics.median(space['kernel_tuner'][name][str(b)]):.3f} {mark(space['tests'][name][str(b)])}".rstrip()
                     for b in budgets]
            out.append(f"| {name} | " + " | ".join(cells) + " |")
        marks = Counter(mark(t) for by in space["tests"].values() for t in by.values())
        cells = len(space["tests"]) * len(budgets)
        out += ["", f"occbench significantly better in {marks['▲']} of {cells} strategy-budget cells, worse in {marks['▼']}; "
                    f"on the fresh seeds alone, better in {marks['(▲)']} more and worse in {marks['(▼)']} more.", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("occbench")
    r.add_argument("records", nargs="+")
    r.add_argument("--out", required=True)
    r.add_argument("--strategy", default="local")
    r.add_argument("--model", default="", help='replay\'s compile-cost flags, as "--compile-s 0.8 --cores 16" (default: none, '
                                               'the records\' own times: one point at a time where they keep no compile time)')
    k = sub.add_parser("kernel-tuner")
    k.add_argument("records", nargs="+")
    for p in (r, k):
        p.add_argument("--store", required=p is k, help="Kernel Tuner's runs, one a line: read, and added to")
        p.add_argument("--kt-strategies", type=lambda t: t.split(","), default=KT_STRATEGIES)
        p.add_argument("--seeds", type=int, default=50)
        p.add_argument("--confirm-seeds", type=int, default=200)
        p.add_argument("--jobs", type=int, default=2)
    t = sub.add_parser("table")
    t.add_argument("summary")
    args = ap.parse_args()
    if args.command == "run":
        run(args)
    elif args.command == "kernel-tuner":
        run_kernel_tuner(args)
    else:
        print(table(args.summary))


if __name__ == "__main__":
    main()

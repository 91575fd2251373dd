#!/usr/bin/env python3
"""occbench's hardware counters (`run --counters`) against Nsight Compute, point by point, counter by counter.

    python3 scripts/ncu/ncu_counters_agreement.py --occbench build-h100/occbench --out DIR CONFIG.json [CONFIG.json ...]
        [--ncu ncu] [--all-sizes]
    python3 scripts/ncu/ncu_counters_agreement.py --runs-table CSV... [--labels FIELD=LABEL,...]
        [--per-config FIELD [--labels CONFIG=LABEL,... | --groups LABEL=SELECTOR...]]
    python3 scripts/ncu/ncu_counters_agreement.py --instrumented-table CSV... [--labels CONFIG=LABEL,...]
        # the counters write-ups' tables, from earlier runs' CSVs (files or ARCHIVE.tar.xz:PATH)

For each config, at its smallest sizes (the smallest value of every size axis; every launch axis
and variant kept; --all-sizes keeps them all), with one warm-up-free timed sample per point:
  1. `occbench run --counters`: the counters section of every point (CUPTI range profiler, user
     replay, the L2 flushed before each pass and, as ncu does, before each kernel of a launch:
     measurement.counters_l2_flush "per_kernel"; --l2-flush per_launch for the flush per pass only);
  2. the same config under `ncu --metrics <the same metrics> --clock-control none --nvtx
     --print-nvtx-rename kernel --print-units base` without --counters: occbench puts each timed
     launch in an NVTX range named by its point id, so ncu names those kernels by point (ncu's
     default cache control flushes every cache before each replay pass, as occbench does).
     --replay-mode application makes each of ncu's passes a fresh run of occbench instead of a
     replay of the kernel with its memory saved and restored, whose write-back ncu's DRAM writes
     otherwise take in (~2.4 MB per kernel on the H100).
     The shared-memory counts occbench instruments are compared with ncu's instrumented ones: the
     units name them "(ncu m)", and "L1 Wavefronts Shared Excessive" adds --section SourceCounters.
The metric names are read from the record's units block ("counters.X": "... (CUPTI metric)"), so
this script follows harness/measure/counters.cpp. A library call's kernels are summed (percentages:
weighted by each kernel's duration), as occbench does.
Writes DIR/ncu_counters_agreement.csv (one row per point and counter) and prints a markdown table
per counter: points compared, within 2%, exactly equal, the worst point. Durations and cycles are
two different launches' and vary run to run; bytes and instruction counts should agree.

--runs N (default 1) repeats both runs N times, each a new process (new allocations, a new L2
history). The first runs give the columns above; the repeats say how far each tool moves from
itself: `ncu_spread_pct` (ncu against ncu), and `within_2pct_of_runs`, true when the ranges of the
two tools' N values lie within 2% of each other (the gap between them, relative to ncu's median).
A counter that ncu cannot reproduce within 2% cannot be held to 2% against it; this column says
which misses are such counters and which are occbench's own.
"""
import argparse
import csv
import io
import json
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ncu_agreement import newest_json, run, text_of  # noqa: E402  (the same runs, the same result files)
from occbench_config import relocated  # noqa: E402

TOLERANCE = 0.02


def smallest(spec, all_sizes, l2_flush="per_kernel"):
    small = dict(spec)
    if not all_sizes:
        small["sizes"] = {axis: [min(values)] for axis, values in spec.get("sizes", {}).items()}
    # cold whatever the config says: a batch sample would add `count` launches under ncu against
    # one counters replay. The L2 flushed before each kernel of a launch, as ncu flushes before
    # every kernel it profiles (a split-K launch's memset then leaves nothing in the L2 for its kernel).
    small["measurement"] = dict(spec.get("measurement", {}), mode="cold", warmup_runs=0, min_samples=1, max_samples=1,
                                min_time_s=0, timeout_s=60, counters=False, counters_l2_flush=l2_flush)
    return small


# Counts ncu gives only in a section's body (--print-details all), not as a --metrics name:
# {label in the record's units: section}. The instrumented bank conflicts of every shared instruction
# are the SourceCounters section's "L1 Wavefronts Shared Excessive".
SECTION_FIGURES = {"L1 Wavefronts Shared Excessive": "SourceCounters"}


def counter_metrics(units):
    """{field: ncu metric} from the record's units block: "(CUPTI m)" where occbench's range profiler
    collects ncu's metric m, "(ncu m)" where occbench counts by instrumentation what ncu calls m."""
    out = {}
    for key, text in units.items():
        m = re.match(r"counters\.(\w+)$", key)
        found = re.search(r"\((?:CUPTI|ncu) ([\w.]+)\)", text)
        section = next((label for label in SECTION_FIGURES if f"(ncu SourceCounters {label})" in text), None)
        if m and (found or section):
            out[m.group(1)] = section or found.group(1)
    return out


def ncu_values(csv_path):
    """{kernel name: [{metric: value} per launch]} in launch order, base units."""
    text = Path(csv_path).read_text().splitlines() if Path(csv_path).exists() else []
    start = next((i for i, line in enumerate(text) if line.startswith('"ID"')), None)
    if start is None:
        return {}
    launches = {}
    for row in csv.DictReader(text[start:]):
        value = row["Metric Value"].replace(",", "")
        try:
            number = float(value)
        except ValueError:
            continue
        launches.setdefault((row["Kernel Name"], row["ID"]), {})[row["Metric Name"]] = number
    out = {}
    for (name, _), metrics in sorted(launches.items(), key=lambda item: int(item[0][1])):
        # --print-nvtx-rename kernel names a kernel "<range>/<function>": the range is the point id.
        out.setdefault(name, []).append(metrics)
    return out


def point_launches(ncu, point):
    """The kernels ncu profiled inside the NVTX range named `point`, in launch order."""
    return [m for name, launches in ncu.items() if name == point or name.startswith(point + "/") for m in launches]


def combine(kernels, metric, is_percent):
    if not is_percent:
        return sum(k.get(metric, 0.0) for k in kernels)
    total = sum(k.get("gpu__time_duration.sum", 0.0) for k in kernels)
    if total <= 0:
        return sum(k.get(metric, 0.0) for k in kernels) / len(kernels)
    return sum(k.get(metric, 0.0) * k.get("gpu__time_duration.sum", 0.0) for k in kernels) / total


def relative_diff(mine, theirs):
    return (mine - theirs) / theirs if theirs else (0.0 if mine == theirs else float("inf"))


def range_gap(occbench_runs, ncu_runs):
    """How far apart the two tools' ranges of values are, relative to ncu's median: 0 where they
    overlap (inf where ncu's median is 0 and occbench never counted 0)."""
    lo = max(min(occbench_runs), min(ncu_runs))
    hi = min(max(occbench_runs), max(ncu_runs))
    if lo <= hi:
        return 0.0
    middle = statistics.median(ncu_runs)
    return (lo - hi) / abs(middle) if middle else float("inf")


def spread(values):
    """(max - min) / median, 0 for a single value; inf where the median is 0 but not every value."""
    middle = statistics.median(values)
    if max(values) == min(values):
        return 0.0
    return (max(values) - min(values)) / abs(middle) if middle else float("inf")


def read_csv(path):
    """The rows of a run's CSV (a file, or ARCHIVE.tar.xz:PATH inside an evidence archive)."""
    rows = []
    for r in csv.DictReader(io.StringIO(text_of(path))):
        if r["counter"] != "*" and r["diff_pct"] != "":  # "": occbench recorded no value
            r.update(occbench=float(r["occbench"]), ncu=float(r["ncu"]), diff_pct=float(r["diff_pct"]),
                     within_2pct=r["within_2pct"] == "True", exact=r["exact"] == "True")
            # Files written before --runs: one run of each, the first-run columns.
            r["within_2pct_of_runs"] = r.get("within_2pct_of_runs", str(r["within_2pct"])) == "True"
            r["ncu_spread_pct"] = float(r.get("ncu_spread_pct") or 0.0)
        rows.append(r)
    return rows


def write_csv(path, rows):
    fieldnames = ["config", "point_id", "counter", "metric", "occbench", "ncu", "diff_pct", "within_2pct", "exact",
                  "occbench_runs", "ncu_runs", "ncu_spread_pct", "within_2pct_of_runs", "note"]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fieldnames)
        writer.writeheader()
        writer.writerows(rows)


def summarize(rows):
    """Markdown table per counter: points compared, within 2%, exactly equal, the worst point."""
    compared = [r for r in rows if r["counter"] != "*"]
    # The columns of the repeats only where the CSV holds several runs of each tool (--runs N).
    repeated = any(";" in (r.get("ncu_runs") or "") for r in compared)
    runs_head, runs_rule = ("| within 2% of ncu's runs | ncu's runs within 2% of each other ", "---|---|") if repeated else ("", "")
    print(f"\n| counter | points | within 2% | exactly equal {runs_head}| worst point | occbench | ncu | diff |")
    print(f"|---|---|---|---|{runs_rule}---|---|---|---|")
    for field in dict.fromkeys(r["counter"] for r in compared):
        mine = [r for r in compared if r["counter"] == field and r["diff_pct"] != ""]  # "": no value recorded
        if not mine:
            continue
        worst = max(mine, key=lambda r: abs(r["diff_pct"]))
        runs = (f"{sum(r['within_2pct_of_runs'] for r in mine)} | {sum(map(ncu_steady, mine))} | "
                if repeated else "")
        print(f"| {field} | {len(mine)} | {sum(r['within_2pct'] for r in mine)} | {sum(r['exact'] for r in mine)} | {runs}"
              f"{worst['point_id']} | {worst['occbench']:.6g} | {worst['ncu']:.6g} | {worst['diff_pct']:+.2f}% |")
    missing = [r for r in rows if r["counter"] == "*"]
    print(f"\n{len({(r['config'], r['point_id']) for r in compared})} points compared, {len(missing)} not compared")
    for r in missing:
        print(f"  {r['config']} {r['point_id']}: {r['note']}")



def read_csvs(paths):
    """The rows of several runs' CSVs, one after the other."""
    return [r for path in paths for r in read_csv(path)]


def ncu_steady(row):
    """Whether ncu's own runs of the point lie within 2% of each other (its spread)."""
    return row["ncu_spread_pct"] <= 2.0


def per_config_table(rows, counter, labels):
    """Per config (`labels`: {config: label}, in that order): points of one counter within 2% of ncu's runs."""
    lines = ["| config | points within 2% |", "|---|---:|"]
    for config, label in labels.items():
        mine = [r for r in rows if r["counter"] == counter and r["config"] == config]
        lines.append(f"| {label} | {sum(r['within_2pct_of_runs'] for r in mine)} of {len(mine)} |")
    return "\n".join(lines)


def chosen_points(rows, selector):
    """The rows a group names: "*" every config, "A,B" those, "-A,B" all but those; "/after-first"
    at the end leaves out each config's first point (the first kernel ncu profiled of it)."""
    selector, cut, _ = selector.partition("/after-first")
    names = set(selector.lstrip("-").split(","))
    mine = [r for r in rows if selector == "*" or (r["config"] in names) != selector.startswith("-")]
    firsts = {}
    for index, r in enumerate(mine):
        firsts.setdefault(r["config"], index)
    return [r for index, r in enumerate(mine) if not (cut and firsts[r["config"]] == index)]


def groups_table(rows, counter, groups):
    """Per group of configs (LABEL=SELECTOR, chosen_points'), one counter: points, within 2% in the
    first runs, within 2% of ncu's runs, ncu's runs within 2% of each other."""
    lines = [f"| {counter} | points | within 2% (first runs) | within 2% of ncu's runs | ncu's runs within 2% of each other |",
             "|---|---:|---:|---:|---:|"]
    for label, _, selector in (g.rpartition("=") for g in groups):
        mine = chosen_points([r for r in rows if r["counter"] == counter], selector)
        lines.append(f"| {label} | {len(mine)} | {sum(r['within_2pct'] for r in mine)} | "
                     f"{sum(r['within_2pct_of_runs'] for r in mine)} | {sum(map(ncu_steady, mine))} |")
    return "\n".join(lines)


INSTRUMENTED = ("shared_load_wavefronts", "shared_store_wavefronts", "shared_bank_conflicts")


def instrumented_table(rows, labels):
    """Per config: points whose shared-memory counts were instrumented (all three fields have a value),
    those exactly equal to ncu's in all three, and those not instrumented (over instrumented_max_kernel_ms)."""
    points = {}
    for r in rows:
        if r["counter"] in INSTRUMENTED:
            points.setdefault((r["config"], r["point_id"]), {})[r["counter"]] = r
    counts = {}
    for (config, _), fields in points.items():
        done = all(f in fields and fields[f]["diff_pct"] != "" for f in INSTRUMENTED)
        mine = counts.setdefault(config, [0, 0, 0])
        mine[0 if done else 2] += 1
        mine[1] += done and all(fields[f]["exact"] for f in INSTRUMENTED)
    lines = ["| config | instrumented points | exactly equal to ncu (all three fields) | not instrumented (median > 2 ms) |",
             "|---|---:|---:|---:|"]
    for config, (done, exact, skipped) in counts.items():
        lines.append(f"| {labels.get(config, config)} | {done} | {exact if done else '–'} | {skipped} |")
    totals = [sum(c[i] for c in counts.values()) for i in range(3)]
    return "\n".join(lines + ["| **all** | " + " | ".join(f"**{t}**" for t in totals) + " |"])


def runs_table(rows, labels=None):
    """Per counter over CSVs of --runs 2: points, within 2% in the first runs, within 2% of ncu's runs,
    points where ncu's two runs lie within 2% of each other and, of those, occbench within 2% of ncu's
    runs; `labels` ({field: label}) prints only those counters, and only the within-ncu's-runs count."""
    compared = [r for r in rows if r["counter"] != "*"]
    lines = (["| counter | points within 2% of ncu's runs |", "|---|---:|"] if labels else
             ["| counter | points | within 2% (first runs) | within 2% of ncu's runs | ncu's two runs within 2% of each "
              "other | of those, occbench within 2% of ncu's runs |", "|---|---:|---:|---:|---:|---:|"])
    for field in (labels or dict.fromkeys(r["counter"] for r in compared)):
        mine = [r for r in compared if r["counter"] == field]
        within_runs = sum(r["within_2pct_of_runs"] for r in mine)
        if labels:
            lines.append(f"| {labels[field]} | {within_runs} |")
            continue
        stable = [r for r in mine if ncu_steady(r)]
        first = f"{sum(r['within_2pct'] for r in mine)}" + (" (all exact)" if all(r["exact"] for r in mine) else "")
        lines.append(f"| {field} | {len(mine)} | {first} | {within_runs} | {len(stable)} | "
                     f"{sum(r['within_2pct_of_runs'] for r in stable)} |")
    return "\n".join(lines)


def compared_fields(args, units):
    """{field: ncu metric} of the counters compared: all of the record's, or those of --only."""
    fields = counter_metrics(units)
    if not args.only:
        return fields
    unknown = sorted(set(args.only) - set(fields))
    if unknown:
        sys.exit(f"--only: no counter {', '.join(unknown)} in the record; its counters: {', '.join(fields)}")
    return {f: m for f, m in fields.items() if f in args.only}


def is_instrumented(metric):
    """ncu counts these by patching the kernel's SASS (as occbench's instrumented launch does)."""
    return metric in SECTION_FIGURES or metric.startswith("smsp__sass_")


def ncu_run(args, doc, small_path, out, tag):
    """ncu's values of the config's timed launches: {kernel name: [metrics per launch]}.

    The hardware counters and the instrumented counts come from two ncu runs: in one run the
    instrumented passes' own memory traffic (the patched code writing its counts) lands in the
    hardware counters' L2 bytes (+8 to +9 MB per transpose kernel of 5000 x 3001, H100)."""
    wanted = set(compared_fields(args, doc["units"]).values())
    groups = [("", sorted(m for m in wanted if not is_instrumented(m))),
              ("-instrumented", sorted(m for m in wanted if is_instrumented(m)))]
    merged = {}
    for suffix, group in groups:
        if not group:
            continue
        part = ncu_group_run(args, doc, small_path, out, tag + suffix, group)
        for name, launches in part.items():
            mine = merged.setdefault(name, [{} for _ in launches])
            if len(mine) != len(launches):
                print(f"{tag}: {name}: {len(mine)} launches in one ncu run, {len(launches)} in the other", flush=True)
            for held, more in zip(mine, launches):
                held.update(more)
    return merged


def ncu_group_run(args, doc, small_path, out, tag, wanted):
    ncu_csv = out / f"{tag}-ncu.csv"
    ncu = {}
    metrics = [m for m in wanted if m not in SECTION_FIGURES]
    sections = []
    for section in sorted({SECTION_FIGURES[m] for m in wanted if m in SECTION_FIGURES}):
        sections += ["--section", section, "--print-details", "all"]
    # Only the kernels inside occbench's NVTX ranges (the timed launches), else every kernel.
    for nvtx_filter in ([["--nvtx-include", args.nvtx_include]] if args.nvtx_include else []) + [[]]:
        run([args.ncu, *args.ncu_option, "--replay-mode", args.replay_mode, "--clock-control", "none", *sections,
             *(["--metrics", ",".join(metrics)] if metrics else []), "--nvtx", *nvtx_filter, "--print-nvtx-rename", "kernel",
             "--print-units", "base", "--csv", "--log-file", ncu_csv, args.occbench, "run", small_path,
             "--out", out / f"{tag}-ncu-run"], log=out / f"{tag}-ncu.log")
        ncu = ncu_values(ncu_csv)
        if any(point_launches(ncu, r["point_id"]) for r in doc["results"]):
            break
        print(f"{tag}: no kernel named by a point with {nvtx_filter or 'no filter'}", flush=True)
    return ncu


def table_flags(ap):
    """The flags that print a write-up's table of earlier runs' CSVs instead of running anything."""
    ap.add_argument("--runs-table", nargs="+", metavar="CSV",
                    help="print the table per counter of earlier --runs 2 CSVs taken together (a write-up's) and exit")
    ap.add_argument("--labels", type=lambda text: dict(f.split("=", 1) for f in text.split(",")), metavar="FIELD=LABEL,...",
                    help="with --runs-table: only these counters (or configs, with --per-config), by these names, "
                         "within 2%% of ncu's runs")
    ap.add_argument("--per-config", metavar="FIELD", help="with --runs-table and --labels: one counter, per config")
    ap.add_argument("--instrumented-table", nargs="+", metavar="CSV",
                    help="print the instrumented shared-memory counts per config of earlier CSVs and exit")
    ap.add_argument("--groups", nargs="+", metavar="LABEL=SELECTOR",
                    help="with --runs-table and --per-config: that counter per group of configs (*, A,B, -A,B; /after-first)")


def print_table(args):
    """The table the flags ask for, of earlier CSVs; False where they ask for none."""
    if args.summarize:
        summarize(read_csv(args.summarize))
    elif args.instrumented_table:
        print(instrumented_table(read_csvs(args.instrumented_table), args.labels or {}))
    elif args.runs_table:
        rows = read_csvs(args.runs_table)
        if args.groups:
            print(groups_table(rows, args.per_config, args.groups))
        else:
            print(per_config_table(rows, args.per_config, args.labels) if args.per_config else runs_table(rows, args.labels))
    return bool(args.summarize or args.instrumented_table or args.runs_table)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("configs", nargs="*")
    ap.add_argument("--summarize", metavar="CSV", help="print the tables of an earlier run's CSV and exit")
    table_flags(ap)
    ap.add_argument("--occbench", default="build/occbench")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--out", default="ncu-counters-agreement")
    ap.add_argument("--nvtx-include", default="regex:.+/",
                    help="ncu's NVTX filter for the timed launches ('' profiles every kernel; slower)")
    ap.add_argument("--all-sizes", action="store_true", help="every size of the config, not only the smallest")
    ap.add_argument("--replay-mode", choices=["kernel", "application"], default="kernel",
                    help="ncu's replay: kernel (its default: memory saved and restored between passes) or "
                         "application (each pass a new run of occbench, nothing restored: DRAM writes comparable)")
    ap.add_argument("--ncu-option", action="append", default=[], metavar="OPTION",
                    help="passed to ncu as it is (repeatable), e.g. --ncu-option=--cache-control=none")
    ap.add_argument("--only", type=lambda text: text.split(","), default=[], metavar="FIELD[,FIELD]",
                    help="compare only these counters (ncu then collects only their metrics: fewer passes)")
    ap.add_argument("--l2-flush", choices=["per_kernel", "per_launch"], default="per_kernel",
                    help="occbench's measurement.counters_l2_flush: per_kernel (the default) flushes before each kernel "
                         "of a launch, as ncu does; per_launch only before each replay of the launch")
    ap.add_argument("--runs", type=int, default=1,
                    help="run occbench and ncu this many times each: how far each tool moves from itself")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error(f"--runs: expected a count of at least 1, got {args.runs}")
    if print_table(args):
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for config in args.configs:
        name = Path(config).stem
        small_path = out / f"{name}-small.json"
        # Written beside the results: the files a user-kernel config names are made absolute.
        spec = relocated(json.loads(Path(config).read_text()), config)
        small_path.write_text(json.dumps(smallest(spec, args.all_sizes, args.l2_flush), indent=2))
        docs, ncus = [], []
        for k in range(args.runs):
            tag = f"-{k + 1}" if args.runs > 1 else ""
            run([args.occbench, "run", small_path, "--counters", "--out", out / f"{name}-counters{tag}"],
                log=out / f"{name}-counters{tag}.log")
            docs.append(newest_json(out / f"{name}-counters{tag}"))
            ncus.append(ncu_run(args, docs[0], small_path, out, f"{name}{tag}"))
        doc = docs[0]
        fields = compared_fields(args, doc["units"])
        percent = {f for f, text in doc["units"].items() if "%" in text or "fraction" in text}
        by_point = [{r["point_id"]: r for r in d["results"]} for d in docs]
        for r in doc["results"]:
            point = r["point_id"]
            counted = [(p.get(point, {}).get("counters") or {}) for p in by_point]
            c = counted[0]
            if c.get("status") != "measured":
                rows.append({"config": name, "point_id": point, "counter": "*", "metric": "", "occbench": "",
                             "ncu": "", "diff_pct": "", "within_2pct": "", "exact": "",
                             "note": f"occbench counters {c.get('status', 'absent')}: {c.get('reason', r.get('reason', ''))}"})
                continue
            launches = [point_launches(ncu, point) for ncu in ncus]
            if not all(launches):
                rows.append({"config": name, "point_id": point, "counter": "*", "metric": "", "occbench": "",
                             "ncu": "", "diff_pct": "", "within_2pct": "", "exact": "", "note": "no ncu kernel named by this point"})
                continue
            for field, metric in fields.items():
                is_percent = f"counters.{field}" in percent
                scale = 100.0 if field == "achieved_occupancy" else 1.0
                # A run whose counters failed or gave no number (NaN is written as null) is left out.
                mine_runs = [float(x[field]) * scale for x in counted if x.get("status") == "measured" and x.get(field) is not None]
                if c.get(field) is None:
                    rows.append({"config": name, "point_id": point, "counter": field, "metric": metric, "occbench": "",
                                 "ncu": "", "diff_pct": "", "within_2pct": "", "exact": "",
                                 "note": "occbench recorded no value for this counter"})
                    continue
                # One timed sample, no warm-up: each range holds that launch's kernels.
                theirs_runs = [combine(kernels, metric, is_percent) for kernels in launches]
                mine, theirs = mine_runs[0], theirs_runs[0]
                diff = relative_diff(mine, theirs)
                rows.append({"config": name, "point_id": point, "counter": field, "metric": metric,
                             "occbench": mine, "ncu": theirs, "diff_pct": round(100 * diff, 4),
                             "within_2pct": abs(diff) <= TOLERANCE, "exact": mine == theirs,
                             "occbench_runs": ";".join(f"{v:.8g}" for v in mine_runs),
                             "ncu_runs": ";".join(f"{v:.8g}" for v in theirs_runs),
                             "ncu_spread_pct": round(100 * spread(theirs_runs), 4),
                             "within_2pct_of_runs": range_gap(mine_runs, theirs_runs) <= TOLERANCE,
                             "note": f"{len(launches[0])} kernel(s) under ncu, {c['kernels']} counted by occbench"})

        write_csv(out / "ncu_counters_agreement.csv", rows)  # after each config: a time limit keeps what is done

    summarize(rows)

if __name__ == "__main__":
    main()

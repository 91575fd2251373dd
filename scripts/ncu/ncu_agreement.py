#!/usr/bin/env python3
"""occbench's cold medians against Nsight Compute's gpu__time_duration, point by point.

    python3 scripts/ncu/ncu_agreement.py --occbench build-h100/occbench --out DIR CONFIG.json [CONFIG.json ...]
        [--methods read,write,write_read] [--ncu ncu]

For each config:
  1. a normal `occbench run` (once per L2 flush method in --methods, through OCCBENCH_L2_FLUSH):
     its cold medians are the figures occbench reports;
  2. one run under `ncu --clock-control none --metrics gpu__time_duration.sum --nvtx
     --print-nvtx-rename kernel` (ncu's default cache control flushes and invalidates every cache
     before each profiled kernel), of the same config with 5 samples per point: occbench puts every
     timed launch in an NVTX range named by its point id, so ncu names the kernels by point. Under
     ncu occbench's own timings are disturbed; only ncu's figures are taken from this run.
     occbench times the ncu run with the event pair (OCCBENCH_TIMING_SOURCE=event): ncu owns CUPTI.
Prints a markdown table per config (occbench median, ncu median, difference, within the
target: 2% at >= 20 us, 1 us below; beside them the normal run's event-pair median of the same
samples and its timing source) and writes DIR/ncu_agreement.csv with every row.

    python3 scripts/ncu/ncu_agreement.py --table-of DIR/ncu_agreement.csv [CONFIG] [--outside]
        # a config's table again, from the CSV (without CONFIG: every config's, under its name;
        # --outside: the points outside the target alone)
        (the CSV a file, or ARCHIVE.tar.xz:PATH inside an evidence archive)

--ncu-runs N (default 1) runs step 2 N times, each a new process: `ncu_runs_us` holds every run's
median, the table's ncu figure stays the first run's, and `within_target_of_ncu_runs` is true when
occbench's median is within the target of some value between ncu's lowest and highest: a kernel
whose time ncu itself does not reproduce within 2% (the naive transpose on the H100) is judged
against what ncu gives for it, not against one draw.
"""
import argparse
import csv
import io
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from occbench_config import relocated  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import text_of  # noqa: E402  (a CSV kept inside an evidence archive)

NCU_SAMPLES = 5


def newest_json(folder):
    files = sorted(Path(folder).glob("*.json"), key=lambda p: p.stat().st_mtime)
    if not files:
        sys.exit(f"no results .json in {folder}")
    return json.loads(files[-1].read_text())


def run(cmd, env=None, log=None):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    with open(log, "w") if log else open(os.devnull, "w") as out:
        code = subprocess.call([str(c) for c in cmd], env=env, stdout=out, stderr=subprocess.STDOUT)
    if code not in (0, 1):  # 1: a point failed; still comparable for the others
        sys.exit(f"command failed with exit {code}: {' '.join(map(str, cmd))} (log: {log})")


UNIT_SCALE = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6,
              "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}  # times to µs, bytes to bytes


def ncu_rows(csv_path, text=None):
    """The rows of an ncu --csv output (of `text`, read from `csv_path` if None), after its log lines."""
    text = (Path(csv_path).read_text() if text is None else text).splitlines()
    start = next((i for i, line in enumerate(text) if line.startswith('"ID"')), None)
    if start is None:
        sys.exit(f"{csv_path}: no ncu CSV header (\"ID\", ...) found")
    return csv.DictReader(text[start:])


def metric_value(row):
    return float(row["Metric Value"].replace(",", "")) * UNIT_SCALE.get(row["Metric Unit"], 1.0)


def ncu_durations_us(csv_path, text=None):
    """{kernel name: [gpu__time_duration in us, ...]} in launch order."""
    out = {}
    for row in ncu_rows(csv_path, text):
        if row.get("Metric Name") == "gpu__time_duration.sum":
            out.setdefault(row["Kernel Name"], []).append(metric_value(row))
    return out


def ncu_metric_values(csv_path, text, kernel):
    """{metric: [value, ...]} of the kernels whose name `kernel(name)` accepts (µs, bytes), in launch order."""
    out = {}
    for row in ncu_rows(csv_path, text):
        if kernel(row["Kernel Name"]):
            out.setdefault(row["Metric Name"], []).append(metric_value(row))
    return out


def within_target(occ_us, ncu_us):
    diff = occ_us - ncu_us
    if ncu_us >= 20:
        return abs(diff) / ncu_us <= 0.02
    return abs(diff) <= 1.0


def within_target_of_runs(occ_us, ncu_runs_us):
    """Within the target of the nearest value in [min, max] of ncu's runs."""
    nearest = min(max(occ_us, min(ncu_runs_us)), max(ncu_runs_us))
    return within_target(occ_us, nearest)


def ncu_medians_us(durations, record):
    """ncu's median of a point's samples and the kernels per sample, from its durations in launch order."""
    launches = 1 + int(record["timing"]["samples"])  # one warm-up, then the samples
    per_run = max(1, len(durations) // launches)  # kernels per run (a library call may launch several)
    runs = [sum(durations[i:i + per_run]) for i in range(0, per_run * launches, per_run)]
    return statistics.median(runs[1:] if len(runs) > 1 else runs), per_run  # the warm-up run left out


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("configs", nargs="+")
    ap.add_argument("--occbench", default="build/occbench")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--out", default="ncu-agreement")
    ap.add_argument("--methods", default="read", help="L2 flush methods of the normal runs (OCCBENCH_L2_FLUSH)")
    ap.add_argument("--ncu-runs", type=int, default=1, help="profile the config this many times (ncu against itself)")
    ap.add_argument("--ncu-option", action="append", default=[], metavar="OPTION",
                    help="passed to ncu as it is (repeatable), e.g. --ncu-option=--cache-control=none")
    args = ap.parse_args()
    if args.ncu_runs < 1:
        ap.error(f"--ncu-runs: expected a count of at least 1, got {args.ncu_runs}")
    return args


def occbench_medians(args, config, name, methods, out):
    """Step 1: per point, occbench's cold median (us) per flush method, its timing source and its
    event-pair median."""
    medians, sources, event_medians = {}, {}, {}
    for method in methods:
        folder = out / f"{name}-{method}"
        env = dict(os.environ, OCCBENCH_L2_FLUSH=method)
        run([args.occbench, "run", config, "--out", folder], env=env, log=out / f"{name}-{method}.log")
        for r in newest_json(folder)["results"]:
            if r.get("status") == "ok" and r.get("timing") and r["timing"].get("mode") in ("cold", "hot"):
                medians.setdefault(r["point_id"], {})[method] = r["timing"]["median_ms"] * 1e3
                sources[r["point_id"]] = r["timing"].get("source", "cuda_event_pair")
                if r["timing"].get("event_median_ms"):
                    event_medians[r["point_id"]] = r["timing"]["event_median_ms"] * 1e3
    return medians, sources, event_medians


def ncu_profiles(args, config, name, out):
    """Step 2: per ncu run, ({kernel name: durations}, {point id: record})."""
    spec = json.loads(Path(config).read_text())
    few = relocated(spec, config)  # written beside the results: files it names stay found
    few["measurement"] = dict(spec.get("measurement", {}), min_samples=NCU_SAMPLES, max_samples=NCU_SAMPLES,
                              min_time_s=0, timeout_s=60, warmup_runs=1)
    few_path = out / f"{name}-ncu-config.json"
    few_path.write_text(json.dumps(few, indent=2))
    # occbench's own timing source under ncu: the event pair (ncu owns CUPTI there, and these
    # timings are not used).
    ncu_env = dict(os.environ, OCCBENCH_TIMING_SOURCE="event")
    ncu_runs = []
    for k in range(args.ncu_runs):
        tag = f"-{k + 1}" if args.ncu_runs > 1 else ""
        ncu_csv = out / f"{name}-ncu{tag}.csv"
        run([args.ncu, *args.ncu_option, "--clock-control", "none", "--metrics", "gpu__time_duration.sum", "--nvtx", "--print-nvtx-rename",
             "kernel", "--csv", "--log-file", ncu_csv, args.occbench, "run", few_path, "--out", out / f"{name}-ncu-run{tag}"],
            env=ncu_env, log=out / f"{name}-ncu{tag}.log")
        ncu_runs.append((ncu_durations_us(ncu_csv),
                         {r["point_id"]: r for r in newest_json(out / f"{name}-ncu-run{tag}")["results"]}))
    return ncu_runs


def point_ncu_medians(point_id, ncu_runs):
    """(median us, kernels per run) of the point in each ncu run, or None where a run does not name it."""
    per_ncu_run = []
    for ncu, records in ncu_runs:
        durations = ncu.get(point_id) or next((v for k, v in ncu.items() if point_id in k), None)
        if durations and records.get(point_id, {}).get("timing"):
            per_ncu_run.append(ncu_medians_us(durations, records[point_id]))
    return per_ncu_run if len(per_ncu_run) == len(ncu_runs) else None


def compare_point(name, point_id, by_method, methods, per_ncu_run, sources, event_medians):
    """The point's CSV rows, one per method it was measured with."""
    ncu_us, per_run = per_ncu_run[0]
    ncu_all = [us for us, _ in per_ncu_run]
    rows = []
    for m in methods:
        occ = by_method.get(m)
        if occ is None:
            continue
        rows.append({"config": name, "point_id": point_id, "method": m, "occbench_median_us": round(occ, 4),
                     "ncu_median_us": round(ncu_us, 4), "kernels_per_run": per_run,
                     "diff_us": round(occ - ncu_us, 4), "diff_pct": round(100 * (occ - ncu_us) / ncu_us, 3),
                     "within_target": within_target(occ, ncu_us), "ncu_runs_us": ";".join(f"{us:.4f}" for us in ncu_all),
                     "within_target_of_ncu_runs": within_target_of_runs(occ, ncu_all),
                     "timing_source": sources.get(point_id, ""),
                     "event_median_us": round(event_medians[point_id], 4) if point_id in event_medians else None})
    return rows


def table_head(methods, timing=True):
    """`timing`: the event pair's median and the timing source, columns of runs since they were recorded."""
    head = "| point | " + " | ".join(f"occbench ({m}) µs" for m in methods) + " | ncu µs | " + \
           " | ".join(f"diff ({m})" for m in methods) + " | within target |" + (" event pair µs | source |" if timing else "")
    return [head, "|" + "---|" * (head.count("|") - 1)]


def point_line(point_id, methods, rows, timing=True):
    """A point's table row from its CSV rows (one per method it has): the same from a run or from the CSV."""
    by_method = {r["method"]: r for r in rows}
    first = rows[0]
    cells = [f"{float(by_method[m]['occbench_median_us']):.2f}" if m in by_method else "–" for m in methods]
    diffs = [f"{float(by_method[m]['diff_us']):+.2f} µs ({float(by_method[m]['diff_pct']):+.1f}%)" if m in by_method else "–"
             for m in methods]
    ok = by_method[methods[0]]["within_target"] in (True, "True") if methods[0] in by_method else True
    event = first.get("event_median_us")
    event = f"{float(event):.2f}" if event not in (None, "") and float(event) else "–"
    line = (f"| {point_id} | " + " | ".join(cells) + f" | {float(first['ncu_median_us']):.2f} | " + " | ".join(diffs) +
            f" | {'yes' if ok else 'NO'} |")
    return line + (f" {event} | {first.get('timing_source') or '–'} |" if timing else "")


def config_table(name, methods, occbench, ncu_runs):
    """Prints the config's table; returns its CSV rows."""
    medians, sources, event_medians = occbench
    print(f"\n### {name}\n")
    print("\n".join(table_head(methods)))
    rows = []
    for point_id, by_method in medians.items():
        per_ncu_run = point_ncu_medians(point_id, ncu_runs)
        if per_ncu_run is None:
            print(f"| {point_id} | no ncu kernels named by this point |")
            continue
        mine = compare_point(name, point_id, by_method, methods, per_ncu_run, sources, event_medians)
        rows += mine
        print(point_line(point_id, methods, mine))
    return rows


def table_of_csv(path, config, outside=False):
    """A config's table as the run printed it, again from its CSV (ncu_agreement.csv, a file or ARCHIVE.tar.xz:PATH):
    the write-ups' tables are these; `outside`: only the points outside the target."""
    reader = csv.DictReader(io.StringIO(text_of(path)))
    rows = [r for r in reader if r["config"] == config]
    if not rows:
        sys.exit(f"{path}: no row of config {config}")
    timing = "timing_source" in reader.fieldnames  # a CSV written before: the columns its run printed
    methods = list(dict.fromkeys(r["method"] for r in rows))
    lines = table_head(methods, timing)
    for point_id in dict.fromkeys(r["point_id"] for r in rows):
        line = point_line(point_id, methods, [r for r in rows if r["point_id"] == point_id], timing)
        if not outside or "| NO |" in line:
            lines.append(line)
    return "\n".join(lines)


def tables_of_csv(args):
    """--table-of's arguments: CSV [CONFIG] [--outside]; without CONFIG, each config's table under its name."""
    outside = "--outside" in args
    path, *config = [a for a in args if a != "--outside"]
    if config:
        return table_of_csv(path, config[0], outside)
    configs = dict.fromkeys(r["config"] for r in csv.DictReader(io.StringIO(text_of(path))))
    tables = [(name, table_of_csv(path, name, outside)) for name in configs]
    return "\n\n".join(f"### {name}\n\n{table}" for name, table in tables if table.count("\n") > 1)


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["config"])
        writer.writeheader()
        writer.writerows(rows)


def print_summary(rows, methods, ncu_run_count):
    for m in methods:
        mine = [r for r in rows if r["method"] == m]
        if not mine:
            continue
        short = [r for r in mine if r["ncu_median_us"] < 20]
        long = [r for r in mine if r["ncu_median_us"] >= 20]
        worst_short = max(short, key=lambda r: abs(r["diff_us"])) if short else None
        worst_long = max(long, key=lambda r: abs(r["diff_pct"])) if long else None
        worst = f"{worst_short['point_id']} {worst_short['diff_us']:+.2f} us" if worst_short else "none"
        worst_pct = f"{worst_long['point_id']} {worst_long['diff_pct']:+.2f}%" if worst_long else "none"
        misses = sum(not r["within_target"] for r in mine)
        misses_of_runs = sum(not r["within_target_of_ncu_runs"] for r in mine)
        print(f"\n{m}: {len(mine)} points, {misses} outside the target ({misses_of_runs} outside it against every one of "
              f"ncu's {ncu_run_count} runs); worst >= 20 us: {worst_pct}; worst < 20 us: {worst}")


def main():
    if sys.argv[1:2] == ["--table-of"]:  # --table-of CSV [CONFIG] [--outside]: a config's table again, from the run's CSV
        print(tables_of_csv(sys.argv[2:]))
        return
    args = parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    methods = args.methods.split(",")
    rows = []
    for config in args.configs:
        name = Path(config).stem
        occbench = occbench_medians(args, config, name, methods, out)
        rows += config_table(name, methods, occbench, ncu_profiles(args, config, name, out))
    write_csv(out / "ncu_agreement.csv", rows)
    print_summary(rows, methods, args.ncu_runs)


if __name__ == "__main__":
    main()

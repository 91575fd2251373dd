#!/usr/bin/env python3
"""Turns occbench_gbench's JSON output into an occbench results document, so that
`occbench compare RUN.json GBENCH_RESULTS.json` judges the two front ends' medians within noise.

    occbench_gbench --config C.json --benchmark_out=g.json --benchmark_out_format=json
    python3 bench/gbench_to_results.py g.json > g_results.json
    occbench compare results/C-<device>-<time>.json g_results.json

Each benchmark becomes a point with the point_id `occbench run` gives it
(family/variant/n:16777216/block_size:256/manual_time -> family/variant/n=16777216/block_size=256)
and timing from the sample_median_us / sample_noise counters: the median and stddev/mean of
single-launch times, as `occbench run` reports them. With --benchmark_repetitions, the
repetition with the median sample median stands for the point. Standard library only.
"""
import json
import statistics
import sys


def point_id(name):
    parts = name.split("/")
    suffixes = ("manual_time", "real_time", "repeats:", "iterations:", "min_time:")
    while parts and parts[-1].startswith(suffixes):
        parts.pop()
    if len(parts) < 2:
        raise ValueError(f"benchmark name {name!r} is not family/variant/param:value/...")
    params = {}
    for p in parts[2:]:
        key, _, value = p.partition(":")
        params[key] = int(value)
    return "/".join(parts[:2] + [f"{k}={v}" for k, v in params.items()]), parts[0], parts[1], params


def convert(doc):
    by_id = {}
    for b in doc.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        pid, family, variant, params = point_id(b.get("run_name") or b["name"])
        by_id.setdefault(pid, (family, variant, params, []))[3].append(b)
    results = []
    for pid, (family, variant, params, runs) in by_id.items():
        record = {"point_id": pid, "family": family, "variant": variant, "params": params,
                  "status": "ok", "reason": "", "timing": None}
        good = [r for r in runs if not r.get("error_occurred") and "sample_median_us" in r]
        if not good:
            record["status"] = "skipped"
            record["reason"] = next((r.get("error_message", "") for r in runs if r.get("error_occurred")), "no samples")
        else:
            good.sort(key=lambda r: r["sample_median_us"])
            chosen = good[(len(good) - 1) // 2]
            median_ms = chosen["sample_median_us"] / 1e3
            record["timing"] = {"mode": "gbench", "samples": int(sum(r["iterations"] for r in good)),
                                "median_ms": median_ms, "noise": chosen.get("sample_noise"),
                                "repetitions": len(good),
                                "repetition_medians_ms": [r["sample_median_us"] / 1e3 for r in good]}
            if len(good) > 1:
                record["timing"]["repetition_spread"] = statistics.pstdev(record["timing"]["repetition_medians_ms"]) / median_ms
        results.append(record)
    context = doc.get("context", {})
    return {
        "schema_version": 1,
        "tool": {"name": "occbench_gbench", "version": "", "git_commit": context.get("occbench_commit", "unknown")},
        "run": {"kind": "gbench", "started_utc": context.get("date", "")},
        "device": {"name": context.get("occbench_device", "")},
        "config": {"name": "occbench_gbench"},
        "results": results,
    }


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        with open(argv[1]) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.stderr.write(f"{argv[1]}: {e}; expected the JSON that --benchmark_out writes\n")
        return 2
    out = convert(doc)
    if not out["results"]:
        sys.stderr.write(f"{argv[1]}: no benchmark runs in it\n")
        return 2
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

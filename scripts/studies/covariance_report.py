#!/usr/bin/env python3
"""Markdown tables for the covariance study, read from occbench results JSON.

    python3 scripts/studies/covariance_report.py RESULTS.json [MORE.json ...] > covariance.md
    python3 scripts/studies/covariance_report.py --table N RESULTS.json ...   # only its Nth table (from 0), for a write-up

Every number in the output comes from the results files: per size (m, n), the shared-memory
kernels by chunk size (time, CGMA, occupancy with its limiter), static against dynamic shared
memory, every variant's best configuration against cuBLAS SSYRK, and register_tiled's
configurations. Several files are several runs: a point found in more than one is shown once, from
the first file given, and every ratio to cuBLAS uses the cuBLAS time measured in the point's own
run. Useful GFLOP/s count the n(n+1)/2 dot products of length m (2 FLOPs per
multiply-add) for every variant alike; "full-equivalent" counts the whole n^2 matrix. Standard
library only.
"""
import argparse
import json
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

SEED_VARIANTS = ("naive", "symmetric", "shared_static", "shared_dynamic")
SIZE_KEYS = ("m", "n")
SOURCE = "_source"  # the file (one run) a point came from: ratios to cuBLAS stay within one run


class ReportError(Exception):
    pass


def load(paths):
    """(device name, results, duplicates dropped, cuBLAS references) from every file; all must be
    covariance runs on one device. A point (variant and parameters) in several files is kept from the
    first file given; the references are every cuBLAS point of every file, duplicates included, so
    that each run keeps its own baseline."""
    device, results, seen, duplicates, references = None, [], set(), 0, []
    for path in paths:
        try:
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise ReportError(f"{path}: cannot read an occbench results JSON file ({error})") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
            raise ReportError(f"{path}: expected an occbench results document with a 'results' list")
        name = (doc.get("device") or {}).get("name", "unknown device")
        if device is not None and name != device:
            raise ReportError(f"{path}: measured on '{name}', the other files on '{device}'")
        device = name
        for r in doc["results"]:
            if r.get("family") != "covariance":
                continue
            if r.get("variant") == "cublas_syrk":
                references.append({**r, SOURCE: Path(path).name})
            key = (r.get("variant"), json.dumps(r.get("params"), sort_keys=True))
            if key in seen:
                duplicates += 1
                continue
            seen.add(key)
            results.append({**r, SOURCE: Path(path).name})
    if not results:
        raise ReportError("no covariance results in " + ", ".join(map(str, paths)))
    return device, results, duplicates, references


def ok(r):
    t = r.get("timing") or {}
    return r.get("status") == "ok" and (t.get("median_ms") or 0) > 0


def ms(r):
    return r["timing"]["median_ms"]


def useful_gflops(r):
    p = r["params"]
    return p["n"] * (p["n"] + 1) * p["m"] / (ms(r) * 1e-3) / 1e9


def equivalent_gflops(r):
    p = r["params"]
    return 2.0 * p["m"] * p["n"] ** 2 / (ms(r) * 1e-3) / 1e9


def launch_params(r):
    return {k: v for k, v in r["params"].items() if k not in SIZE_KEYS}


def fmt(value, digits=3):
    if value is None:
        return "–"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if value == 0:
        return "0"
    if abs(value) < 1e-3:
        return f"{value:.2e}"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    return f"{value:,.{decimals}f}"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(fmt(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def occ(r, key):
    return (r.get("occupancy") or {}).get(key)


def res(r, key):
    return (r.get("resources") or {}).get(key)


def smem_per_block(r):
    static = res(r, "static_smem_bytes")
    dynamic = (r.get("launch") or {}).get("dynamic_smem_bytes", 0)
    return None if static is None else static + dynamic


def threads_per_block(r):
    block = (r.get("launch") or {}).get("block")
    return None if not block else block[0] * block[1] * block[2]


def params_text(r):
    return ", ".join(f"{k}={v}" for k, v in launch_params(r).items()) or "–"


def not_run(r):
    return f"{r.get('status')}: {r.get('reason', '')}"[:120]


def run_references(size, references):
    """The cuBLAS points of this size, and the best of each run (file). Each point is compared with
    the best cuBLAS time of its own run: timings from different runs are not mixed in one ratio."""
    cublas = [r for r in references if ok(r) and (r["params"].get("m"), r["params"].get("n")) == size]
    run_cublas = {}
    for r in cublas:
        if r[SOURCE] not in run_cublas or ms(r) < ms(run_cublas[r[SOURCE]]):
            run_cublas[r[SOURCE]] = r
    return cublas, run_cublas


def reference_time(run_cublas):
    """A point's cuBLAS time, or None where its run has no cuBLAS at this size (then no ratio)."""
    def t_ref(r):
        ref = run_cublas.get(r[SOURCE])
        return ms(ref) if ref else None
    return t_ref


def reference_lines(rs, cublas, run_cublas):
    sources = sorted({r[SOURCE] for r in rs} | set(run_cublas),
                     key=lambda f: min(i for i, r in enumerate(rs + cublas) if r[SOURCE] == f))
    out = []
    if len(sources) > 1:
        counts = ", ".join(f"{f} ({sum(r[SOURCE] == f for r in rs)})" for f in sources)
        out += [f"Points from {len(sources)} runs: {counts}. Each ratio to cuBLAS uses the cuBLAS time of the "
                "point's own run.", ""]
    for source, best_run in run_cublas.items():
        mine = sorted((r for r in cublas if r[SOURCE] == source), key=lambda r: r["params"].get("pedantic", 0))
        modes = ", ".join(f"pedantic={r['params'].get('pedantic')}: {fmt(ms(r))} ms" for r in mine)
        where = f" in {source}" if len(sources) > 1 else ""
        out += [f"cuBLAS SSYRK (FP32, mirror kernel included){where}: {modes}; the best, {fmt(ms(best_run))} ms "
                f"= {fmt(useful_gflops(best_run))} useful GFLOP/s, is the reference"
                + (" for that run's points." if len(sources) > 1 else " below."), ""]
    problems = [r for r in rs if r.get("status") != "ok"]
    if problems:
        out += ["Points not timed:", ""] + [f"- {r['variant']} {params_text(r)}: {not_run(r)}" for r in problems] + [""]
    return out


def chunk_row(c, v, r, t_ref):
    timed_ok = ok(r)
    return [
        c, v.replace("shared_", ""), ms(r) if timed_ok else not_run(r),
        (r.get("work") or {}).get("cgma_flop_per_byte"),
        useful_gflops(r) if timed_ok else None,
        ms(r) / t_ref(r) if timed_ok and t_ref(r) else None,
        threads_per_block(r), res(r, "registers_per_thread"), smem_per_block(r),
        occ(r, "active_blocks_per_sm"), occ(r, "active_warps_per_sm"), occ(r, "theoretical"),
        occ(r, "thread_utilization"), occ(r, "limiter"),
        ((r.get("occupancy") or {}).get("blocks_limit") or {}).get("shared_memory"),
    ]


def chunk_lines(shared, chunks, t_ref):
    rows = [chunk_row(c, v, shared[(v, c)], t_ref)
            for c in chunks for v in ("shared_static", "shared_dynamic") if (v, c) in shared]
    return ["### Shared-memory kernels (seed 000) by chunk size", "",
            "CGMA from the work model: 2c³ FLOPs per 2c² floats loaded per chunk step = c/4 FLOP/B (the C stores "
            "lower it by about c/m). Seed 000's table counts a multiply-add as one operation, so it reads half: "
            "0.25 at c = 2, 1.0 at c = 8.", "",
            table(["chunk", "smem", "median ms", "CGMA FLOP/B", "useful GFLOP/s", "× cuBLAS time",
                   "threads/block", "regs/thread", "smem B/block", "blocks/SM", "warps/SM", "occupancy",
                   "thread util.", "limiter", "blocks/SM smem allows"], rows), ""]


def static_dynamic_lines(shared, chunks):
    ratios, rows = [], []
    for c in chunks:
        s, d = shared.get(("shared_static", c)), shared.get(("shared_dynamic", c))
        if s and d and ok(s) and ok(d):
            ratio = ms(d) / ms(s)
            ratios.append(ratio)
            rows.append([c, ms(s), ms(d), ratio, res(s, "registers_per_thread"), res(d, "registers_per_thread")])
    if not rows:
        return []
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    return ["### Static against dynamic shared memory", "", table(
        ["chunk", "static ms", "dynamic ms", "dynamic / static", "regs static", "regs dynamic"], rows), "",
        f"Geometric mean of dynamic / static over {len(ratios)} chunk sizes: {fmt(geo, 4)} "
        f"(range {fmt(min(ratios), 4)} – {fmt(max(ratios), 4)}).", ""]


def limiter_lines(shared, chunks):
    """The limiter at the smallest and largest chunk."""
    out = []
    for c in (chunks[0], chunks[-1]):
        r = shared.get(("shared_static", c)) or shared.get(("shared_dynamic", c))
        if r and r.get("occupancy"):
            o = r["occupancy"]
            limits = o.get("blocks_limit") or {}
            out.append(
                f"- chunk {c}: {threads_per_block(r)} threads and {smem_per_block(r)} B of shared memory per block; "
                f"{o.get('active_blocks_per_sm')} blocks/SM ({o.get('active_warps_per_sm')} of "
                f"{o.get('max_warps_per_sm')} warps, occupancy {fmt(o.get('theoretical'))}, thread utilization "
                f"{fmt(o.get('thread_utilization'))}), limited by {o.get('limiter')}; each resource alone would "
                f"allow: warps {limits.get('warps')}, registers {limits.get('registers')}, shared memory "
                f"{limits.get('shared_memory')}, the blocks-per-SM cap {limits.get('blocks_per_sm')}.")
    return out + [""]


def best_of_each(by_variant):
    best = {}
    for v, vr in by_variant.items():
        t = [r for r in vr if ok(r)]
        if t:
            best[v] = min(t, key=ms)
    return best


def best_lines(best, t_ref):
    rows = []
    for v in sorted(best, key=lambda v: ms(best[v])):
        r = best[v]
        ver = r.get("verification") or {}
        rows.append([v, params_text(r), ms(r), useful_gflops(r), equivalent_gflops(r),
                     100.0 * t_ref(r) / ms(r) if t_ref(r) else None, ms(r) / t_ref(r) if t_ref(r) else None,
                     (r.get("work") or {}).get("cgma_flop_per_byte"), occ(r, "theoretical"), occ(r, "limiter"),
                     ver.get("max_rel_error"), ver.get("tolerance"), ver.get("checked")])
    if not rows:
        return []
    return ["### Every variant at its best configuration", "",
            "% of cuBLAS = cuBLAS time / variant time (throughput relative to cuBLAS). Verification error is "
            "relative to sqrt(C_jj C_JJ).", "",
            table(["variant", "best parameters", "median ms", "useful GFLOP/s", "full-equivalent GFLOP/s",
                   "% of cuBLAS", "× cuBLAS time", "CGMA FLOP/B", "occupancy", "limiter", "max error",
                   "tolerance", "entries checked"], rows), ""]


def register_tiled_lines(tiled, n, t_ref):
    if not tiled:
        return []
    rows = []
    for r in sorted(tiled, key=lambda r: (r["params"].get("block_tile"), r["params"].get("thread_tile"), r["params"].get("split_k"))):
        p = r["params"]
        timed_ok = ok(r)
        rows.append([p.get("block_tile"), p.get("thread_tile"), p.get("split_k"), "16 B" if n % 4 == 0 else "4 B",
                     ms(r) if timed_ok else not_run(r), useful_gflops(r) if timed_ok else None,
                     100.0 * t_ref(r) / ms(r) if timed_ok and t_ref(r) else None,
                     res(r, "registers_per_thread"), (r.get("launch") or {}).get("grid", [None])[0],
                     occ(r, "active_blocks_per_sm"), occ(r, "theoretical"), occ(r, "limiter")])
    return ["### register_tiled configurations", "",
            table(["block tile", "thread tile", "split_k", "global loads", "median ms", "useful GFLOP/s",
                   "% of cuBLAS", "regs/thread", "tiles (blocks per split)", "blocks/SM", "occupancy",
                   "limiter"], rows), ""]


def answer_lines(best, shared, chunks, t_ref):
    """Answers in one place."""
    answers = []
    seed = [best[v] for v in SEED_VARIANTS if v in best]
    if seed and t_ref(min(seed, key=ms)):
        s = min(seed, key=ms)
        answers.append(f"Best seed kernel: {s['variant']} ({params_text(s)}), {fmt(ms(s))} ms, "
                       f"{fmt(ms(s) / t_ref(s))}× cuBLAS's time ({fmt(100 * t_ref(s) / ms(s))}% of its throughput).")
    if "register_tiled" in best and t_ref(best["register_tiled"]):
        r = best["register_tiled"]
        pct = 100 * t_ref(r) / ms(r)
        answers.append(f"register_tiled at its best ({params_text(r)}): {fmt(ms(r))} ms, {fmt(useful_gflops(r))} "
                       f"useful GFLOP/s, {fmt(pct)}% of cuBLAS SSYRK's throughput (target ≥ 50%: "
                       f"{'met' if pct >= 50 else 'not met'}).")
    if chunks:
        lo, hi = shared.get(("shared_static", chunks[0])), shared.get(("shared_static", chunks[-1]))
        if lo and hi and ok(lo) and ok(hi):
            answers.append(f"Chunk {chunks[0]} → {chunks[-1]} (static): {fmt(ms(lo))} ms → {fmt(ms(hi))} ms "
                           f"({fmt(ms(lo) / ms(hi))}× faster), CGMA {fmt(lo['work']['cgma_flop_per_byte'])} → "
                           f"{fmt(hi['work']['cgma_flop_per_byte'])} FLOP/B.")
    return ["### In short", ""] + [f"- {a}" for a in answers] + [""] if answers else []


def section(size, rs, references):
    """One size's tables: the references, the shared-memory kernels by chunk, every variant's best,
    register_tiled's configurations, and the answers."""
    m, n = size
    by_variant = defaultdict(list)
    for r in rs:
        by_variant[r["variant"]].append(r)
    cublas, run_cublas = run_references(size, references)
    t_ref = reference_time(run_cublas)
    out = [f"## m = {m:,} entries, n = {n:,} features", ""] + reference_lines(rs, cublas, run_cublas)
    shared = {(r["variant"], r["params"].get("chunk_size")): r for r in rs if r["variant"] in ("shared_static", "shared_dynamic")}
    chunks = sorted({c for (_, c) in shared})
    if chunks:
        out += chunk_lines(shared, chunks, t_ref) + static_dynamic_lines(shared, chunks) + limiter_lines(shared, chunks)
    best = best_of_each(by_variant)
    out += best_lines(best, t_ref) + register_tiled_lines(by_variant.get("register_tiled", []), n, t_ref)
    return out + answer_lines(best, shared, chunks, t_ref)


def report(paths):
    device, results, duplicates, references = load(paths)
    groups = defaultdict(list)
    for r in results:
        p = r.get("params", {})
        groups[(p.get("m"), p.get("n"))].append(r)
    out = [f"# Covariance on {device}", "",
           "Generated by scripts/studies/covariance_report.py from " + ", ".join(Path(p).name for p in paths) + "."
           + (f" {duplicates} points measured in more than one file are shown once, from the first file given."
              if duplicates else ""), ""]
    for size in sorted(groups, key=lambda s: (s[1] or 0, s[0] or 0)):
        out += section(size, groups[size], references)
    return "\n".join(out).rstrip() + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="occbench results JSON files of the covariance family")
    parser.add_argument("--table", type=int, help="print only the report's Nth Markdown table (from 0)")
    args = parser.parse_args(argv)
    try:
        text = report(args.results)
        tables = re.findall(r"(?:^\|.*\n)+", text, re.M)
        if args.table is not None and args.table >= len(tables):
            raise ReportError(f"the report has {len(tables)} tables, no table {args.table}")
        sys.stdout.write(text if args.table is None else tables[args.table])
    except ReportError as error:
        print(f"covariance_report: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

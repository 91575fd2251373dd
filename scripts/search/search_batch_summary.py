"""The table of scripts/search/search_batch_study.sh's runs: per run its wall, the time line's parts (the
GPU's timed samples, the wait for the compiler), where its kernels came from (compiled by the
measuring process, waited for from a worker: for the point's own kernel or, before the point was
given, for the first of the next to be compiled; from the cache a worker filled), the best median,
and where walls_compile.txt has them, NVRTC's seconds for all the run's kernels and its slowest.

    python3 scripts/search/search_batch_summary.py STUDY_FOLDER [--json OUT.json]
"""
import json
import sys
from pathlib import Path


def run_summary(folder, name, wall_s):
    records = []
    for line in next((folder / name).glob("*.jsonl")).read_text().splitlines()[1:]:
        record = json.loads(line)
        if "point_id" in record:
            records.append(record)
    compiles = [r.get("compile") or {} for r in records]
    document = json.loads(next((folder / name).glob("*.json")).read_text())
    use = document.get("run", {}).get("time_use_s", {})
    ok = [r["timing"]["median_ms"] for r in records if r.get("status") == "ok"]
    return {"run": name, "points": len(records), "wall_s": wall_s, "best_median_ms": min(ok) if ok else None,
            "timed_samples_s": use.get("timed_samples_s"), "waiting_for_compiler_s": use.get("compile_s"),
            "compiled_by_measuring_process": sum(1 for c in compiles if c.get("compile_ms", 0) > 0),
            "compiled_by_measuring_process_s": round(sum(c.get("compile_ms", 0) for c in compiles) / 1e3, 1),
            "waited_for_a_worker_s": round(sum(c.get("waited_ms", 0) for c in compiles) / 1e3
                                           + sum((r.get("time_use") or {}).get("compiler_wait_s", 0) for r in records), 1),
            "from_the_workers_cache": sum(1 for c in compiles if c.get("cache_hit"))}


def compile_times(folder):
    """walls_compile.txt's lines, "NAME kernels=N compile_s_sum=S compile_s_max=M", by run."""
    path = folder / "walls_compile.txt"
    times = {}
    for line in path.read_text().splitlines() if path.exists() else []:
        name, *fields = line.split()
        times[name] = {k: float(v) for k, v in (f.split("=") for f in fields)}
    return times


def main():
    folder = Path(sys.argv[1])
    rows = []
    for line in (folder / "walls.txt").read_text().splitlines():
        name, rc, wall = line.split()
        if (folder / name).is_dir():  # other timings (a compile probe) have no run folder
            rows.append(run_summary(folder, name, float(wall.split("=")[1])))
    times = compile_times(folder)
    for r in rows:
        r.update({k: v for k, v in times.get(r["run"], {}).items() if k != "kernels"})
    print("| run | wall s | waiting for the compiler s | compiled here (s) | waited for a worker s | from the workers | "
          "kernels' compile s, all / slowest | best ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        compile_s = f"{r['compile_s_sum']:.1f} / {r['compile_s_max']:.1f}" if "compile_s_sum" in r else "–"
        print(f"| {r['run']} | {r['wall_s']:.1f} | {r['waiting_for_compiler_s'] or 0:.1f} | {r['compiled_by_measuring_process']} "
              f"({r['compiled_by_measuring_process_s']}) | {r['waited_for_a_worker_s']} | {r['from_the_workers_cache']} | "
              f"{compile_s} | {r['best_median_ms']:.4f} |")
    if "--json" in sys.argv:
        Path(sys.argv[sys.argv.index("--json") + 1]).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()

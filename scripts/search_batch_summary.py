"""The table of scripts/search_batch_study.sh's runs: per run its wall, the time line's parts (the
GPU's timed samples, the wait for the compiler), where its kernels came from (compiled by the
measuring process, waited for from a worker, from the cache a worker filled) and the best median.

    python3 scripts/search_batch_summary.py STUDY_FOLDER [--json OUT.json]
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
            "waited_for_a_worker_s": round(sum(c.get("waited_ms", 0) for c in compiles) / 1e3, 1),
            "from_the_workers_cache": sum(1 for c in compiles if c.get("cache_hit"))}


def main():
    folder = Path(sys.argv[1])
    rows = []
    for line in (folder / "walls.txt").read_text().splitlines():
        name, rc, wall = line.split()
        rows.append(run_summary(folder, name, float(wall.split("=")[1])))
    print("| run | wall s | waiting for the compiler s | compiled here (s) | waited for a worker s | from the workers | best ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['run']} | {r['wall_s']:.1f} | {r['waiting_for_compiler_s'] or 0:.1f} | {r['compiled_by_measuring_process']} "
              f"({r['compiled_by_measuring_process_s']}) | {r['waited_for_a_worker_s']} | {r['from_the_workers_cache']} | "
              f"{r['best_median_ms']:.4f} |")
    if "--json" in sys.argv:
        Path(sys.argv[sys.argv.index("--json") + 1]).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()

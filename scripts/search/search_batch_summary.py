"""The table of scripts/search/search_batch_study.sh's runs: per run its wall, the time line's parts (the
GPU's timed samples, the wait for the compiler), where its kernels came from (compiled by the
measuring process, waited for from a worker: for the point's own kernel or, before the point was
given, for the first of the next to be compiled; from the cache a worker filled), the best median,
and where walls_compile.txt has them, NVRTC's seconds for all the run's kernels and its slowest.

    python3 scripts/search/search_batch_summary.py STUDY [--walls WALLS.txt] [--json OUT.json]

STUDY is the study's folder, or a folder inside an archive of studies, ARCHIVE.tar.xz:FOLDER (the
committed write-ups' tables come from results/reference/h100/search/evidence.tar.xz). A run's
points come from its .jsonl, or from its CSV where the archive kept only that; its wait for the
compiler from its .json, or from its log's time line. --walls names the runs' walls where the first
studies kept them beside the study's folder, not in it (ARCHIVE.tar.xz:PATH or a file).
"""
import json
import re
import sys
from pathlib import Path

from study_files import compile_times, folders, one_of, run_records, study_files, text_of, walls


def compiler_wait_s(files, name):
    """The time line's wait for the compiler: the record's run.time_use_s, else the log's "time:" line."""
    document = one_of(files, name, ".json")
    if document is not None:
        return json.loads(document).get("run", {}).get("time_use_s", {}).get("compile_s")
    found = re.search(r"waiting for the compiler ([\d.]+) s", files.get(name + ".log", ""))
    return float(found.group(1)) if found else None


def run_summary(files, name, wall_s):
    records = run_records(files, name)
    compiles = [r.get("compile") or {} for r in records]
    ok = [r["timing"]["median_ms"] for r in records if r.get("status") == "ok"]
    return {"run": name, "points": len(records), "wall_s": wall_s, "best_median_ms": min(ok) if ok else None,
            "waiting_for_compiler_s": compiler_wait_s(files, name),
            "compiled_by_measuring_process": sum(1 for c in compiles if c.get("compile_ms", 0) > 0),
            "compiled_by_measuring_process_s": round(sum(c.get("compile_ms", 0) for c in compiles) / 1e3, 1),
            "waited_for_a_worker_s": round(sum(c.get("waited_ms", 0) for c in compiles) / 1e3
                                           + sum((r.get("time_use") or {}).get("compiler_wait_s", 0) for r in records), 1),
            "from_the_workers_cache": sum(1 for c in compiles if c.get("cache_hit"))}


def summaries(files, walls_text):
    """One summary per run of walls.txt that has a run folder (other timings, a compile probe, have none)."""
    runs = folders(files)
    rows = [run_summary(files, name, wall_s) for name, wall_s in walls(walls_text).items() if name in runs]
    times = compile_times(files)
    for r in rows:
        r.update({k: v for k, v in times.get(r["run"], {}).items() if k != "kernels"})
    return rows


def table(rows):
    """The runs' table; the compile times' column only where walls_compile.txt had them (study 12 on)."""
    timed = any("compile_s_sum" in r for r in rows)
    lines = ["| run | wall s | waiting for the compiler s | compiled here (s) | waited for a worker s | from the workers | "
             + ("kernels' compile s, all / slowest | " if timed else "") + "best ms |", "|---|" + "---:|" * (7 if timed else 6)]
    for r in rows:
        compile_s = (f"{r['compile_s_sum']:.1f} / {r['compile_s_max']:.1f} | " if "compile_s_sum" in r else "– | ") if timed else ""
        wait = r['waiting_for_compiler_s']
        lines.append(f"| {r['run']} | {r['wall_s']:.1f} | {'–' if wait is None else f'{wait:.1f}'} | {r['compiled_by_measuring_process']} "
                     f"({r['compiled_by_measuring_process_s']}) | {r['waited_for_a_worker_s']} | {r['from_the_workers_cache']} | "
                     f"{compile_s}{r['best_median_ms']:.4f} |")
    return "\n".join(lines) + "\n"


def option(name):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None


def main():
    files = study_files(sys.argv[1])
    rows = summaries(files, text_of(option("--walls")) if option("--walls") else files["walls.txt"])
    print(table(rows), end="")
    if option("--json"):
        Path(option("--json")).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The tables of results/reference/<gpu>/tuner_kernels.md from what scripts/studies/tuner_kernels_study.sh
left in OUT_DIR:

    python3 scripts/studies/tuner_kernels_summary.py OUT_DIR
    python3 scripts/studies/tuner_kernels_summary.py OUT_DIR --faults REGEX   # only the faults table, of the runs REGEX matches
OUT_DIR may be a folder inside an archive, ARCHIVE.tar.xz:FOLDER (results/reference/<gpu>/tuner_kernels/evidence.tar.xz).

Compile ahead: per run, the wall, the seconds the measuring process compiled itself and waited for
a worker compiling the kernel it needed (the compile blocks' compile_ms and waited_ms: the GPU idle
between points on the compiler's account) and how many kernels came from the workers' cache.
Faults: each sweep's wall against its correct points alone (the issue's bound: 1.5 x that plus 0.3 s
per failed point), how many of its failed points lost the context, and where the rest went (from the
supervisor's trace, OCCBENCH_SUPERVISOR_TRACE=1: each fault from its point's start to the child's
"lost", the lost child's teardown, and the hand-over to the next point's start)."""
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import study_files, walls as walls_of  # noqa: E402  (one reader of a study folder or archive)


def document(files, run):
    """The run's results document; its records from the run's .jsonl where the document was kept without
    them (the evidence archives keep a .json beside its .jsonl without its results)."""
    mine = sorted(name for name in files if name.startswith(run + "/"))
    docs, logs = [n for n in mine if n.endswith(".json")], [n for n in mine if n.endswith(".jsonl")]
    if not docs:
        return None
    doc = json.loads(files[docs[0]])
    if not doc.get("results") and logs:
        doc["results"] = [r for r in map(json.loads, files[logs[0]].splitlines()) if "point_id" in r]
    return doc


def compile_table(files, wall):
    print("| run | points | wall s | compiled by the measuring process s | waited for a worker s | kernels from the workers' cache |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in ("matmul-before", "matmul-after", "matmul-2core-before", "matmul-2core-after", "kt-conv17"):
        doc = document(files, name)
        if not doc:
            continue
        compiles = [r.get("compile") or {} for r in doc["results"]]
        compiled = sum(c.get("compile_ms", 0.0) for c in compiles) / 1000
        waited = sum(c.get("waited_ms", 0.0) for c in compiles) / 1000
        hits = sum(bool(c.get("cache_hit")) for c in compiles)
        print(f"| {name} | {len(compiles)} | {wall.get(name, doc['run']['wall_s']):.1f} | {compiled:.1f} | {waited:.1f} | {hits} |")


def trace(log_text):
    """Per fault: (its point's time to "lost", the lost child's teardown, the hand-over to the next start),
    from the supervisor's trace in a run's log."""
    events = [(float(m.group(1)), m.group(2)) for m in
              (re.match(r"supervisor ([\d.]+) s: (.*)", line) for line in log_text.splitlines()) if m]
    faults, begin, lost, gone = [], None, None, None
    for t, what in events:
        if what.startswith("begin "):
            if lost is not None:
                faults.append((lost - begin, (gone or lost) - lost, t - lost))
                lost = gone = None
            begin = t
        elif what == "lost":
            lost = t
        elif what == "lost child gone":
            gone = t
    if lost is not None:  # the last fault: no point after it
        faults.append((lost - begin, (gone or lost) - lost, None))
    return faults


def faults_table(files, wall, runs=None):
    """The faults table; `runs` a regular expression of the runs it shows (all, with its lead line, where None)."""
    correct = wall.get("faults-correct")
    if correct is None:
        return
    if runs is None:
        print(f"\nfaults: the correct points alone (--variants copy) {correct:.2f} s\n")
    print("| run | failed points | of them lost the context | wall s | bound s | faults' own s | teardown s per fault | hand-over s per fault |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in sorted(n for n in wall if n.startswith("faults-") and n != "faults-correct" and re.fullmatch(runs or ".*", n)):
        doc = document(files, name)
        faults = trace(files.get(name + ".log", ""))
        if not doc and not faults:
            continue
        # The record's failed points, each named; the trace's faults where only the log was kept.
        failed = [r for r in doc["results"] if r["status"] == "failed" and r.get("reason")] if doc else faults
        own = sum(f[0] for f in faults) if faults else sum(r["time_use"]["point_s"] for r in failed)
        def per(i):
            values = [f[i] for f in faults if f[i] is not None]
            return f"{sum(values) / len(values):.3f}" if values else "–"
        bound = 1.5 * correct + 0.3 * len(failed)
        print(f"| {name} | {len(failed)} | {len(faults)} | {wall[name]:.2f} | {bound:.2f} | {own:.2f} | {per(1)} | {per(2)} |")


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--faults"):
        sys.exit(__doc__)
    files = study_files(sys.argv[1])
    wall = walls_of(files.get("walls.tsv", ""))
    if len(sys.argv) == 4:
        faults_table(files, wall, sys.argv[3])
        return
    compile_table(files, wall)
    faults_table(files, wall)


if __name__ == "__main__":
    main()

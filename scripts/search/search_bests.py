#!/usr/bin/env python3
"""The best point of each search of scripts/search/search_batch_study.sh (Kernel Tuner's too), timed
again in one process.

    python3 scripts/search/search_bests.py ids STUDY_FOLDER     # a --filter regular expression of every run's best point
    python3 scripts/search/search_bests.py table STUDY_FOLDER   # per run: its best, its time then and in STUDY_FOLDER/bests
    python3 scripts/search/search_bests.py table STUDY_FOLDER bests_nvcc   # ... and in STUDY_FOLDER/bests_nvcc
    python3 scripts/search/search_bests.py table STUDY_FOLDER --again FOLDER --kernel-tuner FOLDER
        # the bests timed again by a run of another folder; Kernel Tuner's runs (NAME.json) from another

A search's own time of its best is one run's measurement; timed again together in one process
(run --filter ... --out STUDY_FOLDER/bests), the searches' bests compare without run-to-run noise.
"""
import argparse
import json
import re

from study_files import folders, run_records, study_files, walls


def best_of(records):
    ok = [r for r in records if r.get("status") == "ok" and r.get("variant") != "naive"]
    return min(ok, key=lambda r: r["timing"]["median_ms"]) if ok else None


def timed_again(files, folder="bests"):
    """{point: median ms} of the run that timed every search's best again together in one process."""
    return {r["point_id"]: r["timing"]["median_ms"] for r in run_records(files, folder) if r.get("status") == "ok"}


def kernel_tuner_best(text):
    """Kernel Tuner's best (scripts/kernel_tuner/kt_convolution_search.py's line) as occbench's record of its point."""
    line = json.loads(text)
    axes = "/".join(f"{k}={v}" for k, v in line["best"].items())
    return {"point_id": f"convolution/tiled/image_width=4096/image_height=4096/{axes}",
            "timing": {"median_ms": line["best_ms_by_kernel_tuner"]}}


def searches(files, kernel_tuner=None):
    """(run, its best record) of each run walls.txt names, then of each Kernel Tuner run (kt-*.json,
    or each NAME.json of the files `kernel_tuner`, as kt-NAME)."""
    for name in walls(files.get("walls.txt", "")):
        best = best_of(run_records(files, name)) if name in folders(files) else None
        if best:
            yield name, best
    runs = files if kernel_tuner is None else {f"kt-{name}": text for name, text in kernel_tuner.items()}
    for name, text in sorted(runs.items()):
        if "/" not in name and name.startswith("kt-") and name.endswith(".json") and text:  # empty where that strategy failed (its .log says why)
            yield name[:-len(".json")], kernel_tuner_best(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["ids", "table"])
    parser.add_argument("study")
    parser.add_argument("bests", nargs="?", default="bests", help="the study's folder of the run that timed the bests again")
    parser.add_argument("--again", help="that run's folder elsewhere (a folder or ARCHIVE.tar.xz:FOLDER)")
    parser.add_argument("--kernel-tuner", help="a folder of Kernel Tuner's runs, NAME.json each")
    args = parser.parse_args()
    files = study_files(args.study)
    kernel_tuner = study_files(args.kernel_tuner) if args.kernel_tuner else None
    if args.command == "ids":
        ids = sorted({best["point_id"] for _, best in searches(files, kernel_tuner)})
        print("^(" + "|".join(re.escape(i) for i in ids) + ")$")
        return
    again = timed_again(study_files(args.again), ".") if args.again else timed_again(files, args.bests)
    fastest = min(again.values())
    print("| run | its best | its time ms | timed again together ms | fraction of the fastest of them |")
    print("|---|---|---:|---:|---:|")
    for name, best in searches(files, kernel_tuner):
        short = "/".join(best["point_id"].split("/")[4:])
        time = again.get(best["point_id"])
        print(f"| {name} | {short} | {best['timing']['median_ms']:.4f} | {time:.4f} | {fastest / time:.3f} |" if time else
              f"| {name} | {short} | {best['timing']['median_ms']:.4f} | – | – |")


if __name__ == "__main__":
    main()

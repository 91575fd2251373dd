#!/usr/bin/env python3
"""own_kernel/README's table of the broken examples (examples/broken/*.json run under the supervisor),
from each run's log: the failed point and why, whether the run went on in a new process, its tally.

    python3 scripts/studies/broken_runs_table.py FOLDER NAME...   # FOLDER/broken_NAME.log each;
        # FOLDER a folder or ARCHIVE.tar.xz:FOLDER
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import study_files  # noqa: E402  (one reader of a study folder or archive)

FAILED = re.compile(r"^(?:\[\d+/\d+\] |occbench run: )(\S+)(?: \S+=\S+)*:? failed:? (.*)$", re.M)
TALLY = re.compile(r"^(\d+) ok, (\d+) failed, \d+ skipped", re.M)


def reason(text):
    """The failure's first clause, without the source location of a CUDA error."""
    return re.sub(r": cudaStreamSynchronize.*$| \(abs tolerance.*$|; run --watchdog.*$", "", text).rstrip(":")


def main(folder, *names):
    files = study_files(folder)
    print("| config | failed point | why | went on in a new process | ok / failed | exit |\n|---|---|---|---|---|---|")
    for name in names:
        log = files[f"broken_{name}.log"]
        point, why = FAILED.search(log).groups()
        ok, failed = TALLY.search(log).groups()
        resumed = "yes" if "continuing in a new process" in log else "no"
        code = 1 if "point(s) failed" in log else 0
        print(f"| {name} | `{point.split('/')[1]}` | {reason(why)} | {resumed} | {ok} / {failed} | {code} |")


if __name__ == "__main__":
    main(*sys.argv[1:])

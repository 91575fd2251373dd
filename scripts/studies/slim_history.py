#!/usr/bin/env python3
"""Records that a later run replaced, kept from git history small enough to commit, for the tables
that compare a re-run with the run before it (scripts/studies/rerun_table.py):

    python3 scripts/studies/slim_history.py OUT.tar.xz COMMIT:PATH [COMMIT:PATH ...]
    python3 scripts/studies/slim_history.py OUT.tar.xz RECORD.json   # a record of this run, as NAME.json

Each record is written as COMMIT/NAME.json in OUT.tar.xz, with its run's stamps and time and, of each point,
its id, status, GPU (a run on several) and the timing's median and total to six digits (what the
comparison reads; scripts/studies/multi_gpu_table.py --searches reads a shared search's). Run it in a clone with
the history (not a shallow one); the archive, not the history, is what the tables read.
"""
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[2]
RUN = ("started_utc", "finished_utc", "wall_s", "timed_s", "timed_fraction", "time_use_s")  # the run's time


def slim(record):
    points = [{"point_id": r["point_id"], "status": r["status"],
               "timing": {k: float(f"{r['timing'][k]:.6g}") for k in ("median_ms", "total_ms") if k in r.get("timing", {})},
               **({"device": r["device"]} if "device" in r else {})}
              for r in record["results"]]
    run = {k: record["run"][k] for k in RUN if k in record["run"]}
    return {"run": run, "results": points}


def record_at(spec):
    """(name in the archive, slim record) of COMMIT:PATH from git history, or of a record's file."""
    if Path(spec).is_file():
        return Path(spec).name, slim(json.loads(Path(spec).read_text()))
    commit, _, path = spec.partition(":")
    shown = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=ROOT, capture_output=True, check=True)
    return f"{commit}/{PurePosixPath(path).name}", slim(json.loads(shown.stdout))


def main(out, specs):
    with tarfile.open(out, "w:xz") as tar:
        for name, record in map(record_at, specs):
            data = json.dumps(record, separators=(",", ":")).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])

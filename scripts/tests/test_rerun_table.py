"""scripts/studies/rerun_table.py: a re-run against the run before it, from an old record (without its
time use: whole seconds between its stamps, the sum of its samples) and the new run's printed log
(its medians in their printed units, its time line), host-timed points left out of the medians."""
import json
import subprocess
import sys

from test_occbench_config import ROOT

SCRIPT = ROOT / "scripts" / "studies" / "rerun_table.py"

LOG = """Device 0: a GPU
[1/3] fam/host n=4: 10.00 ms ±1.0% (10 samples), verified
[2/3] fam/fast n=4 b=8: 50.00 us ±0.2% (85 samples), 19 GB/s, verified
[3/3] fam/slow n=4 b=8: 2.000 ms ±0.2% (85 samples), 19 GB/s, verified
time: 1.5 s of timed samples in 3.0 s of wall time (50%); sampling loops 2.0 s, problems 0.5 s, verification 0.25 s
"""


def old_record():
    points = [("fam/host/n=4", 20.0), ("fam/fast/n=4/b=8", 0.1), ("fam/slow/n=4/b=8", 2.5), ("fam/gone/n=4", 1.0)]
    return {"run": {"started_utc": "2026-01-01T00:00:00Z", "finished_utc": "2026-01-01T00:00:04Z"},
            "results": [{"point_id": p, "status": "ok", "timing": {"median_ms": ms, "total_ms": 500.0}} for p, ms in points]}


def made(tmp_path, columns, row):
    (tmp_path / "old.json").write_text(json.dumps(old_record()))
    (tmp_path / "new.log").write_text(LOG)
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"t": {"columns": columns, "skip_variants": ["host"], "rows": [row]}}))
    return subprocess.run([sys.executable, SCRIPT, spec, "--table", "t"], capture_output=True, text=True)


def test_the_old_record_against_the_new_log(tmp_path):
    out = made(tmp_path, ["points", "ratios", "wall", "timed", "share", "use"],
               {"label": "fam", "old": str(tmp_path / "old.json"), "new": str(tmp_path / "new.log")})
    assert out.returncode == 0, out.stderr
    # 0.05 / 0.1 and 2.0 / 2.5; 4 s between the stamps, 4 points of 0.5 s of samples; the log's time line
    assert out.stdout.splitlines()[2] == "| fam | 2 | 0.500 / 0.650 / 0.800 | 4 → 3.0 | 2.0 → 1.5 | 50% → 50% | 0.5 / 0.2 / 2.0 |"


def test_a_row_without_an_earlier_run_or_without_comparable_medians(tmp_path):
    alone = made(tmp_path, ["ratios", "wall", "share"], {"label": "fam", "new": str(tmp_path / "new.log")})
    assert alone.stdout.splitlines()[2] == "| fam | – | – → 3.0 | – → 50% |", alone.stderr
    apart = made(tmp_path, ["ratios"], {"label": "fam", "old": str(tmp_path / "old.json"),
                                        "new": str(tmp_path / "new.log"), "medians": False})
    assert apart.stdout.splitlines()[2] == "| fam | – |", apart.stderr

"""The search write-up's scripts on the committed H100 SYRK records: slim_record.py keeps what replay
reads, and search_resume_check.py (with the real binary) accepts a GPU search whose every point is
what a resumed search proposes, and refuses one whose points were swapped."""
import json
import subprocess
import sys

import pytest

from test_occbench_config import ROOT, occbench_binary

SCRIPTS = ROOT / "scripts"
LIVE = ROOT / "results" / "reference" / "h100" / "search" / "syrk" / "live-local-1.jsonl"


def test_a_slimmed_record_keeps_the_header_and_what_replay_reads(tmp_path):
    full = tmp_path / "full.jsonl"
    record = {"point_id": "f/v/n=1", "family": "f", "variant": "v", "params": {"n": 1}, "status": "ok", "reason": "",
              "timing": {"median_ms": 2.5, "noise": 0.01, "samples": 9, "sampling_wall_s": 3.0},
              "occupancy": {"theoretical": 0.5, "active_blocks_per_sm": 4, "limiters": ["warps"]},
              "resources": {"registers_per_thread": 32, "static_smem_bytes": 0, "from": "ptxas"},
              "launch": {"grid": [8, 1, 1], "block": [256, 1, 1], "dynamic_smem_bytes": 0},
              "compile": {"options": ["-DX=1"]}, "time_use": {"point_s": 0.1}, "metrics": {"gflops": 1.0}}
    full.write_text(json.dumps({"occbench_jsonl": 1, "config": {"name": "x"}}) + "\n" + json.dumps(record) + "\n")
    slim = tmp_path / "slim.jsonl"
    done = subprocess.run([sys.executable, SCRIPTS / "slim_record.py", full, slim], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    header, point = [json.loads(line) for line in slim.read_text().splitlines()]
    assert header == {"occbench_jsonl": 1, "config": {"name": "x"}}
    assert point["timing"] == {"median_ms": 2.5, "noise": 0.01, "samples": 9}
    assert point["occupancy"] == {"theoretical": 0.5, "active_blocks_per_sm": 4}
    assert point["launch"]["grid"] == [8, 1, 1] and point["time_use"] == {"point_s": 0.1}
    assert "compile" not in point and point["resources"] == {"registers_per_thread": 32, "static_smem_bytes": 0}


def resume_check(tmp_path, lines):
    occbench = occbench_binary()
    if not occbench:
        pytest.skip("no occbench binary (set OCCBENCH or build into build/)")
    run = tmp_path / "run.jsonl"
    run.write_text("".join(lines))
    return subprocess.run([sys.executable, SCRIPTS / "search_resume_check.py", run, "--occbench", occbench],
                          capture_output=True, text=True, cwd=ROOT)


def test_the_first_points_of_a_gpu_search_are_what_a_resumed_search_proposes(tmp_path):
    lines = LIVE.read_text().splitlines(keepends=True)[:9]
    done = resume_check(tmp_path, lines)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "8 of 8 points are what a search resumed from the records before them proposes" in done.stdout


def test_a_search_whose_points_were_swapped_is_refused(tmp_path):
    lines = LIVE.read_text().splitlines(keepends=True)[:9]
    lines[3], lines[4] = lines[4], lines[3]
    done = resume_check(tmp_path, lines)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "7 of 8 points" in done.stdout  # the first of the two comes too early; the second is then the next one again

"""multi_gpu_table.py --searches: a search shared by two GPUs, from its record slimmed by
slim_history.py (each point's GPU kept) and the device script's walls: each GPU's share, the
distinct points (a point measured twice shows), the best of the verified points."""
import json
import subprocess
import sys

from test_occbench_config import ROOT

SLIM = ROOT / "scripts" / "studies" / "slim_history.py"
TABLE = ROOT / "scripts" / "studies" / "multi_gpu_table.py"


def test_a_shared_search_row(tmp_path):
    points = [("k/a/x=1", 0, "ok", 2.0), ("k/a/x=2", 1, "ok", 0.5), ("k/a/x=3", 1, "ok", 1.0),
              ("k/a/x=3", 0, "ok", 1.0), ("k/a/x=4", 1, "failed", 0.1)]
    record = {"run": {"wall_s": 3.0, "command": "occbench run ..."},
              "results": [{"point_id": p, "device": d, "status": s, "timing": {"median_ms": ms, "total_ms": 9.0},
                           "metrics": {"gflops": 1.0}} for p, d, s, ms in points]}
    (tmp_path / "r.json").write_text(json.dumps(record))
    (tmp_path / "searches").mkdir()
    (tmp_path / "logs").mkdir()
    subprocess.run([sys.executable, SLIM, tmp_path / "searches" / "conv.tar.xz", tmp_path / "r.json"], check=True)
    (tmp_path / "logs" / "search_walls.txt").write_text("conv 9.25 0\n")
    out = subprocess.run([sys.executable, TABLE, "--searches", str(tmp_path), "conv=convolution, local, seed 1"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[2] == "| convolution, local, seed 1 | 5 | 2 / 3 | 4 | 0.5 | 9.2 |"

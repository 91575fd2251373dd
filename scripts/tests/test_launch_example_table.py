"""scripts/studies/launch_example_table.py: the loop's table says when the tuned output differs from
the defaults' or from the untuned run's, never only when they agree."""
import json
import sys

from test_occbench_config import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "studies"))
from launch_example_table import table  # noqa: E402


def write(folder, identical, hash_now):
    record = lambda: {"params": {"BLOCK_X": 16, "BLOCK_Y": 16, "TILE_X": 1, "TILE_Y": 1}, "from": "defaults", "reason": "", "median_ms": 1.0}
    tuned = dict(record(), params={"BLOCK_X": 32, "BLOCK_Y": 8, "TILE_X": 4, "TILE_Y": 4}, **{"from": "this_gpu"},
                 reason="app/matmul: this GPU's (H) best at this size (x)", median_ms=0.25)
    size = {"n": 1024, "checked_elements": 256, "wrong_elements": 0, "c_fnv1a64": hash_now, "identical_to_defaults": identical,
            "max_abs_difference_to_defaults": 0.0 if identical else 0.5, "app": tuned, "defaults": record(), "speedup_over_defaults": 4.0}
    (folder / "tuned.json").write_text(json.dumps({"gpu": "H", "compute_capability": "9.0", "sizes": [size]}))
    (folder / "untuned.json").write_text(json.dumps({"sizes": [{"n": 1024, "c_fnv1a64": "aa"}]}))


def test_agreement_and_difference_are_both_said(tmp_path):
    write(tmp_path, True, "aa")
    row = table(tmp_path).splitlines()[4]
    assert "| 1024 | 32x8 threads, 4x4 each | this GPU's best at this size | 1.000 | 0.250 | 4.00x | every bit | same hash |" == row
    write(tmp_path, False, "bb")
    row = table(tmp_path).splitlines()[4]
    assert "no (max diff 0.5)" in row and "DIFFERENT" in row

"""kt_examples_summary.py --table's rows (docs/python.md's tables of Kernel Tuner's examples are its
output, checked against their committed summaries by test_generated_tables.py)."""
import sys

from test_occbench_config import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "kernel_tuner"))
from kt_examples_summary import table  # noqa: E402


def test_the_table_names_each_tools_best_and_both_walls():
    rows = [{"example": "k", "occbench_wall_s": 1.0, "kernel_tuner_wall_s": 2.5, "occbench_points": 3, "occbench_failed": 1,
             "kernel_tuner_points": 3, "occbench_best": {"b": 64}, "occbench_best_ms": 0.5,
             "kernel_tuner_best": {"b": 128}, "kernel_tuner_best_ms_by_kernel_tuner": 0.75, "kernel_tuner_best_ms_by_occbench": 0.6}]
    assert table(rows, "H200").splitlines()[-1] == \
        "| k.py (H200) | 3 (1 failed) / 3 | b=64: 0.5000 ms | b=128: 0.7500 ms | 0.6000 ms | 1.0 s / 2.5 s |"

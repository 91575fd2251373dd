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


def test_the_examples_named_each_on_its_gpu_and_a_scripts_tunings_told_apart():
    def row(example, results):
        return {"example": example, "results": results, "occbench_wall_s": 1.0, "kernel_tuner_wall_s": 2.0,
                "occbench_best": {"b": 1}, "occbench_best_ms": 0.5, "kernel_tuner_best": {"b": 2},
                "kernel_tuner_best_ms_by_kernel_tuner": 0.75}
    rows = [row("a", "a.json"), row("r", "r-1.json"), row("skipped", "s.json"), row("r", "(printed best, tuning 2)")]
    made = [line.split(" | ")[0] for line in table(rows, "H100", ["a=H200", "r"]).splitlines()[2:]]
    assert made == ["| a.py (H200)", "| r.py (H100), r-1.json", "| r.py (H100), printed best, tuning 2"]
    assert len(table(rows, "H100").splitlines()) == 2 + 4, "no example named: every row"

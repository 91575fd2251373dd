"""Every table in docs/python.md made by kt_examples_summary.py --table is what the script makes of
its committed summary: a number typed by hand, or data changed without the table, fails here."""
import re
import sys

from test_occbench_config import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "kernel_tuner"))
from kt_examples_summary import table  # noqa: E402
import json  # noqa: E402

MARKED = re.compile(r"<!-- table: (\S+) -->\n(.*?)<!-- end of table -->", re.S)


def test_each_marked_table_is_the_scripts_output_of_its_committed_data():
    text = (ROOT / "docs" / "python.md").read_text()
    found = MARKED.findall(text)
    assert found, "docs/python.md marks no table made by kt_examples_summary.py"
    for source, committed in found:
        rows = json.loads((ROOT / source).read_text())
        assert committed == table(rows, "H200"), f"docs/python.md's table of {source} differs from the script's"


def test_the_table_names_each_tools_best_and_both_walls():
    rows = [{"example": "k", "occbench_wall_s": 1.0, "kernel_tuner_wall_s": 2.5, "occbench_points": 3, "occbench_failed": 1,
             "kernel_tuner_points": 3, "occbench_best": {"b": 64}, "occbench_best_ms": 0.5,
             "kernel_tuner_best": {"b": 128}, "kernel_tuner_best_ms_by_kernel_tuner": 0.75, "kernel_tuner_best_ms_by_occbench": 0.6}]
    assert table(rows, "H200").splitlines()[-1] == \
        "| k.py (H200) | 3 (1 failed) / 3 | b=64: 0.5000 ms | b=128: 0.7500 ms | 0.6000 ms | 1.0 s / 2.5 s |"

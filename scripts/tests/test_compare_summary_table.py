"""compare_summary_table.py: device_reference.sh's saved summary of `occbench compare`, configs grouped:
every point counted once (compared, not compared, in one record only), the verdicts summed."""
import sys

from test_occbench_config import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "studies"))
from compare_summary_table import table  # noqa: E402

SUMMARY = """| config | exit | reference | occbench compare |
| --- | --- | --- | --- |
| a | 0 | r/a.json | 31 compared: 2 faster, 1 slower, 28 unchanged, 0 unknown; 1 only in BASE, 0 only in NEW, 9 not compared. |
| b | 0 | r/b.json | 4 compared: 0 faster, 0 slower, 4 unchanged, 0 unknown; 0 only in BASE, 2 only in NEW, 0 not compared. |
"""


def test_groups_sum_their_configs_and_every_point_counts_once():
    assert table(SUMMARY, ["both=a,b", "b=b"]).splitlines()[2:] == ["| both | 47 | 32 | 2 | 1 | 9 |", "| b | 6 | 4 | 0 | 0 | 0 |"]
    assert table(SUMMARY, []).splitlines()[2] == "| a | 41 | 28 | 2 | 1 | 9 |", "no groups: a row per config"

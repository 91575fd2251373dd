"""tuner_kernels_summary.py reads where each fault's time went from the supervisor's trace
(OCCBENCH_SUPERVISOR_TRACE=1), on the committed H100 log and on a made-up one."""
import subprocess
import sys

import pytest

from test_occbench_config import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "studies"))
from tuner_kernels_summary import trace  # noqa: E402

STUDY = ROOT / "results" / "reference" / "h100" / "tuner_kernels" / "study"


def test_each_fault_is_its_point_then_the_teardown_then_the_hand_over(tmp_path):
    log = tmp_path / "faults.log"
    log.write_text("supervisor 0.0000 s: child started\n"
                   "supervisor 1.0000 s: begin a\n"
                   "supervisor 1.5000 s: end a\n"
                   "supervisor 1.5000 s: begin b\n"
                   "supervisor 2.0000 s: lost\n"
                   "supervisor 2.0000 s: standby released\n"
                   "supervisor 2.1000 s: lost child gone\n"
                   "supervisor 2.3000 s: begin c\n"
                   "supervisor 3.0000 s: lost\n"
                   "supervisor 3.0800 s: lost child gone\n")
    faults = trace(log.read_text())
    assert len(faults) == 2
    assert faults[0] == pytest.approx((0.5, 0.1, 0.3))
    assert faults[1][:2] == pytest.approx((0.7, 0.08))
    assert faults[1][2] is None, "no point after the last fault"


def test_the_committed_one_thread_runs_have_twelve_faults_each_within_the_bound():
    faults = trace((STUDY / "faults-onethread-1.log").read_text())
    assert len(faults) == 12
    assert all(f[0] < 0.3 for f in faults), [f[0] for f in faults]
    table = subprocess.run([sys.executable, str(ROOT / "scripts" / "studies" / "tuner_kernels_summary.py"), str(STUDY)],
                           capture_output=True, text=True, check=True).stdout
    row = next(line for line in table.splitlines() if line.startswith("| faults-onethread-1 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "12" and cells[2] == "12", "failed points, of them lost the context"
    assert float(cells[3]) < float(cells[4]), "the sweep's wall against the issue's bound"

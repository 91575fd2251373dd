"""ncu_agreement.py's table: a run prints each point's row from the CSV row it writes, so the
write-ups' tables are made again from the committed CSVs (--table-of) and cannot drift from them."""
import csv
import subprocess
import sys

from test_occbench_config import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "ncu"))
from ncu_agreement import config_table  # noqa: E402

SCRIPT = ROOT / "scripts" / "ncu" / "ncu_agreement.py"


def test_the_table_a_run_prints_is_the_one_its_csv_gives_again(tmp_path, capsys):
    medians = {"k/a=1": {"read": 25.5}, "k/a=2": {"read": 10.0}, "k/a=3": {"read": 5.0}}
    record = {"timing": {"samples": 1}}
    ncu = {"k/a=1": [99.0, 25.0], "k/a=2": [99.0, 8.5]}  # a warm-up launch, then one sample
    rows = config_table("k", ["read"], (medians, {"k/a=1": "cupti_range_profiler"}, {"k/a=1": 27.25}),
                        [(ncu, {p: record for p in medians})])
    printed = capsys.readouterr().out
    assert "| k/a=1 | 25.50 | 25.00 | +0.50 µs (+2.0%) | yes | 27.25 | cupti_range_profiler |" in printed
    assert "| k/a=2 | 10.00 | 8.50 | +1.50 µs (+17.6%) | NO | – | – |" in printed, "below 20 us the target is 1 us"
    assert "| k/a=3 | no ncu kernels named by this point |" in printed
    with open(tmp_path / "ncu_agreement.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    again = subprocess.run([sys.executable, SCRIPT, "--table-of", tmp_path / "ncu_agreement.csv", "k"], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    measured = [line for line in printed.splitlines() if line.startswith("|") and "no ncu kernels" not in line]
    assert again.stdout.splitlines() == measured


def test_a_csv_written_before_the_timing_columns_gives_the_table_its_run_printed(tmp_path):
    """A CSV without event_median_us and timing_source (runs before they were recorded) gives the
    five columns those runs printed, not two columns of dashes."""
    (tmp_path / "old.csv").write_text("config,point_id,method,occbench_median_us,ncu_median_us,diff_us,diff_pct,within_target\n"
                                      "k,k/a=1,read,25.5,25.0,0.5,2.0,True\n")
    again = subprocess.run([sys.executable, SCRIPT, "--table-of", tmp_path / "old.csv", "k"], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines() == ["| point | occbench (read) µs | ncu µs | diff (read) | within target |",
                                         "|---|---|---|---|---|",
                                         "| k/a=1 | 25.50 | 25.00 | +0.50 µs (+2.0%) | yes |"]

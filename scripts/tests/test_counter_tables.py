"""ncu_counters_agreement.py's tables of earlier CSVs (the counters write-ups' tables are their output):
per counter over --runs 2 CSVs, one counter per config or per group of configs, and the instrumented
shared-memory counts per config."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ncu"))
from ncu_counters_agreement import groups_table, instrumented_table, per_config_table, runs_table  # noqa: E402


def row(config, point, counter, within=True, of_runs=True, spread=1.0, exact=False, diff=0.5):
    return {"config": config, "point_id": point, "counter": counter, "diff_pct": diff, "within_2pct": within,
            "within_2pct_of_runs": of_runs, "ncu_spread_pct": spread, "exact": exact}


ROWS = [row("a", "a/1", "dram", within=False, of_runs=True), row("a", "a/2", "dram", within=False, of_runs=False, spread=5.0),
        row("b", "b/1", "dram"), row("a", "a/1", "l1", exact=True), row("a", "a/2", "l1", exact=True), row("b", "b/1", "l1", exact=True)]


def test_per_counter_the_first_runs_ncus_runs_and_ncus_own_spread():
    made = runs_table(ROWS).splitlines()[2:]
    assert made == ["| dram | 3 | 1 | 2 | 2 | 2 |", "| l1 | 3 | 3 (all exact) | 3 | 3 | 3 |"]
    assert runs_table(ROWS, {"dram": "DRAM reads"}).splitlines()[2:] == ["| DRAM reads | 2 |"]


def test_one_counter_per_config_and_per_group():
    assert per_config_table(ROWS, "dram", {"b": "B", "a": "A"}).splitlines()[2:] == ["| B | 1 of 1 |", "| A | 1 of 2 |"]
    made = groups_table(ROWS, "dram", ["all=*", "not b=-b", "a after its first=a/after-first"]).splitlines()[2:]
    assert made == ["| all | 3 | 1 | 2 | 2 |", "| not b | 2 | 0 | 1 | 1 |", "| a after its first | 1 | 0 | 0 | 0 |"]


def test_instrumented_points_exact_in_all_three_fields_or_not_instrumented():
    fields = ("shared_load_wavefronts", "shared_store_wavefronts", "shared_bank_conflicts")
    rows = [row("t", "t/1", f, exact=True) for f in fields] + [row("t", "t/2", f, exact=f != fields[2]) for f in fields]
    rows += [row("s", "s/1", f, diff="") for f in fields]  # occbench recorded no value: over the kernel-time limit
    made = instrumented_table(rows, {"t": "T"}).splitlines()[2:]
    assert made == ["| T | 2 | 1 | 0 |", "| s | 0 | – | 1 |", "| **all** | **2** | **1** | **1** |"]

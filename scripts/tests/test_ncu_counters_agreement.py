"""scripts/ncu/ncu_counters_agreement.py end to end, with stand-ins for occbench and ncu that count
known values: the columns, the repeat runs and the run-to-run verdicts."""
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "ncu"
sys.path.insert(0, str(SCRIPTS))
from ncu_counters_agreement import range_gap, spread  # noqa: E402

# Per run (1st, 2nd): occbench's and ncu's DRAM reads and bank conflicts of the one point.
FAKE_OCCBENCH = r'''#!/usr/bin/env python3
import json, os, sys
from pathlib import Path
args = sys.argv[1:]
out = Path(args[args.index("--out") + 1]); out.mkdir(parents=True, exist_ok=True)
if "--counters" not in args:
    sys.exit(0)
state = Path(os.environ["FAKE_STATE"]) / "occbench_runs"
k = int(state.read_text()) if state.exists() else 0
state.write_text(str(k + 1))
reads, conflicts = [(1000.0, 100.0), (1010.0, 100.0)][k]
doc = {"units": {"counters.dram_read_bytes": "bytes (CUPTI dram__bytes_read.sum)",
                 "counters.shared_load_bank_conflicts_with_arbitration": "count (CUPTI l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum)"},
       "results": [{"point_id": "fam/v/n=1", "counters": {"status": "measured", "kernels": 1,
                    "dram_read_bytes": reads, "shared_load_bank_conflicts_with_arbitration": conflicts}},
                   {"point_id": "fam/host/n=1", "counters": {"status": "unavailable", "reason": "host variant"}}]}
(out / "r.json").write_text(json.dumps(doc))
'''
FAKE_NCU = r'''#!/usr/bin/env python3
import os, sys
from pathlib import Path
args = sys.argv[1:]
log = Path(args[args.index("--log-file") + 1])
state = Path(os.environ["FAKE_STATE"]) / "ncu_runs"
k = int(state.read_text()) if state.exists() else 0
state.write_text(str(k + 1))
reads, conflicts = [(1100.0, 80.0), (1030.0, 125.0)][k]
rows = ['"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"',
        f'"0","fam/v/n=1/kernel","dram__bytes_read.sum","byte","{reads}"',
        f'"0","fam/v/n=1/kernel","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","","{conflicts}"']
log.write_text("==PROF== preamble\n" + "\n".join(rows) + "\n")
out = Path(args[args.index("--out") + 1]); out.mkdir(parents=True, exist_ok=True)
'''


def executable(path, text):
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_two_runs_of_each_tool_give_ncus_spread_and_the_range_verdict(tmp_path):
    occbench = executable(tmp_path / "occbench", FAKE_OCCBENCH)
    ncu = executable(tmp_path / "ncu", FAKE_NCU)
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({"name": "tiny", "family": "fam", "sizes": {"n": [4, 1]}, "measurement": {}}))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(SCRIPTS / "ncu_counters_agreement.py"), "--occbench", str(occbench),
                           "--ncu", str(ncu), "--out", str(out), "--runs", "2", str(config)],
                          env=dict(os.environ, FAKE_STATE=str(tmp_path)), capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((out / "tiny-small.json").read_text())["sizes"] == {"n": [1]}
    rows = {(r["point_id"], r["counter"]): r for r in csv.DictReader(open(out / "ncu_counters_agreement.csv"))}
    reads = rows[("fam/v/n=1", "dram_read_bytes")]
    # First runs: 1000 against 1100 (-9.09%); ncu moves 1100 -> 1030 (6.6% of its median 1065);
    # occbench's 1000..1010 ends 20 short of ncu's 1030..1100: 1.9% of 1065, within 2%.
    assert float(reads["diff_pct"]) == -9.0909 and reads["within_2pct"] == "False"
    assert reads["ncu_runs"] == "1100;1030" and reads["occbench_runs"] == "1000;1010"
    assert abs(float(reads["ncu_spread_pct"]) - 100 * 70 / 1065) < 1e-3
    assert reads["within_2pct_of_runs"] == "True"
    conflicts = rows[("fam/v/n=1", "shared_load_bank_conflicts_with_arbitration")]
    # 100 twice against 80 then 125: occbench lies between ncu's two counts.
    assert conflicts["within_2pct"] == "False" and conflicts["within_2pct_of_runs"] == "True"
    assert rows[("fam/host/n=1", "*")]["note"].startswith("occbench counters unavailable")
    # The summary table has the two new columns: 1 point, 0 within 2%, 1 within ncu's runs, 0 ncu self-consistent.
    assert "| dram_read_bytes | 1 | 0 | 0 | 1 | 0 |" in done.stdout


def test_instrumented_counts_map_to_ncus_names_and_its_source_counters_section(tmp_path):
    from ncu_counters_agreement import counter_metrics
    units = {"counters.dram_read_bytes": "bytes (CUPTI dram__bytes_read.sum)",
             "counters.shared_load_wavefronts": "wavefronts of LDS, instrumented: CUPTI SASS smsp__sass_x "
                                                "(ncu smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum)",
             "counters.shared_bank_conflicts": "instrumented (ncu SourceCounters L1 Wavefronts Shared Excessive)",
             "counters.shared_load_bank_conflicts": "instrumented: CUPTI SASS a - b",  # no ncu figure: not compared
             "counters.added_s": "s"}
    assert counter_metrics(units) == {"dram_read_bytes": "dram__bytes_read.sum",
                                      "shared_load_wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                                      "shared_bank_conflicts": "L1 Wavefronts Shared Excessive"}


def test_range_gap_and_spread():
    assert range_gap([100], [100]) == 0.0
    assert range_gap([95, 105], [101, 120]) == 0.0  # overlapping ranges
    assert abs(range_gap([90], [100, 110]) - 10 / 105) < 1e-12  # below: the gap to ncu's lowest
    assert abs(range_gap([130], [100, 110]) - 20 / 105) < 1e-12  # above: the gap to ncu's highest
    assert range_gap([1], [0, 0]) == float("inf")
    assert spread([5.0]) == 0.0 and spread([0.0, 0.0]) == 0.0
    assert abs(spread([90, 100, 110]) - 0.2) < 1e-12
    assert spread([0.0, 0.0, 3.0]) == float("inf")


def test_timing_within_the_target_of_ncus_runs():
    from ncu_agreement import within_target_of_runs
    assert within_target_of_runs(382.9, [368.35, 381.0])  # inside ncu's range
    assert within_target_of_runs(390.0, [368.35, 385.0])  # 1.3% over ncu's highest
    assert not within_target_of_runs(395.0, [368.35, 385.0])  # 2.6% over it
    assert within_target_of_runs(15.5, [16.4, 16.6]) and not within_target_of_runs(15.3, [16.4, 16.6])  # 1 us below 20 us


def test_only_restricts_the_counters_and_refuses_an_unknown_one(tmp_path):
    occbench = executable(tmp_path / "occbench", FAKE_OCCBENCH)
    ncu = executable(tmp_path / "ncu", FAKE_NCU)
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({"name": "tiny", "family": "fam", "sizes": {"n": [1]}, "measurement": {}}))
    base = [sys.executable, str(SCRIPTS / "ncu_counters_agreement.py"), "--occbench", str(occbench), "--ncu", str(ncu),
            "--out", str(tmp_path / "out")]
    env = dict(os.environ, FAKE_STATE=str(tmp_path))
    done = subprocess.run(base + ["--only", "dram_read_bytes", str(config)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    counters = {r["counter"] for r in csv.DictReader(open(tmp_path / "out" / "ncu_counters_agreement.csv"))}
    assert counters == {"dram_read_bytes", "*"}
    assert "--metrics dram__bytes_read.sum " in done.stdout  # ncu asked for that metric alone
    (tmp_path / "occbench_runs").unlink()
    done = subprocess.run(base + ["--only", "dram_reads", str(config)], env=env, capture_output=True, text=True)
    assert done.returncode == 1 and "--only: no counter dram_reads" in done.stderr


def test_the_small_config_flushes_before_each_kernel_as_ncu_unless_asked_not_to():
    from ncu_counters_agreement import smallest
    spec = {"sizes": {"n": [4096, 1024]}, "measurement": {"mode": "batch", "seed": 7}}
    small = smallest(spec, all_sizes=False)
    assert small["sizes"] == {"n": [1024]}
    assert small["measurement"]["counters_l2_flush"] == "per_kernel"
    assert small["measurement"]["mode"] == "cold" and small["measurement"]["seed"] == 7
    assert smallest(spec, False, "per_launch")["measurement"]["counters_l2_flush"] == "per_launch"
    assert spec["measurement"] == {"mode": "batch", "seed": 7}  # the config itself untouched


# An ncu that reports what it was asked for and keeps each call's arguments.
FAKE_NCU_CALLS = r'''#!/usr/bin/env python3
import json, os, sys
from pathlib import Path
args = sys.argv[1:]
with open(Path(os.environ["FAKE_STATE"]) / "ncu_calls", "a") as calls:
    calls.write(json.dumps(args) + "\n")
asked = args[args.index("--metrics") + 1].split(",") if "--metrics" in args else []
if "SourceCounters" in args:
    asked.append("L1 Wavefronts Shared Excessive")
values = {"dram__bytes_read.sum": 1000.0, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 64.0,
          "L1 Wavefronts Shared Excessive": 62.0}
rows = ['"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"']
rows += [f'"0","fam/v/n=1/kernel","{m}","","{values[m]}"' for m in asked]
Path(args[args.index("--log-file") + 1]).write_text("\n".join(rows) + "\n")
'''
FAKE_OCCBENCH_INSTRUMENTED = r'''#!/usr/bin/env python3
import json, sys
from pathlib import Path
args = sys.argv[1:]
out = Path(args[args.index("--out") + 1]); out.mkdir(parents=True, exist_ok=True)
if "--counters" not in args:
    sys.exit(0)
doc = {"units": {"counters.dram_read_bytes": "bytes (CUPTI dram__bytes_read.sum)",
                 "counters.shared_load_wavefronts": "instrumented (ncu smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum)",
                 "counters.shared_bank_conflicts": "instrumented (ncu SourceCounters L1 Wavefronts Shared Excessive)"},
       "results": [{"point_id": "fam/v/n=1", "counters": {"status": "measured", "kernels": 1, "dram_read_bytes": 1000.0,
                                                          "shared_load_wavefronts": 64.0, "shared_bank_conflicts": 62.0}}]}
(out / "r.json").write_text(json.dumps(doc))
'''


def test_hardware_counters_and_instrumented_counts_come_from_two_ncu_runs(tmp_path):
    occbench = executable(tmp_path / "occbench", FAKE_OCCBENCH_INSTRUMENTED)
    ncu = executable(tmp_path / "ncu", FAKE_NCU_CALLS)
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({"name": "tiny", "family": "fam", "sizes": {"n": [1]}, "measurement": {}}))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(SCRIPTS / "ncu_counters_agreement.py"), "--occbench", str(occbench),
                           "--ncu", str(ncu), "--out", str(out), str(config)],
                          env=dict(os.environ, FAKE_STATE=str(tmp_path)), capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    calls = [json.loads(line) for line in (tmp_path / "ncu_calls").read_text().splitlines()]
    assert len(calls) == 2
    hardware, instrumented = calls
    assert hardware[hardware.index("--metrics") + 1] == "dram__bytes_read.sum" and "--section" not in hardware
    assert instrumented[instrumented.index("--metrics") + 1] == "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
    assert instrumented[instrumented.index("--section") + 1] == "SourceCounters"
    rows = {r["counter"]: r for r in csv.DictReader(open(out / "ncu_counters_agreement.csv"))}
    assert {c: rows[c]["exact"] for c in rows} == {"dram_read_bytes": "True", "shared_load_wavefronts": "True",
                                                   "shared_bank_conflicts": "True"}


def test_summarize_prints_the_columns_of_the_repeats_only_for_a_csv_of_several_runs(tmp_path):
    """--summarize of an earlier CSV: one run of each tool gives the single-run table (as those runs
    printed it); a CSV of --runs N adds the columns of ncu's runs."""
    head = "config,point_id,counter,metric,occbench,ncu,diff_pct,within_2pct,exact,occbench_runs,ncu_runs,ncu_spread_pct,within_2pct_of_runs,note\n"
    one = head + "c,fam/v/n=1,dram_read_bytes,m,1000,1030,-2.91,False,False,1000,1030,0,False,\n"
    two = head + "c,fam/v/n=1,dram_read_bytes,m,1000,1030,-2.91,False,False,1000;1010,1030;1015,1.47,True,\n"
    printed = {}
    for name, text in (("one", one), ("two", two)):
        (tmp_path / f"{name}.csv").write_text(text)
        done = subprocess.run([sys.executable, str(SCRIPTS / "ncu_counters_agreement.py"), "--summarize", str(tmp_path / f"{name}.csv")],
                              capture_output=True, text=True, check=True)
        printed[name] = done.stdout
    assert "| counter | points | within 2% | exactly equal | worst point |" in printed["one"]
    assert "| dram_read_bytes | 1 | 0 | 0 | fam/v/n=1 | 1000 | 1030 | -2.91% |" in printed["one"]
    assert "ncu's runs" not in printed["one"]
    assert "| within 2% of ncu's runs | ncu's runs within 2% of each other |" in printed["two"]
    assert "| dram_read_bytes | 1 | 0 | 0 | 1 | 1 | fam/v/n=1 | 1000 | 1030 | -2.91% |" in printed["two"]

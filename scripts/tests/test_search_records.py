"""The search write-up's scripts on the committed H100 SYRK records: slim_record.py keeps what replay
reads, and search_resume_check.py (with the real binary) accepts a GPU search whose every point is
what a resumed search proposes, and refuses one whose points were swapped."""
import json
import subprocess
import sys

import pytest

from test_occbench_config import ROOT, occbench_binary

SCRIPTS = ROOT / "scripts"
LIVE = ROOT / "results" / "reference" / "h100" / "search" / "syrk" / "live-local-1.jsonl"


def test_a_slimmed_record_keeps_the_header_and_what_replay_reads(tmp_path):
    full = tmp_path / "full.jsonl"
    record = {"point_id": "f/v/n=1", "family": "f", "variant": "v", "params": {"n": 1}, "status": "ok", "reason": "",
              "timing": {"median_ms": 2.5, "noise": 0.01, "samples": 9, "sampling_wall_s": 3.0},
              "occupancy": {"theoretical": 0.5, "active_blocks_per_sm": 4, "limiters": ["warps"]},
              "resources": {"registers_per_thread": 32, "static_smem_bytes": 0, "from": "ptxas"},
              "launch": {"grid": [8, 1, 1], "block": [256, 1, 1], "dynamic_smem_bytes": 0},
              "compile": {"options": ["-DX=1"]}, "time_use": {"point_s": 0.1}, "metrics": {"gflops": 1.0}}
    full.write_text(json.dumps({"occbench_jsonl": 1, "config": {"name": "x"}}) + "\n" + json.dumps(record) + "\n")
    slim = tmp_path / "slim.jsonl"
    done = subprocess.run([sys.executable, SCRIPTS / "search" / "slim_record.py", full, slim], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    header, point = [json.loads(line) for line in slim.read_text().splitlines()]
    assert header == {"occbench_jsonl": 1, "config": {"name": "x"}}
    assert point["timing"] == {"median_ms": 2.5, "noise": 0.01, "samples": 9}
    assert point["occupancy"] == {"theoretical": 0.5, "active_blocks_per_sm": 4}
    assert point["launch"]["grid"] == [8, 1, 1] and point["time_use"] == {"point_s": 0.1}
    assert "compile" not in point and point["resources"] == {"registers_per_thread": 32, "static_smem_bytes": 0}


def resume_check(tmp_path, lines):
    occbench = occbench_binary()
    if not occbench:
        pytest.skip("no occbench binary (set OCCBENCH or build into build/)")
    run = tmp_path / "run.jsonl"
    run.write_text("".join(lines))
    return subprocess.run([sys.executable, SCRIPTS / "search" / "search_resume_check.py", run, "--occbench", occbench],
                          capture_output=True, text=True, cwd=ROOT)


def test_the_first_points_of_a_gpu_search_are_what_a_resumed_search_proposes(tmp_path):
    lines = LIVE.read_text().splitlines(keepends=True)[:9]
    done = resume_check(tmp_path, lines)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "8 of 8 points are what a search resumed from the records before them proposes" in done.stdout


def test_a_search_whose_points_were_swapped_is_refused(tmp_path):
    lines = LIVE.read_text().splitlines(keepends=True)[:9]
    lines[3], lines[4] = lines[4], lines[3]
    done = resume_check(tmp_path, lines)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "7 of 8 points" in done.stdout  # the first of the two comes too early; the second is then the next one again


def point(axes, median_ms, variant="tiled"):
    return {"point_id": f"convolution/{variant}/image_width=4096/image_height=4096/{axes}", "variant": variant,
            "status": "ok", "timing": {"median_ms": median_ms}}


def write_run(folder, records):
    folder.mkdir(parents=True)
    lines = [json.dumps({"occbench_jsonl": 1})] + [json.dumps(r) for r in records]
    (folder / "run.jsonl").write_text("\n".join(lines) + "\n")


def test_search_bests_names_each_runs_best_and_compares_them_timed_again_together(tmp_path):
    write_run(tmp_path / "a", [point("x=1", 0.30), point("x=2", 0.20), point("", 0.10, variant="naive")])
    write_run(tmp_path / "b", [point("x=3", 0.25)])
    (tmp_path / "walls.txt").write_text("a rc=0 wall_s=1e-3\nb rc=0 wall_s=2e-3\n")
    (tmp_path / "kt-greedy_ils.json").write_text(json.dumps({"best_ms_by_kernel_tuner": 0.5, "best": {"x": 1}}))
    (tmp_path / "kt-failed.json").write_text("")  # a strategy that failed writes nothing
    script = SCRIPTS / "search" / "search_bests.py"
    ids = subprocess.run([sys.executable, script, "ids", tmp_path], capture_output=True, text=True)
    assert ids.returncode == 0, ids.stderr
    assert ids.stdout.strip() == ("^(convolution/tiled/image_width=4096/image_height=4096/x=1|"
                                  "convolution/tiled/image_width=4096/image_height=4096/x=2|"
                                  "convolution/tiled/image_width=4096/image_height=4096/x=3)$"), "the naive reference is no search's best"
    write_run(tmp_path / "bests", [point("x=1", 0.40), point("x=2", 0.21), point("x=3", 0.28)])
    table = subprocess.run([sys.executable, script, "table", tmp_path], capture_output=True, text=True)
    assert table.returncode == 0, table.stderr
    rows = {line.split("|")[1].strip(): line.split("|")[4:6] for line in table.stdout.splitlines()[2:]}
    assert [float(v) for v in rows["a"]] == [0.21, 1.0]
    assert [float(v) for v in rows["b"]] == [0.28, 0.75]
    assert [float(v) for v in rows["kt-greedy_ils"]] == [0.40, 0.525]
    assert "kt-failed" not in rows


def replay_document(means):
    steps = [{"points": 10, "mean": means[0], "median": means[0]}, {"points": 20, "mean": means[1], "median": means[1]}]
    return {"seeds": 200, "spaces": [{"sizes": "n=1", "points": 1000, "budgets": [10, 20],
                                      "strategies": [{"name": "model", "steps": steps}]}]}


def test_replay_compare_sets_two_replays_side_by_side_by_mean(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(replay_document([0.90, 0.95])))
    (tmp_path / "b.json").write_text(json.dumps(replay_document([0.92, 0.94])))
    done = subprocess.run([sys.executable, SCRIPTS / "search" / "replay_compare.py", tmp_path / "a.json", tmp_path / "b.json"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "| model | 1% | 10 | 0.900 → 0.920 (+0.020) | 0.900 → 0.920 |" in done.stdout
    assert "| model | 2% | 20 | 0.950 → 0.940 (-0.010) | 0.950 → 0.940 |" in done.stdout


def test_the_batch_study_table_counts_every_wait_for_a_worker_and_the_kernels_compile_times(tmp_path):
    run = tmp_path / "random-s1"
    run.mkdir()
    points = [{"point_id": "c/t/a=1", "status": "ok", "timing": {"median_ms": 0.2}, "time_use": {"compiler_wait_s": 1.5},
               "compile": {"cache_hit": True, "waited_ms": 500, "compile_ms": 0}},
              {"point_id": "c/t/a=2", "status": "ok", "timing": {"median_ms": 0.1}, "time_use": {"point_s": 0.1},
               "compile": {"cache_hit": False, "waited_ms": 0, "compile_ms": 2000}}]
    (run / "r.jsonl").write_text("\n".join(json.dumps(line) for line in [{"occbench_jsonl": 1}, *points]) + "\n")
    (run / "r.json").write_text(json.dumps({"run": {"time_use_s": {"compile_s": 4.0}}}))
    (tmp_path / "walls.txt").write_text("random-s1 rc=0 wall_s=9500e-3\ntile8x8 x1 wall_s=5882e-3\n")
    (tmp_path / "walls_compile.txt").write_text("random-s1 kernels=2 compile_s_sum=12.5 compile_s_max=10.0\n")
    done = subprocess.run([sys.executable, SCRIPTS / "search" / "search_batch_summary.py", tmp_path], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    row = done.stdout.splitlines()[2]
    assert row == "| random-s1 | 9.5 | 4.0 | 1 (2.0) | 2.0 | 1 | 12.5 / 10.0 | 0.1000 |", row
    assert "tile8x8" not in done.stdout, "a timing without a run folder is no run"


def test_the_batch_study_table_reads_a_study_inside_an_archive_and_a_run_kept_as_csv_and_log(tmp_path):
    """The committed studies are in an archive that kept some runs as CSV and log alone: such a run's
    row is the one its .jsonl and .json would give (its wait for the compiler from the log's time line)."""
    import tarfile
    study = tmp_path / "study"
    run = study / "random-s1"
    run.mkdir(parents=True)
    (run / "r.csv").write_text("point_id,variant,status,timing_median_ms,compile_compile_ms,compile_waited_ms,compile_cache_hit\n"
                               "c/t/a=1,tiled,ok,0.2,0,500,true\nc/t/a=2,tiled,ok,0.1,2000,0,false\n")
    (study / "random-s1.log").write_text("time: 1.0 s of timed samples in 9.4 s of wall time (11%); waiting for the compiler 4.0 s, the rest 0.1 s\n")
    (tmp_path / "walls.txt").write_text("random-s1 rc=0 wall_s=9500e-3\n")
    with tarfile.open(tmp_path / "ev.tar.xz", "w:xz") as tar:
        tar.add(study, arcname="batches/study")
        tar.add(tmp_path / "walls.txt", arcname="batches/walls.txt")
    script = SCRIPTS / "search" / "search_batch_summary.py"
    done = subprocess.run([sys.executable, script, f"{tmp_path / 'ev.tar.xz'}:batches/study", "--walls", f"{tmp_path / 'ev.tar.xz'}:batches/walls.txt"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[2] == "| random-s1 | 9.5 | 4.0 | 1 (2.0) | 0.5 | 1 | 0.1000 |", done.stdout
    assert "compile s, all / slowest" not in done.stdout, "no walls_compile.txt: no column of compile times"
    (study / "walls.txt").write_text("random-s1 rc=0 wall_s=9500e-3\n")
    from_folder = subprocess.run([sys.executable, script, study], capture_output=True, text=True)
    assert from_folder.stdout == done.stdout, "the same study from its folder and from the archive"


def test_the_compile_model_space_takes_the_measured_times_and_fits_the_rest(tmp_path):
    """compile_model_space.py on study 24's runs: the 760 kernels they compiled take their median
    measured time, the others a fit that grows with the tile as NVRTC's did (1 x 1 against 8 x 8,
    medians)."""
    space = ROOT / "results" / "reference" / "h100" / "search" / "convolution" / "convolution_full.jsonl"
    logs = ROOT / "results" / "reference" / "h100" / "search" / "evidence.tar.xz"
    out = tmp_path / "model.jsonl"
    done = subprocess.run([sys.executable, SCRIPTS / "search" / "compile_model_space.py", space, logs, "--runs", "batches/study22to24_logs_csv/study24/",
                           "--out", out],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "3488 points, 760 with a measured compile time" in done.stdout
    records = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    seconds = {}
    for r in records:
        if "tile_size_x" in r["params"]:
            seconds.setdefault((r["params"]["tile_size_x"], r["params"]["tile_size_y"]), []).append(r["compile"]["nvrtc_ms"] / 1e3)
    assert sum(len(v) for v in seconds.values()) == 3488
    assert min(min(v) for v in seconds.values()) > 0
    median = lambda tile: sorted(seconds[tile])[len(seconds[tile]) // 2]
    assert median((8, 8)) > 10 * median((1, 1))


def test_the_wall_table_takes_the_budget_that_finds_the_most_within_each_wall():
    """A search's modeled wall need not grow with its budget (more walkers go faster): within a wall
    the table takes the fitting budget whose median is highest, and – where none fits."""
    sys.path.insert(0, str(SCRIPTS / "search"))
    from replay_wall_table import table
    summary = {"cores": 16, "seeds": 100, "batch": "the width rule", "strategies": {
        "random": [{"points": 10, "median": 0.80, "wall_s": 4.0}, {"points": 20, "median": 0.85, "wall_s": 8.0}],
        "local": [{"points": 10, "median": 0.90, "wall_s": 6.0}, {"points": 20, "median": 0.97, "wall_s": 5.5}]}}
    rows = table(summary, [5, 7]).splitlines()
    assert rows[-2] == "| 5 s | **0.800** (10) | – |", rows
    assert rows[-1] == "| 7 s | 0.800 (10) | **0.970** (20) |", rows


def test_the_seed_table_lists_each_matching_runs_wall_or_best_fraction_with_the_median(tmp_path):
    for name, ms in (("local-s1", 0.20), ("local-s2", 0.25), ("random-s1", 0.40)):
        write_run(tmp_path / name, [point(name[-1], ms)])
    write_run(tmp_path / "bests", [point("1", 0.21), point("2", 0.30)])
    (tmp_path / "walls.txt").write_text("local-s1 rc=0 wall_s=10e0\nrandom-s1 rc=0 wall_s=3e0\nlocal-s2 rc=0 wall_s=20e0\n")
    spec = {"studies": {"s": str(tmp_path)}, "t": {"header": ["search", "walls", "median", "fractions", "1", "2"], "rows": [
        {"cells": ["local", "{w.list}", "{w.median}", "{f.list} ({f.median})", "{w.each}"],
         "values": {"w": {"study": "s", "runs": "local-s[12]", "of": "wall_s"}, "f": {"study": "s", "runs": "local-s[12]", "of": "fraction"}}}]}}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    done = subprocess.run([sys.executable, SCRIPTS / "search" / "seed_table.py", tmp_path / "spec.json", "t"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "| local | 10.0, 20.0 | 15.0 | 1.000, 0.700 (0.850) | 10.0 | 20.0 |", done.stdout


def test_the_live_table_is_the_same_from_the_study_folder_and_from_files_kept_apart(tmp_path):
    """search_study_summary.py's live table, from OUT_DIR as search_study.sh leaves it and from the
    files one by one as the write-ups keep them (--live-table): the same rows, each search's best
    against the full sweep's optimum and its wall against the full run's."""
    write_run(tmp_path / "full", [point("x=1", 0.10), point("x=2", 0.20)])
    write_run(tmp_path / "live-local-1", [point("x=2", 0.20)])
    (tmp_path / "walls.tsv").write_text("s-full\t10000\ns-live-local-1\t1000\n")
    script = SCRIPTS / "search" / "search_study_summary.py"
    folder = subprocess.run([sys.executable, script, tmp_path], capture_output=True, text=True)
    apart = subprocess.run([sys.executable, script, "--live-table", tmp_path / "walls.tsv", tmp_path / "full" / "run.jsonl",
                            f"local-1={tmp_path / 'live-local-1' / 'run.jsonl'}"], capture_output=True, text=True)
    assert apart.returncode == 0, apart.stderr
    assert apart.stdout.splitlines()[-1] == "| local-1 | 1 | 0.2000 | 0.500 | 1.0 | 0.100 |", apart.stdout
    assert apart.stdout in folder.stdout

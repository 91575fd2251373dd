"""scripts/search/kt_simulation.py without Kernel Tuner: the space it hands both tools is the searched
variant's recorded points, as a record and as Kernel Tuner's cache (each point's median as `time`);
a verdict needs its difference confirmed on fresh seeds; the table says better and worse apart."""
import json
import sys

from test_occbench_config import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "search"))
from kt_simulation import KtTask, budgets_of, fill_store, fresh_only, kt_fractions, read_space, read_store, table, verdict, write_space, write_summary  # noqa: E402

SYRK = ROOT / "results" / "reference" / "h100" / "search" / "syrk" / "syrk_full.jsonl"


def test_the_space_is_the_searched_variants_points_in_both_formats(tmp_path):
    header, points, keys = read_space(SYRK)
    assert len(points) == 2640 and {p["variant"] for p in points} == {"register_tiled"}  # not the naive reference
    assert keys == ["block_tile", "thread_rows", "thread_cols", "k_step", "smem_vector", "padding", "double_buffer", "split_k"]
    record, kt_cache, tune_params = write_space(header, points, keys, tmp_path)
    assert len(record.read_text().splitlines()) == 2641
    cache = json.loads(kt_cache.read_text())
    assert cache["tune_params_keys"] == keys and len(cache["cache"]) == 2640
    p = points[0]
    entry = cache["cache"][",".join(str(p["params"][k]) for k in keys)]
    assert entry["time"] == p["timing"]["median_ms"] and entry["block_tile"] == p["params"]["block_tile"]
    assert tune_params["split_k"] == [1, 2, 4]


def test_a_verdict_needs_the_fresh_seeds_to_agree():
    assert verdict({"better_p": 0.01, "worse_p": 0.9}) == "▲"
    assert verdict({"better_p": 0.01, "worse_p": 0.9, "confirm_better_p": 0.2, "confirm_worse_p": 0.7}) == ""
    assert verdict({"better_p": 0.9, "worse_p": 0.001, "confirm_better_p": 0.9, "confirm_worse_p": 0.01}) == "▼"
    assert verdict({"better_p": 0.3, "worse_p": 0.4}) == ""


def test_a_difference_on_the_fresh_seeds_alone_is_marked_apart():
    assert fresh_only({"better_p": 0.2, "worse_p": 0.8, "confirm_better_p": 0.001, "confirm_worse_p": 0.99}) == "(▲)"
    assert fresh_only({"better_p": 0.9, "worse_p": 0.1, "confirm_better_p": 0.99, "confirm_worse_p": 0.004}) == "(▼)"
    assert fresh_only({"better_p": 0.01, "worse_p": 0.9, "confirm_better_p": 0.01, "confirm_worse_p": 0.9}) == ""  # ▲ already
    assert fresh_only({"better_p": 0.01, "worse_p": 0.9, "confirm_better_p": 0.2, "confirm_worse_p": 0.7}) == ""
    assert fresh_only({"better_p": 0.3, "worse_p": 0.4}) == ""


def test_the_table_marks_better_and_worse_cells(tmp_path):
    space = {"name": "s", "points": 100, "budgets": [1, 10], "occbench": {"1": [0.9, 1.0], "10": [1.0, 1.0]},
             "kernel_tuner": {"a": {"1": [0.5, 0.6], "10": [1.0, 1.0]}, "b": {"1": [1.0, 1.0], "10": [1.0, 1.0]}},
             "tests": {"a": {"1": {"better_p": 0.01, "worse_p": 1, "confirm_better_p": 0.02, "confirm_worse_p": 1},
                             "10": {"better_p": 0.2, "worse_p": 1, "confirm_better_p": 0.01, "confirm_worse_p": 1}},
                       "b": {"1": {"better_p": 1, "worse_p": 0.03, "confirm_better_p": 1, "confirm_worse_p": 0.04},
                             "10": {"better_p": 1, "worse_p": 1}}}}
    summary = {"kernel_tuner": "1.5.0", "occbench_strategy": "local", "seeds": 2, "confirm_seeds": 4, "spaces": [space]}
    write_summary(summary, tmp_path / "s.json")
    text = table(tmp_path / "s.json")
    assert "| a | 0.550 ▲ | 1.000 (▲) |" in text and "| b | 1.000 ▼ | 1.000 |" in text
    assert "better in 1 of 4 strategy-budget cells, worse in 1; on the fresh seeds alone, better in 1 more and worse in 0 more." in text


def test_the_budgets_are_replays():
    assert budgets_of(2640) == [27, 53, 132, 264, 528]  # 5% of 2640 is 132.00000000000003 in doubles, as in replay
    assert budgets_of(3488) == [35, 70, 175, 349, 698]
    assert budgets_of(30) == [1, 2, 3, 6]  # small spaces round several to one


def test_the_store_keeps_each_run_and_a_full_store_runs_nothing(tmp_path):
    store = tmp_path / "runs.jsonl"
    lines = [{"space": "s", "strategy": "pso", "seed": seed, "fractions": {"10": 0.5 + seed / 10, "20": 1.0}} for seed in (0, 1)]
    store.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = read_store(store)
    assert done[("s", "pso", 1)] == {10: 0.6, 20: 1.0}
    assert kt_fractions(done, "s", "pso", [10, 20], range(2)) == {10: [0.5, 0.6], 20: [1.0, 1.0]}
    tasks = [KtTask("s", "cache", [], {}, "pso", [10, 20], seed) for seed in (0, 1)]
    assert fill_store(store, tasks, jobs=1) == done  # nothing left to run: no Kernel Tuner needed, nothing appended
    assert len(store.read_text().splitlines()) == 2
    assert read_store(tmp_path / "none.jsonl") == {}

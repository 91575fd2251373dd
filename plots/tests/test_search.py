"""Tests for plots/search.py: the curves of `occbench replay --out`, from documents made here."""
import json
import sys
from pathlib import Path

PLOTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PLOTS))

import occplot  # noqa: E402
import search  # noqa: E402


def steps(values):
    return [{"points": i + 1, "median": v, "lower_quartile": v - 0.05, "upper_quartile": min(1.0, v + 0.05),
             "worst": v - 0.1, "mean": v, "reached_95": 0.0} for i, v in enumerate(values)]


def replay(spaces=1):
    space = {"sizes": "n=1024", "points": 100, "with_value": 90, "optimum": 1.0, "optimum_point": "f/a/n=1024/b=2",
             "budgets": [1, 2, 5], "strategies": [{"name": "random", "steps": steps([0.2, 0.3, 0.4, 0.5, 0.6])},
                                                  {"name": "local", "steps": steps([0.2, 0.5, 0.8, 0.96, 1.0])}]}
    return {"replay_of": "runs/x.jsonl", "objective": "timing.median_ms:min", "seeds": 50, "device": "NVIDIA H100",
            "spaces": [space] * spaces}


def test_one_line_per_strategy_with_its_median_and_the_95_percent_mark():
    [(slug, fig)] = search.search_figures(replay())
    assert slug == "search"
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["random", "local"]
    local = [line for line in ax.get_lines() if line.get_label() == "local"][0]
    assert list(local.get_ydata()) == [0.2, 0.5, 0.8, 0.96, 1.0]
    assert any("95% of the optimum" in t.get_text() for t in ax.texts)
    assert "of 100" in ax.get_xlabel()
    assert "timing.median_ms:min" in ax.get_ylabel()


def test_a_figure_per_space_and_files_written(tmp_path):
    assert [slug for slug, _ in search.search_figures(replay(2))] == ["search_1", "search_2"]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(replay()))
    assert search.main([str(path), "--formats", "png"]) == 0
    assert (tmp_path / "r_search.png").stat().st_size > 0


def test_a_file_that_is_not_a_replay_exits_2(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"results": []}))
    assert search.main([str(path)]) == 2
    path.write_text("{not json")
    assert search.main([str(path)]) == 2
    assert "expected the JSON of occbench replay --out" in capsys.readouterr().err


def search_run(strategy="model"):
    rows = []
    for i, (variant, median, status) in enumerate([("a", 3.0, "ok"), ("b", 2.0, "ok"), ("a", None, "failed"), ("b", 2.5, "ok"),
                                                    ("a", 1.5, "ok")]):
        rows.append({"point_id": f"f/{variant}/n=1/t={i}", "family": "f", "variant": variant, "status": status,
                     "params": {"n": 1, "t": i}, "timing": {"median_ms": median} if median else {}})
    return {"schema_version": 1, "device": {"name": "GPU"},
            "run": {"kind": "run", "strategy": {"name": strategy, "max_points": 10, "seed": 4, "objective": "timing.median_ms"}},
            "config": {"name": "s", "family": "f", "variants": ["a", "b"], "sizes": {"n": [1]}, "axes": {"t": [0, 1, 2, 3, 4]}},
            "results": rows}


def test_a_live_search_draws_each_point_in_order_and_the_best_so_far():
    figures = dict(occplot.figures_for(search_run(), ["search"]))
    assert list(figures) == ["search_progress"]
    ax = figures["search_progress"].axes[0]
    best = [line for line in ax.get_lines() if line.get_label() == "best so far"][0]
    assert list(best.get_ydata()) == [3.0, 2.0, 2.0, 2.0, 1.5]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "failed or skipped" in labels and "a" in labels and "b" in labels
    assert "budget of 10" in ax.get_title() and "seed 4" in ax.get_title()


def test_a_sweep_or_a_sample_has_no_search_figure():
    assert occplot.figures_for(search_run("random"), ["search"]) == []
    doc = search_run()
    del doc["run"]["strategy"]
    assert occplot.figures_for(doc, ["search"]) == []

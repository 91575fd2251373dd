"""Tests for plots/energy.py: the time-versus-energy front and the energy-against-clock figure of
results of `occbench run --energy`, from documents made here (no GPU, no files)."""
import sys
from pathlib import Path

PLOTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PLOTS))

import energy  # noqa: E402
import occplot  # noqa: E402


def record(variant, n, median_ms, joules, clock=None, observed=None, block=256):
    params = {"n": n, "block_size": block}
    row = {"point_id": f"f/{variant}/n={n}/block_size={block}", "family": "f", "variant": variant, "status": "ok",
           "params": params, "timing": {"median_ms": median_ms}, "metrics": {"achieved_bandwidth_gbps": 1.0},
           "energy": {"status": "ok", "joules_per_launch": joules}}
    if clock is not None:
        params["sm_clock_mhz"] = clock
        row["point_id"] += f"/sm_clock_mhz={clock}"
        row["sm_clock"] = {"asked_mhz": clock, "observed_sm_mhz": observed}
    return row


def doc(results, axes):
    return {"schema_version": 1, "device": {"name": "GPU"}, "run": {"kind": "run"},
            "config": {"family": "f", "variants": ["a", "b"], "sizes": {"n": [1]}, "axes": axes}, "results": results}


def test_front_names_the_fastest_and_least_energy_points_and_draws_the_pareto_front():
    rows = [record("a", 1, 1.0, 0.50, block=128), record("a", 1, 1.2, 0.40), record("b", 1, 1.5, 0.45),
            record("b", 1, 2.0, 0.30, block=512)]
    assert [r["timing"]["median_ms"] for r in energy.pareto_front(rows)] == [1.0, 1.2, 2.0]
    figures = dict(occplot.figures_for(doc(rows, {"block_size": [128, 256, 512]}), ["energy"]))
    assert list(figures) == ["energy_front"]
    ax = figures["energy_front"].axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("fastest\na block_size=128") for t in texts), texts
    assert any(t.startswith("least energy\nb block_size=512") for t in texts), texts
    assert "Pareto front" in [t.get_text() for t in ax.get_legend().get_texts()]
    assert ax.get_ylabel().startswith("energy per launch (J")
    title = figures["energy_front"]._suptitle.get_text()
    assert "40.0% less energy, +100.0% time" in title
    assert "at the power limit" not in [t.get_text() for t in ax.get_legend().get_texts()]


def test_points_read_at_the_power_limit_are_ringed():
    rows = [record("a", 1, 1.0, 0.50), record("b", 1, 1.5, 0.45)]
    rows[0]["energy"]["at_power_limit"] = True
    ax = dict(occplot.figures_for(doc(rows, {"block_size": [256]}), ["energy"]))["energy_front"].axes[0]
    assert "at the power limit" in [t.get_text() for t in ax.get_legend().get_texts()]
    rings = [c for c in ax.collections if c.get_label() == "at the power limit"]
    assert len(rings) == 1 and [tuple(o) for o in rings[0].get_offsets()] == [(1.0, 0.5)]


def test_clock_figure_puts_the_measured_clock_on_x_and_stars_the_least_energy_clock():
    rows = [record("a", 1, 1.0, 0.40, clock=0, observed=1980), record("a", 1, 1.0, 0.40, clock=1980, observed=1980),
            record("a", 1, 1.1, 0.30, clock=1245, observed=1260), record("a", 1, 2.0, 0.35, clock=495, observed=495)]
    figures = dict(occplot.figures_for(doc(rows, {"block_size": [256], "sm_clock_mhz": [0, 1980, 1245, 495]}), ["energy"]))
    assert "energy_clock" in figures
    ax = figures["energy_clock"].axes[0]
    line = ax.get_lines()[0]
    assert list(line.get_xdata()) == [495, 1260, 1980]  # the locked points, by measured clock
    stars = [c for c in ax.collections if c.get_offsets().shape[0] == 1 and tuple(c.get_offsets()[0]) == (1260, 0.30)]
    assert stars, "the least-energy clock is starred"


def test_a_run_without_energy_draws_no_energy_figure():
    rows = [record("a", 1, 1.0, 0.5)]
    del rows[0]["energy"]
    assert occplot.figures_for(doc(rows, {"block_size": [256]}), ["energy"]) == []

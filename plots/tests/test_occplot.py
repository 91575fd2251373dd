"""Tests for plots/occplot.py: figures from the fixtures and from any committed reference results.

Run with a Python that has matplotlib:  python3 -m pytest plots/tests -q
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

PLOTS = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
REFERENCE = PLOTS.parent / "results" / "reference" / "h100"
sys.path.insert(0, str(PLOTS))
sys.path.insert(0, str(FIXTURES))

import make_fixtures  # noqa: E402
import occplot  # noqa: E402

ADJ_RUN = FIXTURES / "adjacent_difference_run.json"
ADJ_PLAN = FIXTURES / "adjacent_difference_plan.json"
COV_RUN = FIXTURES / "covariance_run.json"
DEVICE = "NVIDIA H100 80GB HBM3"


def figures(path, kinds=occplot.KINDS):
    return dict(occplot.figures_for(occplot.load_results(path), kinds))


def legend_labels(ax):
    legend = ax.get_legend()
    return [t.get_text() for t in legend.get_texts()] if legend else []


def bar_labels(ax):
    """{(variant, group index): label text} from the bars and the labels bar_label put on them."""
    labels = {}
    for container in ax.containers:
        for bar in container.patches:
            x = bar.get_x() + bar.get_width() / 2
            for text in ax.texts:
                if abs(text.xy[0] - x) < 1e-9 and abs(text.xy[1] - bar.get_height()) < 1e-9:
                    labels[(container.get_label(), round(x))] = text.get_text()
    return labels


# ------------------------------------------------------------------------------- fixtures sanity

def test_fixtures_match_their_generator():
    expected = {"adjacent_difference_run.json": make_fixtures.adjacent_difference("run"),
                "adjacent_difference_plan.json": make_fixtures.adjacent_difference("plan"),
                "covariance_run.json": make_fixtures.covariance()}
    for name, doc in expected.items():
        assert json.loads((FIXTURES / name).read_text()) == doc, (
            f"{name} is stale: run python3 plots/tests/fixtures/make_fixtures.py")


# --------------------------------------------------------------------------------- command line

@pytest.mark.parametrize("path, slugs", [
    (ADJ_RUN, ["sweep_n16Mi", "sweep_n256Mi", "compare", "roofline", "occupancy_block_size"]),
    (COV_RUN, ["sweep", "compare", "roofline", "occupancy_chunk_size", "occupancy_block_size",
               "occupancy_block_tile_thread_tile"]),
    (ADJ_PLAN, ["occupancy_block_size"]),
])
def test_cli_writes_png_and_svg_for_each_figure(tmp_path, capsys, path, slugs):
    assert occplot.main([str(path), "--out", str(tmp_path)]) == 0
    expected = {f"{path.stem}_{slug}.{fmt}" for slug in slugs for fmt in ("png", "svg")}
    assert {p.name for p in tmp_path.iterdir()} == expected
    for name in expected:
        data = (tmp_path / name).read_bytes()
        assert len(data) > 5000
        assert data.startswith(b"\x89PNG") if name.endswith(".png") else b"<svg" in data[:2000]
    assert f"wrote {tmp_path / sorted(expected)[0]}" in capsys.readouterr().out


def test_cli_kinds_and_formats_limit_the_output(tmp_path):
    args = [str(COV_RUN), str(ADJ_RUN), "--out", str(tmp_path), "--kinds", "roofline",
            "--formats", "png"]
    assert occplot.main(args) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "adjacent_difference_run_roofline.png", "covariance_run_roofline.png"]


def test_cli_default_out_is_beside_the_results(tmp_path):
    copy = tmp_path / "run.json"
    copy.write_text(COV_RUN.read_text())
    assert occplot.main([str(copy), "--kinds", "compare", "--formats", "svg"]) == 0
    assert (tmp_path / "run_compare.svg").is_file()


def test_plan_output_says_only_the_occupancy_map_is_drawn(tmp_path, capsys):
    assert occplot.main([str(ADJ_PLAN), "--out", str(tmp_path)]) == 0
    assert "no timed points (run kind 'plan')" in capsys.readouterr().out


def test_left_out_points_are_counted_on_console_and_in_titles(tmp_path, capsys):
    assert occplot.main([str(COV_RUN), "--out", str(tmp_path), "--formats", "png"]) == 0
    note = "1 of 19 points not ok, left out of the timing plots (1 failed)"
    assert note in capsys.readouterr().out
    for slug in ("sweep", "compare", "roofline"):
        assert note in figures(COV_RUN)[slug]._suptitle.get_text().replace("\n", " ")


def test_sparse_results_with_nulls_still_plot(tmp_path, capsys):
    """No device, no config, null blocks: draw what the data allows and say what is missing."""
    doc = {"schema_version": 1, "results": [
        {"variant": "a", "params": {"bs": 32}, "status": "ok", "timing": {"median_ms": 1.0}},
        {"variant": "a", "params": {"bs": 64}, "status": "ok",
         "timing": {"median_ms": 2.0, "min_ms": None, "max_ms": None}},
        {"variant": "b", "params": {}, "status": "ok", "timing": {"median_ms": 3.0},
         "work": None, "metrics": None, "occupancy": None},
        {"variant": "c", "params": {"bs": 32}, "status": "skipped", "timing": None},
    ]}
    path = write(tmp_path, "sparse.json", doc)
    assert occplot.main([str(path), "--out", str(tmp_path), "--formats", "png"]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.png")) == ["sparse_compare.png",
                                                               "sparse_sweep.png"]
    out = capsys.readouterr().out
    assert "no roofline" in out and "no occupancy map" in out
    # Without config.baseline, occbench compares against the first variant: so do the labels.
    ax_time = dict(occplot.figures_for(doc))["compare"].axes[0]
    assert ax_time.get_title() == "time; label: speedup vs a"
    assert bar_labels(ax_time)[("b", 0)] == "3× slower"  # 3 ms against a's best, 1 ms


def test_sizes_left_to_defaults_are_told_apart_from_variant_axes():
    """config echoes the input: no 'sizes' when they were defaulted, axes maybe per variant."""
    doc = occplot.load_results(COV_RUN)
    del doc["config"]["sizes"]
    doc["config"]["variant_axes"] = {"register_tiled": {"block_tile": [64, 128],
                                                        "thread_tile": [4, 8]}}
    for key in ("block_tile", "thread_tile"):
        del doc["config"]["axes"][key]
    study = occplot.Study(doc, "covariance", doc["results"])
    assert sorted(study.size_keys) == ["m", "n"]


# ------------------------------------------------------------------------------------ bad input

def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


@pytest.mark.parametrize("name, content, expected", [
    ("missing.json", None, "cannot read the file"),
    ("garbage.json", "{not json", "not valid JSON"),
    ("empty.json", "", "not valid JSON"),
    ("array.json", [1, 2], "expected a JSON object"),
    ("v2.json", {"schema_version": 2, "results": [{}]}, "schema_version is 2, expected 1"),
    ("noversion.json", {"results": []}, "schema_version is null, expected 1"),
    ("noresults.json", {"schema_version": 1, "results": []}, "no results"),
    ("badrow.json", {"schema_version": 1, "results": [{"variant": "x"}]}, "results[0]"),
])
def test_bad_files_exit_2_with_one_clear_line(tmp_path, capsys, name, content, expected):
    path = tmp_path / name if content is None else write(tmp_path, name, content)
    assert occplot.main([str(path), str(COV_RUN), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"occplot: error: {path}: ") and expected in err[0]
    assert not (tmp_path / "out").exists(), "nothing is drawn when any input is bad"


def test_script_exit_status_is_2_for_wrong_schema(tmp_path):
    path = write(tmp_path, "old.json", {"schema_version": 0, "results": [{}]})
    done = subprocess.run([sys.executable, str(PLOTS / "occplot.py"), str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert f"{path}: schema_version is 0, expected 1" in done.stderr


# -------------------------------------------------------------------------------- sweep figures

@pytest.mark.parametrize("module", ["matplotlib", "numpy"])
def test_without_a_plotting_module_it_says_what_to_install_and_exits_2(tmp_path, module):
    # Blocks the import as a machine without the module would fail it, then runs the script.
    blocked = (f"import runpy, sys; sys.modules[{module!r}] = None; "
               f"sys.argv = ['occplot.py', {str(tmp_path / 'r.json')!r}]; "
               f"runpy.run_path({str(PLOTS / 'occplot.py')!r}, run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"'{module}' is missing" in done.stderr
    assert "pip install -r" in done.stderr and "requirements.txt" in done.stderr
    assert "apt install python3-matplotlib" in done.stderr


def test_covariance_sweep_shows_time_cgma_and_occupancy_against_chunk_size():
    fig = figures(COV_RUN, ["sweep"])["sweep"]
    ax_time, ax_cgma, ax_occ = fig.axes
    assert ax_occ.get_xlabel() == "chunk_size"
    assert ax_time.get_ylabel().startswith("median time (ms)")
    assert ax_cgma.get_ylabel().startswith("CGMA") and "FLOP/B" in ax_cgma.get_ylabel()
    assert ax_occ.get_ylabel() == "occupancy"
    assert ax_time.get_yscale() == "log", "0.74 s down to 19 ms spans decades"
    labels = legend_labels(ax_time)
    assert {"shared_static", "shared_dynamic"} <= set(labels)
    # Variants without chunk_size are reference lines, named with their best time.
    assert "cublas_syrk: 3 ms (no chunk_size)" in labels
    assert "naive: 280 ms (no chunk_size)" in labels
    # The CGMA panel carries the work model: chunk_size / 4 FLOP/B for the shared kernels.
    x, y = ax_cgma.lines[0].get_data()
    assert list(x) == [2, 4, 8, 16, 32] and list(y) == [c / 4 for c in x]
    # Occupancy at chunk 2: half the warps, 1/16 of the threads (the thread-utilization line).
    occupancy, utilization = ax_occ.lines[0].get_ydata(), ax_occ.lines[1].get_ydata()
    assert occupancy[0] == 0.5 and utilization[0] == 4 * 32 / 2048
    assert DEVICE in fig._suptitle.get_text() and "m = 20,000, n = 2,475" in fig._suptitle.get_text()


def test_adjacent_sweep_has_one_figure_per_size_and_keeps_the_host_off_scale():
    figs = figures(ADJ_RUN, ["sweep"])
    assert sorted(figs) == ["sweep_n16Mi", "sweep_n256Mi"]
    ax_time, _, ax_occ = figs["sweep_n16Mi"].axes
    assert ax_occ.get_xlabel() == "block_size"
    assert [t.get_text() for t in ax_occ.get_xticklabels()] == ["128", "256", "512", "1024"]
    labels = legend_labels(ax_time)
    assert labels[1:] == ["global", "shared_static", "shared_dynamic", "vectorized"]
    assert labels[0] == "host: 31.8 ms (no block_size), off scale"
    # The host loop is 500x slower: drawing it would flatten the GPU variants into one line.
    assert ax_time.get_yscale() == "linear" and ax_time.get_ylim()[1] < 1
    assert "n = 16,777,216" in figs["sweep_n16Mi"]._suptitle.get_text()


# ------------------------------------------------------------------------------ comparison bars

def test_speedup_label_wording():
    assert occplot.speedup_label(2.3, 1.0) == "2.3× faster"
    assert occplot.speedup_label(1.0, 1.15) == "1.15× slower"
    assert occplot.speedup_label(1.0, 1.001) == "≈ baseline"
    assert occplot.speedup_label(0.063, 31.81) == "505× slower"


def test_adjacent_comparison_labels_each_bar_with_its_speedup_vs_global():
    fig = figures(ADJ_RUN, ["compare"])["compare"]
    ax_time, ax_bandwidth = fig.axes
    labels = bar_labels(ax_time)
    # Fixture times at n = 16 M, block 256: global 0.063, shared_static 0.072, shared_dynamic
    # 0.0725, vectorized 0.0548, host 31.81 ms.
    assert {variant: text for (variant, group), text in labels.items() if group == 0} == {
        "global": "baseline", "host": "505× slower", "shared_static": "1.14× slower",
        "shared_dynamic": "1.15× slower", "vectorized": "1.15× faster"}
    assert [t.get_text() for t in ax_time.get_xticklabels()] == ["n=16Mi", "n=256Mi"]
    assert "speedup vs global" in ax_time.get_title()
    assert ax_time.get_ylabel().startswith("best median time (ms)")
    assert ax_time.get_yscale() == "log"
    # Memory-bound: the right panel is bandwidth, with the measured copy bandwidth as a line.
    assert ax_bandwidth.get_ylabel() == "achieved DRAM bandwidth (GB/s)"
    copy_line = [line for line in ax_bandwidth.lines if "copy bandwidth" in line.get_label()]
    assert len(copy_line) == 1 and copy_line[0].get_ydata()[0] == 3000.1
    assert bar_labels(ax_bandwidth)[("global", 0)] == "71%"
    assert legend_labels(ax_bandwidth) == [
        "global", "host", "shared_static", "shared_dynamic", "vectorized",
        "measured copy bandwidth 3,000 GB/s"]


def test_covariance_comparison_is_against_cublas_and_in_gflops():
    ax_time, ax_rate = figures(COV_RUN, ["compare"])["compare"].axes
    labels = bar_labels(ax_time)
    assert labels[("cublas_syrk", 0)] == "baseline"
    assert labels[("register_tiled", 0)] == "1.73× slower"  # 5.2 ms vs 3.0 ms
    assert labels[("shared_static", 0)] == "6.33× slower"  # best chunk: 19 ms
    assert ax_rate.get_ylabel().startswith("achieved GFLOP/s")
    assert any("FP32 peak" in line.get_label() for line in ax_rate.lines)


# ------------------------------------------------------------------------------------- roofline

def test_roofline_ceilings_and_library_line():
    ax = figures(COV_RUN, ["roofline"])["roofline"].axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert "CGMA" in ax.get_xlabel() and ax.get_ylabel() == "achieved GFLOP/s"
    roof = ax.lines[0]
    x, y = roof.get_data()
    assert y[0] == pytest.approx(3000.1 * x[0]) and y[-1] == 66900.0
    labels = legend_labels(ax)
    assert "library ceiling: cublas_syrk 40,854 GFLOP/s" in labels
    assert {"naive", "symmetric", "shared_static", "shared_dynamic", "register_tiled"} <= set(labels)


def test_roofline_falls_back_to_peak_bandwidth_and_leaves_out_host_loops():
    doc = occplot.load_results(ADJ_RUN)
    doc["device"]["measured_bandwidth_gbps"] = None
    fig = dict(occplot.figures_for(doc, ["roofline"]))["roofline"]
    ax = fig.axes[0]
    x, y = ax.lines[0].get_data()
    assert y[0] == pytest.approx(3352.3 * x[0])
    labels = legend_labels(ax)
    assert "host" not in labels and not any("library" in label for label in labels)
    assert "2 timed points without GPU CGMA/GFLOP/s (host loops) not drawn" in \
        fig._suptitle.get_text().replace("\n", " ")


# -------------------------------------------------------------------------------- occupancy map

def cell_texts(ax):
    return {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text()
            for t in ax.texts}


def test_covariance_occupancy_map_names_the_limiter_in_each_cell():
    ax = figures(COV_RUN, ["occupancy"])["occupancy_chunk_size"].axes[0]
    assert ax.get_xlabel() == "chunk_size" and ax.get_ylabel() == "variant"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["shared_static", "shared_dynamic"]
    cells = cell_texts(ax)
    assert cells[(0, 0)] == "0.50\n32 blk\nblocks"  # chunk 2: 4-thread blocks, 32 blocks/SM
    assert cells[(1, 4)] == "1.00\n2 blk\nwarps"  # chunk 32: 1024-thread blocks


def test_lone_variant_with_two_axes_gets_a_two_axis_map():
    fig = figures(COV_RUN, ["occupancy"])["occupancy_block_tile_thread_tile"]
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("block_tile", "thread_tile")
    assert "register_tiled" in fig._suptitle.get_text()
    assert cell_texts(ax)[(1, 0)] == "0.31\n10 blk\nregs"  # the failed point still has occupancy


def test_plan_output_draws_the_occupancy_map_only():
    figs = figures(ADJ_PLAN)
    assert list(figs) == ["occupancy_block_size"]
    ax = figs["occupancy_block_size"].axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "global", "shared_static", "shared_dynamic", "vectorized"]
    assert len(ax.texts) == 16


# -------------------------------------------------------------------- committed reference results

@pytest.mark.parametrize("path", sorted(REFERENCE.glob("*.json")), ids=lambda p: p.name)
def test_reference_results_plot(tmp_path, path):
    doc = occplot.load_results(path)
    figs = occplot.figures_for(doc)
    assert figs, f"{path.name}: no figure drawn"
    for slug, fig in figs:
        assert (doc["device"].get("name") or "unknown device") in fig._suptitle.get_text()
        for ax in fig.axes:
            if ax.get_label() == "<colorbar>":
                continue
            assert ax.get_ylabel(), f"{slug}: an axis without a y label"
        assert fig.axes[-1 if not slug.startswith("occupancy") else 0].get_xlabel(), slug
    assert occplot.main([str(path), "--out", str(tmp_path)]) == 0
    assert len(list(tmp_path.glob("*.png"))) == len(figs)


# ------------------------------------------------------------------------ hardware counters

def with_counters(doc):
    """The adjacent-difference fixture as if run with --counters: every GPU point measured."""
    doc = json.loads(json.dumps(doc))
    doc["device"].update(measured_l2_bandwidth_gbps=5900.0, measured_smem_bandwidth_gbps=32000.0)
    for row in doc["results"]:
        if (row.get("timing") or {}).get("mode") in (None, "host"):
            row["counters"] = {"status": "unavailable", "reason": "host variant: no kernel to count"}
            continue
        flops = row["work"]["flops"]
        row["counters"] = {"status": "measured", "achieved_occupancy": 0.8 * row["occupancy"]["theoretical"],
                           "intensity_dram_flop_per_byte": flops / 1.4e8,
                           "intensity_l2_flop_per_byte": flops / 2.0e8,
                           "intensity_l1_flop_per_byte": flops / 1.5e8}
    return doc


def test_counters_add_a_hierarchical_roofline_with_a_measured_roof_per_level(tmp_path):
    path = tmp_path / "adjacent_counters.json"
    path.write_text(json.dumps(with_counters(json.loads(ADJ_RUN.read_text()))))
    figs = figures(path)
    assert "hierarchical_roofline" in figs
    ax = figs["hierarchical_roofline"].axes[0]
    labels = legend_labels(ax)
    for roof in ("DRAM roof: copy bandwidth", "L2 roof: L2 read bandwidth 5,900 GB/s",
                 "L1 roof: shared-memory bandwidth (L1 roof) 32,000 GB/s"):
        assert any(label.startswith(roof) for label in labels), labels
    # Each measured point three times, one per level.
    measured = [r for r in json.loads(path.read_text())["results"]
                if (r.get("counters") or {}).get("status") == "measured" and r["metrics"]["gflops"]]
    drawn = sum(len(c.get_offsets()) for c in ax.collections)
    assert drawn == 3 * len(measured)


def test_counters_draw_achieved_beside_theoretical_occupancy(tmp_path):
    path = tmp_path / "adjacent_counters.json"
    path.write_text(json.dumps(with_counters(json.loads(ADJ_RUN.read_text()))))
    figs = figures(path)
    sweep = figs["sweep_n16Mi"]
    assert "achieved (counters)" in legend_labels(sweep.axes[2])
    texts = [t.get_text() for t in figs["occupancy_block_size"].axes[0].texts]
    assert any("ach 0.80" in t for t in texts), texts


def test_without_counters_there_is_no_hierarchical_roofline():
    assert "hierarchical_roofline" not in figures(ADJ_RUN)
    assert "achieved (counters)" not in legend_labels(figures(ADJ_RUN)["sweep_n16Mi"].axes[2])


# ----------------------------------------------------------------------- occupancy sensitivity

def occupancy_doc(with_counters):
    """Two variants swept over occupancy_limit, one of them also without the axis (no curve)."""
    rows = []
    for variant, times in (("global", [4.0, 2.1, 1.03, 1.0]), ("vectorized", [1.3, 1.0, 1.01, 1.0])):
        for blocks, ms in zip((1, 2, 4, 8), times):
            row = {"family": "adjacent_difference", "variant": variant, "status": "ok",
                   "params": {"n": 1024, "block_size": 256, "occupancy_limit": blocks},
                   "occupancy": {"theoretical": blocks / 8, "active_blocks_per_sm": blocks},
                   "timing": {"median_ms": ms},
                   "littles_law": {"predicted_knee_occupancy": 1.0 if variant == "global" else 0.125}}
            if with_counters:
                row["counters"] = {"achieved_occupancy": blocks / 8 * 0.9}
            rows.append(row)
    rows.append({"family": "adjacent_difference", "variant": "global", "status": "ok",
                 "params": {"n": 1024, "block_size": 128}, "occupancy": {"theoretical": 1.0},
                 "timing": {"median_ms": 1.0}})
    rows.append({"family": "adjacent_difference", "variant": "global", "status": "ok",  # unforced reference
                 "params": {"n": 1024, "block_size": 256, "occupancy_limit": 0},
                 "occupancy": {"theoretical": 1.0}, "timing": {"median_ms": 0.9}})
    return {"schema_version": 1, "device": {"name": DEVICE}, "results": rows,
            "config": {"family": "adjacent_difference", "sizes": {"n": [1024]}}}


@pytest.mark.parametrize("with_counters", [False, True])
def test_sensitivity_figure_marks_each_curves_knee_and_the_prediction(with_counters):
    figs = dict(occplot.figures_for(occupancy_doc(with_counters), ["sensitivity"]))
    ax = figs["sensitivity"].axes[0]
    labels = legend_labels(ax)
    # global reaches within 5% of its best at 4 blocks (0.5); vectorized at 2 blocks (0.25).
    assert "global n=1024 block_size=256 (knee 0.500)" in labels
    assert "vectorized n=1024 block_size=256 (knee 0.250)" in labels
    assert ("global n=1024 block_size=256, achieved" in labels) == with_counters
    assert "Little's-law predicted knee" in labels
    assert "occupancy_limit 0: unforced, default carveout" in labels
    stars = [line for line in ax.lines if line.get_marker() == "*"]
    assert len(stars) == 1 and stars[0].get_ydata()[0] == pytest.approx(0.9)  # not a point of the curve
    assert sorted(line.get_xdata()[0] for line in ax.lines if line.get_linestyle() == "--") == [0.125, 1.0]
    assert ax.get_xlabel().startswith("occupancy")
    assert "median time" in ax.get_ylabel()


def test_no_sensitivity_figure_without_the_axis():
    assert "sensitivity" not in figures(COV_RUN)

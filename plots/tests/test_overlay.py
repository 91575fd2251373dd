"""Tests for plots/overlay.py (occplot.py --overlay): several files, a series per device."""
import copy
import json
import sys
from pathlib import Path

PLOTS = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(PLOTS))

import occplot  # noqa: E402
import overlay  # noqa: E402

COV_RUN = FIXTURES / "covariance_run.json"


def faster_copy(doc, name, factor, bandwidth):
    """The same points on another GPU: every time times `factor`, its own copy bandwidth."""
    other = copy.deepcopy(doc)
    other["device"]["name"] = name
    other["device"]["measured_bandwidth_gbps"] = bandwidth
    for row in other["results"]:
        for key in ("median_ms", "min_ms", "max_ms", "mean_ms"):
            if (row.get("timing") or {}).get(key):
                row["timing"][key] *= factor
        if (row.get("metrics") or {}).get("achieved_bandwidth_gbps"):
            row["metrics"]["achieved_bandwidth_gbps"] /= factor
    return other


def two_gpus():
    h100 = occplot.load_results(COV_RUN)
    return [(Path("h100.json"), h100), (Path("h200.json"), faster_copy(h100, "NVIDIA H200", 0.8, 4100.0))]


def test_a_series_per_device_and_the_ratio_to_the_first():
    figures = dict(overlay.overlay_figures(two_gpus()))
    assert {"sweep", "compare"} <= set(figures)
    ax_time, ax_ratio = figures["sweep"].axes[:2]
    labels = [t.get_text() for t in ax_time.get_legend().get_texts()]
    assert "H100 80GB HBM3" in labels and "H200" in labels
    ratios = [y for line in ax_ratio.get_lines() for y in line.get_ydata() if y != 1.0]
    assert ratios and all(abs(r - 0.8) < 1e-9 for r in ratios)


def test_comparison_labels_speedup_and_draws_each_copy_bandwidth():
    fig = dict(overlay.overlay_figures(two_gpus()))["compare"]
    ax_time, ax_bw = fig.axes[:2]
    texts = {t.get_text() for t in ax_time.texts}
    assert texts == {"1.25×"}  # 1 / 0.8 on every bar of the second device
    roofs = sorted(line.get_ydata()[0] for line in ax_bw.get_lines())
    assert roofs[-1] == 4100.0 and len(roofs) == 2


def test_a_multi_device_document_is_one_source_per_gpu_model():
    doc = occplot.load_results(COV_RUN)
    doc["devices"] = [dict(doc["device"], ordinal=0), dict(doc["device"], ordinal=1)]
    for i, row in enumerate(doc["results"]):
        row["device"] = i % 2
    # Two GPUs of one model measured disjoint points of one sweep: one series.
    sources = overlay.sources_from([(Path("both.json"), doc)])
    assert [s.label for s in sources] == ["H100 80GB HBM3 ×2"]
    assert len(sources[0].rows) == len(doc["results"])
    # Two models (a merge of shards run on different GPUs): one series each.
    doc["devices"][1] = dict(doc["device"], name="NVIDIA H200", ordinal=1)
    sources = overlay.sources_from([(Path("both.json"), doc)])
    assert [s.label for s in sources] == ["H100 80GB HBM3 #0", "H200 #1"]
    assert sum(len(s.rows) for s in sources) == len(doc["results"])


def test_same_device_in_two_files_is_told_apart_by_file():
    doc = occplot.load_results(COV_RUN)
    sources = overlay.sources_from([(Path("a.json"), doc), (Path("b.json"), doc)])
    assert [s.label for s in sources] == ["H100 80GB HBM3 (a)", "H100 80GB HBM3 (b)"]


def test_cli_overlay_writes_named_figures_and_one_file_says_why_not(tmp_path, capsys):
    h100, h200 = two_gpus()
    paths = []
    for path, doc in (h100, h200):
        paths.append(tmp_path / path)
        paths[-1].write_text(json.dumps(doc))
    assert occplot.main(["--overlay", *map(str, paths), "--out", str(tmp_path / "o"), "--formats", "png",
                         "--name", "gpus"]) == 0
    assert (tmp_path / "o" / "gpus_sweep.png").exists() and (tmp_path / "o" / "gpus_compare.png").exists()
    assert occplot.main(["--overlay", str(paths[0]), "--out", str(tmp_path / "p"), "--formats", "png"]) == 0
    assert "nothing to overlay" in capsys.readouterr().out

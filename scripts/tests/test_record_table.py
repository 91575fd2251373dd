"""scripts/studies/record_table.py: a write-up's table of a record, each cell a template over its
points; a point the template names and the record lacks stops the table, never a blank cell."""
import json
import subprocess
import sys

from test_occbench_config import ROOT

SCRIPT = ROOT / "scripts" / "studies" / "record_table.py"


def record(tmp_path):
    points = [{"variant": v, "params": {"b": b}, "status": "ok", "timing": {"median_ms": ms}}
              for v, b, ms in [("g", 1, 2.0), ("g", 2, 1.0), ("s", 1, 3.0), ("s", 2, 0.5)]]
    points.append({"variant": "s", "params": {"b": 3}, "status": "failed", "timing": {"median_ms": 0.1}})
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"device": {"measured_bandwidth_gbps": 100.0}, "results": points}))
    return path


def made(tmp_path, table):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"names": {"K": 2}, "t": table}))
    return subprocess.run([sys.executable, SCRIPT, spec, "t"], capture_output=True, text=True)


def test_cells_are_templates_over_the_points_and_rows_may_bring_their_own(tmp_path):
    out = made(tmp_path, {"record": str(record(tmp_path)), "header": ["b", "s / g"], "rows": {"b": [1, 2]},
                          "cells": ["{b}", "{ms('s', b=b) / ms('g', b=b):.2f}"]})
    assert out.stdout == "| b | s / g |\n|---|---|\n| 1 | 1.50 |\n| 2 | 0.50 |\n", out.stderr
    own = made(tmp_path, {"record": str(record(tmp_path)), "header": ["what", "value"],
                          "rows": [{"cells": ["fastest s", "{get(best('s'), 'params.b')}"]}, {"cells": ["K", "{K}"]}]})
    assert own.stdout.splitlines()[2:] == ["| fastest s | 2 |", "| K | 2 |"], own.stderr


def test_a_point_the_record_lacks_or_failed_stops_the_table(tmp_path):
    failed = made(tmp_path, {"record": str(record(tmp_path)), "header": ["x"], "rows": [{}], "cells": ["{ms('s', b=3)}"]})
    assert failed.returncode != 0 and "no ok point of s" in failed.stderr and not failed.stdout
    several = made(tmp_path, {"record": str(record(tmp_path)), "header": ["x"], "rows": [{}], "cells": ["{ms('g')}"]})
    assert several.returncode != 0 and "2 points of g" in several.stderr

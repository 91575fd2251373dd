"""scripts/studies/compare_counters.py on two synthetic records shaped like occbench's."""
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "studies" / "compare_counters.py"


def counters(**changes):
    c = {"status": "measured", "reason": "", "added_s": 0.1, "l1_global_load_bytes": 4096, "l1_global_store_bytes": 4096,
         "shared_load_instructions": 10, "shared_store_instructions": 10, "dram_write_bytes": 1000.0}
    c.update(changes)
    return c


def write(path, points):
    path.write_text(json.dumps({"results": [{"point_id": p, "counters": c} for p, c in points.items()]}))
    return path


def compare(tmp_path, first, second):
    a = write(tmp_path / "a.json", first)
    b = write(tmp_path / "b.json", second)
    return subprocess.run([sys.executable, SCRIPT, a, b], capture_output=True, text=True)


def test_equal_counts_and_a_differing_byte_count_pass_with_the_difference_reported(tmp_path):
    done = compare(tmp_path, {"p": counters()}, {"p": counters(dram_write_bytes=1010.0, added_s=9.0)})
    assert done.returncode == 0, done.stdout
    assert "dram_write_bytes" in done.stdout and "0.990%" in done.stdout
    assert "added_s" not in done.stdout  # the counters' own cost is not a counter


def test_an_exact_count_that_differs_fails(tmp_path):
    done = compare(tmp_path, {"p": counters()}, {"p": counters(shared_load_instructions=11)})
    assert done.returncode == 1
    assert "MISMATCH p: shared_load_instructions 10 != 11" in done.stdout


def test_a_point_without_counters_in_one_record_fails_with_the_reason(tmp_path):
    done = compare(tmp_path, {"p": counters(), "q": counters()},
                   {"p": counters(), "q": {"status": "unavailable", "reason": "CUPTI busy"}})
    assert done.returncode == 1
    assert "q: counters measured / unavailable (CUPTI busy)" in done.stdout

"""scripts/checks/check_tree_size.py: the limits it holds the repository to, on made-up trees."""
import sys

from test_occbench_config import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "checks"))
import check_tree_size  # noqa: E402


def test_a_light_tree_passes():
    found, total = check_tree_size.problems({"a.cpp": 10_000, "results/reference/h200/search/evidence.tar.xz": 5_000_000})
    assert found == [] and total == 5_010_000


def test_a_tree_past_thirty_mb_fails():
    found, _ = check_tree_size.problems({f"x{i}.tar.xz": 900_000 for i in range(40)})
    assert len(found) == 1 and "36.0 MB" in found[0]


def test_a_large_file_outside_an_archive_fails_unless_allowed():
    found, _ = check_tree_size.problems({"results/reference/h100/big.jsonl": 2_000_000, "logs.tar.gz": 2_000_000})
    assert len(found) == 1 and found[0].startswith("results/reference/h100/big.jsonl: 2.0 MB outside an archive")
    allowed = next(iter(check_tree_size.ALLOWED))
    assert check_tree_size.problems({allowed: 3_000_000})[0] == []

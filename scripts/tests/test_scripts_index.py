"""scripts/README.md lists every script of scripts/ (one line each, by purpose)."""
import re
import subprocess

from test_occbench_config import ROOT


def test_every_script_is_in_the_index():
    names = subprocess.run(["git", "ls-files", "scripts"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    scripts = {n[len("scripts/"):] for n in names if not n.startswith(("scripts/tests/", "scripts/ncu/")) and not n.endswith(".md")}
    listed = set(re.findall(r"`([\w/.-]+\.(?:py|sh|sbatch))`", (ROOT / "scripts" / "README.md").read_text()))
    assert scripts - listed == set(), "scripts missing from scripts/README.md"
    assert listed - scripts == set(), "scripts/README.md lists scripts that are not there"

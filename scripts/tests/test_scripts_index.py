"""scripts/README.md lists every script of scripts/ (one line each, by purpose), and scripts/ holds
loose only the set-up and test commands: every other script is in the folder of its purpose."""
import re
import subprocess

from test_occbench_config import ROOT

SETUP_AND_TEST = {"README.md", "build.sh", "install-deps.sh", "quickstart.sh", "test.sh", "test_pip_install.sh"}


def tracked_scripts():
    names = subprocess.run(["git", "ls-files", "scripts"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [n[len("scripts/"):] for n in names if not n.startswith("scripts/tests/")]


def test_every_script_is_in_the_index():
    scripts = {n for n in tracked_scripts() if not n.endswith((".md", ".json", ".txt"))}  # ncu/configs/, checks/typed_tables.txt: data
    listed = set(re.findall(r"`([\w/.-]+\.(?:py|sh|sbatch))`", (ROOT / "scripts" / "README.md").read_text()))
    assert scripts - listed == set(), "scripts missing from scripts/README.md"
    assert listed - scripts == set(), "scripts/README.md lists scripts that are not there"


def test_only_the_setup_and_test_commands_are_loose():
    loose = {n for n in tracked_scripts() if "/" not in n}
    assert loose - SETUP_AND_TEST == set(), "put a new script in the folder of its purpose (scripts/README.md)"

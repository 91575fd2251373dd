"""Every relative link in the repository's Markdown points at a file or folder that is there (raw
evidence moved into a study's archive is linked as that archive)."""
import os
import re
import subprocess

import pytest

from test_occbench_config import ROOT

LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)")


def markdown_files():
    names = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / n for n in names]


def broken_links(md):
    broken = []
    for target in LINK.findall(md.read_text()):
        if re.match(r"^[a-z]+:", target) or target.startswith("/"):
            continue
        if not os.path.exists(os.path.normpath(md.parent / target)):
            broken.append(target)
    return broken


@pytest.mark.parametrize("md", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(md):
    assert broken_links(md) == []


def test_a_broken_link_is_found(tmp_path):
    md = tmp_path / "a.md"
    md.write_text("[here](b.md) and [there](https://example.org) and [gone](missing/c.json#top)\n")
    (tmp_path / "b.md").write_text("")
    assert broken_links(md) == ["missing/c.json"]

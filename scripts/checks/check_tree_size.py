#!/usr/bin/env python3
"""The repository stays light enough to carry (a GPU call takes at most 64 MiB with what it
carries): fails when the tracked tree passes 30 MB, or when a tracked file over 1 MB is not an
archive (raw evidence goes into one .tar.xz per study: results/reference/README.md).

    python3 scripts/checks/check_tree_size.py          # scripts/test.sh runs it
"""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREE_LIMIT_BYTES = 30_000_000
FILE_LIMIT_BYTES = 1_000_000
ARCHIVES = (".tar.xz", ".tar.gz", ".tgz", ".zip")
# Plain files over 1 MB that must stay plain, each with its reason.
ALLOWED = {
    # occbench replay reads them as they are (tests/test_replay.cpp, the search write-ups' replay tables).
    "results/reference/h100/search/convolution/convolution_full.jsonl",
    "results/reference/h100/search/syrk/syrk_full.jsonl",
}


def tracked_sizes(root=ROOT):
    names = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout.decode().split("\0")
    return {n: (root / n).stat().st_size for n in names if n and (root / n).is_file()}


def problems(sizes):
    found = []
    total = sum(sizes.values())
    if total > TREE_LIMIT_BYTES:
        found.append(f"the tracked tree holds {total / 1e6:.1f} MB; at most {TREE_LIMIT_BYTES / 1e6:.0f} MB")
    for name, size in sorted(sizes.items()):
        if size > FILE_LIMIT_BYTES and not name.endswith(ARCHIVES) and name not in ALLOWED:
            found.append(f"{name}: {size / 1e6:.1f} MB outside an archive; at most {FILE_LIMIT_BYTES / 1e6:.0f} MB "
                         "(pack raw evidence into its study's evidence.tar.xz)")
    return found, total


if __name__ == "__main__":
    if not (ROOT / ".git").exists():
        print("check_tree_size: not a git checkout: no tracked tree to measure")
        sys.exit(0)
    found, total = problems(tracked_sizes())
    for p in found:
        print(f"check_tree_size: {p}", file=sys.stderr)
    if not found:
        print(f"check_tree_size: {total / 1e6:.1f} MB tracked (at most {TREE_LIMIT_BYTES / 1e6:.0f} MB)")
    sys.exit(1 if found else 0)

#!/usr/bin/env python3
"""A table of a committed tool output, quoted in a write-up: the Nth Markdown table of a saved
output (occbench replay's, a script's), from the file or from inside an archive (ARCHIVE.tar.xz:PATH),
so a write-up's table is what the run printed and cannot drift from it.

    python3 scripts/checks/quoted_table.py SOURCE [--table N]   # N counts from 0 (default 0)
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import text_of  # noqa: E402  (one reader of a file in an archive)

TABLE = re.compile(r"(?:^\|.*\n)+", re.M)


def nth_table(text, n):
    found = TABLE.findall(text)
    if n >= len(found):
        sys.exit(f"quoted_table: {len(found)} table(s), no table {n}")
    return found[n]


def main():
    args = sys.argv[1:]
    n = int(args[args.index("--table") + 1]) if "--table" in args else 0
    print(nth_table(text_of(args[0]), n), end="")


if __name__ == "__main__":
    main()

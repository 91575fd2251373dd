#!/usr/bin/env python3
"""What an occbench command prints, as a fenced block for a page of the manual: a command's example
output made by the command itself, so the page says what the tool prints today.

    python3 scripts/checks/occbench_output.py [--lines N] ARGS...   # the first N lines of `occbench ARGS...`, fenced
    python3 scripts/checks/occbench_output.py --raw ARGS...         # as it prints it (a report's Markdown)
    python3 scripts/checks/occbench_output.py --table N [--rows REGEX] ARGS...   # its Nth Markdown table (from 0),
        # with --rows only the body rows a regular expression finds (a slice of a report)

The binary is $OCCBENCH, else $BUILD_DIR/occbench (build/ by default); run from the repository's
root (scripts/checks/generated_tables.py does). A command that fails prints nothing and exits 1.
An argument ARCHIVE.tar.xz:PATH (a record kept in an evidence archive) is read out into a temporary
folder of its own, under its own name, and occbench is given that file.
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from quoted_table import nth_table, text_of

ROOT = Path(__file__).resolve().parents[2]


def occbench_binary():
    """$OCCBENCH, else $BUILD_DIR/occbench (build/ by default), else None: the one lookup (the tests use it too)."""
    for candidate in (os.environ.get("OCCBENCH"), ROOT / os.environ.get("BUILD_DIR", "build") / "occbench"):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    return None


def read_out(args, folder):
    """`args` with each ARCHIVE.tar.xz:PATH replaced by that file, written into a folder of its own
    under `folder` (two records of one name, from two archives, stay apart)."""
    out = []
    for k, arg in enumerate(args):
        if ".tar.xz:" in arg:
            path = Path(folder) / str(k) / Path(arg.partition(".tar.xz:")[2]).name
            path.parent.mkdir()
            path.write_text(text_of(arg))
            arg = str(path)
        out.append(arg)
    return out


def main():
    args = sys.argv[1:]
    lines, table, raw = None, None, args[:1] == ["--raw"]
    if raw:
        args = args[1:]
    if args[:1] == ["--lines"]:
        lines, args = int(args[1]), args[2:]
    if args[:1] == ["--table"]:
        table, args = int(args[1]), args[2:]
    rows = None
    if args[:1] == ["--rows"]:
        rows, args = re.compile(args[1]), args[2:]
    occbench = occbench_binary()
    if not occbench:
        sys.exit("occbench_output: no occbench binary (set OCCBENCH or build into build/)")
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run([occbench, *read_out(args, folder)], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"occbench_output: occbench {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    if raw or table is not None:
        text = done.stdout if raw else nth_table(done.stdout, table)
        if rows:
            lines = text.splitlines(keepends=True)
            text = "".join(lines[:2] + [line for line in lines[2:] if rows.search(line)])
        print(text, end="")
        return
    print("```")
    print("\n".join(done.stdout.splitlines()[:lines]))
    print("```")


if __name__ == "__main__":
    main()

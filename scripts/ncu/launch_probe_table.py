#!/usr/bin/env python3
"""The table of results/reference/flush_probe/launch_probe.cu's runs: each kernel and launch mode's
event-pair median beside ncu's median gpu__time_duration of the same launches, per block size.

    python3 scripts/ncu/launch_probe_table.py EVENTS.txt NCU.tgz
        # EVENTS.txt: the probe's output ("mode M NAME LAUNCH block B event median X us ...");
        # NCU.tgz: its runs under ncu, probe_ncu_M_B.csv each; either a file or ARCHIVE.tar.xz:PATH
"""
import io
import re
import statistics
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ncu_agreement import ncu_durations_us  # noqa: E402  (one ncu CSV reader)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import bytes_of, text_of  # noqa: E402  (one reader of a file, or of one inside an archive)

LINE = re.compile(r"mode (\d+) (\S+) (\S+)\s+block\s+(\d+)\s+event median ([\d.]+) us")


def tgz_members(path):
    """{name: text} of a .tgz, a file or ARCHIVE.tar.xz:PATH."""
    with tarfile.open(fileobj=io.BytesIO(bytes_of(path)), mode="r:gz") as tgz:
        return {m.name: tgz.extractfile(m).read().decode() for m in tgz if m.isfile()}


def ncu_median_us(name, text):
    """The median duration of the one kernel an ncu CSV names."""
    [durations] = ncu_durations_us(name, text).values()
    return statistics.median(durations)


def main(events_path, ncu_path):
    runs = tgz_members(ncu_path)
    rows, blocks = {}, []
    for mode, name, launch, block, event in LINE.findall(text_of(events_path)):
        name_of_run = f"probe_ncu_{mode}_{block}.csv"
        ncu = ncu_median_us(name_of_run, runs[name_of_run])
        rows.setdefault((name, launch), {})[block] = (float(event), ncu)
        blocks += [block] if block not in blocks else []
    print("| kernel, launch | " + " | ".join(f"event pair, {b} threads | ncu | difference" for b in blocks) + " |")
    print("|---|" + "---:|---:|---:|" * len(blocks))
    for (name, launch), by_block in rows.items():
        cells = [f"{e:.2f} | {n:.2f} | {e - n:+.2f}" for e, n in (by_block[b] for b in blocks)]
        print(f"| {name}, `{launch}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(*sys.argv[1:3])

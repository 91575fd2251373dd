#!/usr/bin/env python3
"""The table of results/reference/<gpu>/flush_probe/: per flush method of flush_probe.cu, what the timed
read-only kernel and the timed 64 MB copy write to DRAM during themselves and how long they take
under ncu (--cache-control none: no flush of ncu's own; medians of the profiled launches), beside
the event pair's median without the profiler; and ncu's own flush for reference.

    python3 scripts/ncu/flush_probe_table.py FOLDER   # FOLDER: run.sh's output, a folder or ARCHIVE.tar.xz:FOLDER
        # (events.txt; ncu_mM.csv per method, ncu_ref.csv with ncu's flush)
"""
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import study_files  # noqa: E402  (one reader of a study folder or archive)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ncu_agreement import ncu_metric_values  # noqa: E402  (one ncu CSV reader)

# flush_probe.cu's methods, by number (its argv[1])
METHODS = ("none", "read sweep 2x L2 (occbench's `read`)", "memset 2x L2 (`write`)",
           "memset + read sweep (`write_read`)", "memset + discard.global.L2", "write kernel + discard.global.L2",
           "read sweep 4x L2", "write kernel + read sweep", "cudaDeviceSetLimit(persisting L2) toggle")
EVENTS = re.compile(r"method (\d+): event median copy ([\d.]+) us, read-only ([\d.]+) us")


def timed(text, kernel):
    """(MB written to DRAM, µs) of the timed kernel's profiled launches (medians): `kernel` is k_copy or k_read,
    instantiated <1> for the timed launch (<0>: the copy that leaves the L2 dirty first)."""
    values = ncu_metric_values("ncu", text, lambda name: name.startswith(f"void {kernel}<1>"))
    return (statistics.median(values["dram__bytes_write.sum"]) / 1e6, statistics.median(values["gpu__time_duration.sum"]))


def main(folder):
    files = study_files(folder)
    events = {int(m): (float(c), float(r)) for m, c, r in EVENTS.findall(files["events.txt"])}
    print("| flush before the timed kernel | read-only kernel: DRAM bytes written during it (MB) | read-only: "
          "gpu__time_duration (µs) | read-only: event pair, no profiler (µs) | 64 MB copy: DRAM bytes written (MB) | "
          "copy: gpu__time_duration (µs) | copy: event pair (µs) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for method, label in enumerate(METHODS):
        text = files[f"ncu_m{method}.csv"]
        (read_mb, read_us), (copy_mb, copy_us) = timed(text, "k_read"), timed(text, "k_copy")
        copy_event, read_event = events[method]
        print(f"| {label} | {read_mb:.2f} | {read_us:.2f} | {read_event:.2f} | {copy_mb:.1f} | {copy_us:.2f} | {copy_event:.2f} |")
    (read_mb, read_us), (copy_mb, copy_us) = timed(files["ncu_ref.csv"], "k_read"), timed(files["ncu_ref.csv"], "k_copy")
    print(f"| ncu's own flush (`--cache-control all`), for reference | {read_mb:.2f} | {read_us:.2f} | | "
          f"{copy_mb:.1f} | {copy_us:.2f} | |")


if __name__ == "__main__":
    main(sys.argv[1])

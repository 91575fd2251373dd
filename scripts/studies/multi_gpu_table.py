#!/usr/bin/env python3
"""The table of sweeps run on one GPU and then on two (`run --devices 0` / `--devices 0,1`), from the
folder scripts/device/device_multigpu.sh fills (or ARCHIVE.tar.xz:FOLDER): each command's wall
(logs/scaling_walls.txt), the points each GPU measured and the seconds it timed (the two-GPU
record's parts), and occbench compare's summary of the medians (logs/compare_CONFIG.log).

    python3 scripts/studies/multi_gpu_table.py results/reference/h200/multi_gpu/evidence.tar.xz: CONFIG...
    python3 scripts/studies/multi_gpu_table.py --searches FOLDER LABEL=TITLE...
        # searches shared by the two GPUs (the folder's searches/LABEL.tar.xz, slimmed records, and
        # logs/search_walls.txt): points, each GPU's share, distinct points, the best, the wall
"""
import io
import json
import re
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import bytes_of, text_of  # noqa: E402  (one reader of a file in an archive)


def walls(folder):
    """{(config, devices): wall s} of logs/scaling_walls.txt ("CONFIG DEVICES WALL_S EXIT" per line)."""
    out = {}
    for line in text_of(folder + "logs/scaling_walls.txt").splitlines():
        config, devices, wall, _ = line.split()
        out[(config, devices)] = float(wall)
    return out


def row(folder, config, wall):
    doc = json.loads(text_of(f"{folder}{config}-devices0_1.json"))
    per_gpu = [sum(1 for r in doc["results"] if r.get("device") == d) for d in doc["run"]["devices"]]
    timed = [part["timed_s"] for part in doc["run"]["parts"]]
    summary = re.search(r"Summary: \d+ compared: (\d+) faster, (\d+) slower, (\d+) unchanged", text_of(f"{folder}logs/compare_{config}.log"))
    faster, slower, unchanged = summary.groups()
    medians = f"{unchanged} unchanged" + (f", {faster} faster, {slower} slower" if faster != "0" or slower != "0" else "")
    one, two = wall[(config, "0")], wall[(config, "0,1")]
    return (f"| {config} ({len(doc['results'])}) | {one:.2f} s | {two:.2f} s | {two / one:.2f} | "
            f"{' / '.join(map(str, per_gpu))} (timed {' / '.join(f'{t:.2f}' for t in timed)} s) | {medians} |")


def search_row(folder, label, title, walls_s):
    """One shared search: its points, how many each GPU measured, distinct points, the best median, the wall."""
    with tarfile.open(fileobj=io.BytesIO(bytes_of(f"{folder}searches/{label}.tar.xz"))) as tar:
        doc = json.loads(tar.extractfile(tar.getmembers()[0]).read())
    ok = [r for r in doc["results"] if r["status"] == "ok"]
    per_gpu = [sum(1 for r in doc["results"] if r.get("device") == d) for d in (0, 1)]
    best = min(r["timing"]["median_ms"] for r in ok)
    return (f"| {title} | {len(doc['results'])} | {per_gpu[0]} / {per_gpu[1]} | {len({r['point_id'] for r in doc['results']})} "
            f"| {best:.4g} | {walls_s[label]:.1f} |")


def searches(folder, labels):
    walls_s = {line.split()[0]: float(line.split()[1]) for line in text_of(folder + "logs/search_walls.txt").splitlines()}
    print("| search | points | on GPU 0 / 1 | distinct | best (ms) | wall s |")
    print("|---|---:|---|---:|---:|---:|")
    for label, _, title in (spec.partition("=") for spec in labels):
        print(search_row(folder, label, title, walls_s))


def folder_of(arg):
    """A folder, or an archive's inside (ARCHIVE.tar.xz:), as a prefix its files' names follow."""
    return arg if arg.endswith((":", "/")) else arg + "/"


def main():
    if sys.argv[1] == "--searches":
        return searches(folder_of(sys.argv[2]), sys.argv[3:])
    folder, configs = folder_of(sys.argv[1]), sys.argv[2:]
    wall = walls(folder)
    print("| sweep (points) | 1 GPU | 2 GPUs | ratio | points per GPU | medians (compare) |")
    print("|---|---:|---:|---:|---|---|")
    for config in configs:
        print(row(folder, config, wall))


if __name__ == "__main__":
    main()

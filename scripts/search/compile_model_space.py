#!/usr/bin/env python3
"""A space measured in full, with each point's compile time as live runs measured it: the model
`occbench replay --compile-s S --cores N` simulates a live search against (its records' own
compile.nvrtc_ms are from a run one kernel at a time, or absent).

Each kernel compiled in the runs of a study (scripts/search/search_batch_study.sh's timeline_RUN.json,
joined to the run's records by compile.cache_key) takes the median of its measured compile
seconds; every other point takes a log-linear fit on its parameters (one term per parameter
value, plus the log of the tile's area and that times the log of the block's height, as this
kernel's unrolled loops grow). The study's logs come from its tarball
(results/reference/h100/search/evidence.tar.xz, which holds every study's), the runs named by --runs.

  python3 scripts/search/compile_model_space.py results/reference/h100/search/convolution/convolution_full.jsonl \\
      results/reference/h100/search/evidence.tar.xz --runs 'batches/study22to24_logs_csv/study24/' --out model.jsonl
  occbench replay model.jsonl --strategy local --max-points 120 --batch 16 --compile-s 0.8 --cores 16
"""
import argparse
import json
import math
import statistics
import tarfile

import numpy as np

PARAMS = ["block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "use_padding", "read_only"]


def kernel_of(params):
    return tuple(params[name] for name in PARAMS)


def read_runs(tarball, prefix):
    """Per kernel (its parameters), the compile seconds measured in every run under `prefix`."""
    timelines, records = {}, {}
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            if not member.isfile() or not member.name.startswith(prefix):
                continue
            folder, _, name = member.name.rpartition("/")
            text = tar.extractfile(member).read().decode()
            if name.startswith("timeline_") and name.endswith(".json"):
                timelines[(folder, name[len("timeline_"):-len(".json")])] = json.loads(text)
            elif name.endswith(".jsonl"):
                run_folder, _, run = folder.rpartition("/")
                records[(run_folder, run)] = [json.loads(line) for line in text.splitlines()[1:]]
    seconds = {}
    for key, timeline in timelines.items():
        params_of = {r["compile"]["cache_key"]: r["params"] for r in records.get(key, []) if "compile" in r}
        for entry in timeline:
            if entry["key"] in params_of:
                seconds.setdefault(kernel_of(params_of[entry["key"]]), []).append(entry["compile_s"])
    return {kernel: statistics.median(values) for kernel, values in seconds.items()}


def features(kernel, values):
    """One term per parameter value (the first of each is the base), the log tile area, and that
    times the log block height."""
    row = [1.0]
    for d, name in enumerate(PARAMS):
        row += [1.0 if kernel[d] == v else 0.0 for v in values[name][1:]]
    area = math.log(kernel[PARAMS.index("tile_size_x")] * kernel[PARAMS.index("tile_size_y")])
    return row + [area, area * math.log(kernel[PARAMS.index("block_size_y")])]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("space", help="the .jsonl of the space measured in full")
    parser.add_argument("tarball", help="an archive of the studies' logs (search/evidence.tar.xz)")
    parser.add_argument("--runs", default="", help="the runs' folder prefix in the archive (e.g. batches/study22to24_logs_csv/study24/)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    measured = read_runs(args.tarball, args.runs)
    lines = open(args.space).read().splitlines()
    records = [json.loads(line) for line in lines[1:]]
    is_tuned = [all(name in r.get("params", {}) for name in PARAMS) for r in records]
    tuned = [r for r, t in zip(records, is_tuned) if t]
    values = {name: sorted({r["params"][name] for r in tuned}) for name in PARAMS}
    fitted = sorted(measured)
    x = np.array([features(k, values) for k in fitted])
    y = np.array([math.log(measured[k]) for k in fitted])
    weights, *_ = np.linalg.lstsq(x, y, rcond=None)
    residual = float(np.std(y - x @ weights))
    out, seen = [lines[0]], 0
    for record, t in zip(records, is_tuned):
        if t:
            kernel = kernel_of(record["params"])
            seen += kernel in measured
            s = measured.get(kernel) or math.exp(float(np.array(features(kernel, values)) @ weights))
            record.setdefault("compile", {})["nvrtc_ms"] = s * 1e3
        out.append(json.dumps(record))
    open(args.out, "w").write("\n".join(out) + "\n")
    print(f"{len(tuned)} points, {seen} with a measured compile time ({len(measured)} kernels), "
          f"the rest fitted (residual {residual:.2f} in log); wrote {args.out}")


if __name__ == "__main__":
    main()

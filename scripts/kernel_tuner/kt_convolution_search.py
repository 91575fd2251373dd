"""Kernel Tuner's strategies on occbench's convolution search space (examples/search/convolution:
Kernel Tuner's convolution kernel, 7x7 filter, a 4096x4096 image, the same axes and restrictions),
120 configurations each, on its CuPy backend with an empty CuPy kernel cache, one strategy after
another. Prints one JSON line per strategy: its wall, configurations, its best and its time.

    PYTHONPATH=KT_SITE python3 scripts/kernel_tuner/kt_convolution_search.py greedy_ils random_sample
"""
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy

SOURCE = Path(__file__).resolve().parents[2] / "examples" / "kernel_tuner" / "convolution" / "convolution.cu"
TUNE_PARAMS = {"block_size_x": [16 * i for i in range(1, 9)], "block_size_y": [2**i for i in range(6)],
               "tile_size_x": list(range(1, 9)), "tile_size_y": [1, 2, 4, 8], "use_padding": [0, 1], "read_only": [0, 1]}
RESTRICTIONS = ["block_size_x * block_size_y >= 64", "block_size_x * block_size_y <= 1024",
                "(block_size_y * tile_size_y + 6) * (block_size_x * tile_size_x + 6 + use_padding) * 4 <= 49152"]


def tune(strategy, seed):
    os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="cupy-cache-")  # cold, as occbench's runs
    import kernel_tuner
    width = height = 4096
    rng = numpy.random.default_rng(seed)
    arguments = [numpy.zeros(width * height, numpy.float32),
                 rng.uniform(-1, 1, (width + 6) * (height + 6)).astype(numpy.float32), numpy.int32(width), numpy.int32(height)]
    started = time.perf_counter()
    results, _ = kernel_tuner.tune_kernel(
        "convolution_kernel", SOURCE.read_text(), (width, height), arguments, TUNE_PARAMS,
        grid_div_x=["block_size_x", "tile_size_x"], grid_div_y=["block_size_y", "tile_size_y"], restrictions=RESTRICTIONS,
        cmem_args={"d_filter": rng.uniform(-1, 1, 49).astype(numpy.float32)}, compiler_options=["-Dfilter_width=7", "-Dfilter_height=7"],
        lang="cupy", strategy=strategy, strategy_options={"max_fevals": 120}, quiet=True)
    wall = time.perf_counter() - started
    timed = [r for r in results if isinstance(r.get("time"), float)]
    best = min(timed, key=lambda r: r["time"])
    return {"strategy": strategy, "wall_s": round(wall, 1), "configurations": len(results), "timed": len(timed),
            "best_ms_by_kernel_tuner": best["time"], "best": {k: best[k] for k in TUNE_PARAMS}}


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(json.dumps(tune(name, 1)), flush=True)

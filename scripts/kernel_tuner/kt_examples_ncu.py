"""Each tool's best configuration of three of Kernel Tuner's examples (vector_add, stencil, matmul),
timed by Nsight Compute: tune_kernel measures the configuration alone (its verified launch and at
least 10 samples; ncu profiles the first 15 launches) under `ncu --clock-control none --cache-control all`, and gpu__time_duration of each
launch of the kernel is read; the median per configuration is printed as JSON.

    python3 scripts/kernel_tuner/kt_examples_ncu.py BESTS.json OUT.json   # BESTS: {example: {tool: params}}
"""
import csv
import io
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kernel_tuner_python"

SETUP = {
    "vector_add": """
import numpy
kernel = '''__global__ void vector_add(float *c, float *a, float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i<n) { c[i] = a[i] + b[i]; } }'''
size = 10000000
a = numpy.random.randn(size).astype(numpy.float32); b = numpy.random.randn(size).astype(numpy.float32)
call = ("vector_add", kernel, size, [numpy.zeros_like(b), a, b, numpy.int32(size)], {})
""",
    "stencil": """
import numpy
kernel = open(EXAMPLES + '/stencil.cu').read()
x_old = numpy.random.randn(4096 * 2048).astype(numpy.float32)
call = ("stencil_kernel", kernel, (4096, 2048), [numpy.copy(x_old), x_old], dict(grid_div_x=["block_size_x"], grid_div_y=["block_size_y"]))
""",
    "matmul": """
import numpy
kernel = open(EXAMPLES + '/matmul.cu').read()
A = numpy.random.randn(4096, 4096).astype(numpy.float32); B = numpy.random.randn(4096, 4096).astype(numpy.float32)
call = ("matmul_kernel", kernel, (4096, 4096), [numpy.zeros_like(A), A, B],
        dict(grid_div_x=["block_size_x", "tile_size_x"], grid_div_y=["block_size_y", "tile_size_y"]))
""",
}

RUN = """
import occbench
EXAMPLES = {examples!r}
{setup}
name, kernel, size, args, options = call
occbench.tune_kernel(name, kernel, size, args, {{k: [v] for k, v in {params!r}.items()}}, iterations=10, quiet=True, **options)
"""


def ncu_times(example, params):
    """In the Python process itself (OCCBENCH_IN_PROCESS=1): on the H100, ncu saw no launch of the
    forked child that measures by default, and that child did not return (2026-11-27)."""
    return ncu_run(example, params, {"OCCBENCH_IN_PROCESS": "1"})


def ncu_run(example, params, env, timeout=150):
    script = RUN.format(examples=str(EXAMPLES), setup=SETUP[example], params=params)
    kernel = {"vector_add": "vector_add", "stencil": "stencil_kernel", "matmul": "matmul_kernel"}[example]
    out = subprocess.run(["ncu", "--target-processes", "all", "--clock-control", "none", "--cache-control", "all",
                          "-k", kernel, "--launch-count", "15", "--metrics", "gpu__time_duration.sum", "--csv", sys.executable, "-c", script],
                         capture_output=True, text=True, timeout=timeout, env=dict(os.environ, **env))
    rows = [r for r in csv.DictReader(io.StringIO(out.stdout[out.stdout.find('"ID"'):])) if r.get("Metric Name") == "gpu__time_duration.sum"]
    values = [float(r["Metric Value"].replace(",", "")) for r in rows]
    unit = rows[0]["Metric Unit"] if rows else ""
    scale = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0}.get(unit, float("nan"))
    return {"launches": len(values), "median_ms": statistics.median(values) * scale if values else None,
            "unit": unit, "stderr_tail": out.stderr[-500:] if not values else ""}


if __name__ == "__main__":
    bests = json.loads(Path(sys.argv[1]).read_text())
    result = {}
    for ex, tools in bests.items():
        result[ex] = {}
        for tool, p in tools.items():
            same = next((t for t, r in result[ex].items() if r["params"] == p), None)  # one ncu run per configuration
            result[ex][tool] = dict(result[ex][same]) if same else dict(params=p, **ncu_times(ex, p))
            print(ex, tool, result[ex][tool], file=sys.stderr, flush=True)
    Path(sys.argv[2]).write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))

"""scripts/studies/covariance_report.py on a synthetic results file shaped like occbench's records."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "studies" / "covariance_report.py"
sys.path.insert(0, str(SCRIPT.parent))
import covariance_report  # noqa: E402

M, N = 20000, 2475


def record(variant, params, median_ms, *, cgma=None, occupancy=None, block=(1, 1, 1), dyn=0, regs=32, smem=0,
           status="ok"):
    r = {"family": "covariance", "variant": variant, "params": {"m": M, "n": N, **params}, "status": status,
         "reason": "" if status == "ok" else "needs 9 GiB",
         "launch": {"grid": [210, 1, 1], "block": list(block), "dynamic_smem_bytes": dyn},
         "resources": {"registers_per_thread": regs, "static_smem_bytes": smem},
         "occupancy": occupancy,
         "timing": {"median_ms": median_ms} if status == "ok" else None,
         "work": {"cgma_flop_per_byte": cgma},
         "verification": {"status": "passed", "max_rel_error": 1e-6, "tolerance": 3.4e-5, "checked": 11000}}
    return r


def occ(blocks, warps, theoretical, util, limiter):
    return {"active_blocks_per_sm": blocks, "active_warps_per_sm": warps, "max_warps_per_sm": 64,
            "theoretical": theoretical, "thread_utilization": util, "limiter": limiter,
            "blocks_limit": {"warps": 64, "registers": 64, "shared_memory": 202, "blocks_per_sm": 32}}


@pytest.fixture
def results_file(tmp_path):
    results = [
        record("cublas_syrk", {"pedantic": 0}, 3.0),
        record("cublas_syrk", {"pedantic": 1}, 3.2),
        record("naive", {"block_size": 8}, 700.0, cgma=0.25, occupancy=occ(32, 64, 1.0, 1.0, "warps"), block=(8, 8, 1)),
        record("shared_static", {"chunk_size": 2}, 740.0, cgma=0.49999, occupancy=occ(32, 32, 0.5, 0.0625, "blocks_per_sm"),
               block=(2, 2, 1), smem=32),
        record("shared_dynamic", {"chunk_size": 2}, 745.0, cgma=0.49999, occupancy=occ(32, 32, 0.5, 0.0625, "blocks_per_sm"),
               block=(2, 2, 1), dyn=32),
        record("shared_static", {"chunk_size": 32}, 19.0, cgma=7.99, occupancy=occ(2, 64, 1.0, 1.0, "warps"),
               block=(32, 32, 1), smem=8192),
        record("shared_dynamic", {"chunk_size": 32}, 19.2, cgma=7.99, occupancy=occ(2, 64, 1.0, 1.0, "warps"),
               block=(32, 32, 1), dyn=8192),
        record("register_tiled", {"block_tile": 128, "thread_tile": 8, "split_k": 1}, 4.0, cgma=31.9,
               occupancy=occ(2, 16, 0.25, 0.25, "registers"), block=(256, 1, 1), regs=127, smem=16384),
        record("register_tiled", {"block_tile": 64, "thread_tile": 4, "split_k": 1}, 0, status="skipped"),
    ]
    path = tmp_path / "cov.json"
    path.write_text(json.dumps({"schema_version": 1, "device": {"name": "NVIDIA H100 80GB HBM3"}, "results": results}))
    return path


def test_tables_and_answers(results_file):
    text = covariance_report.report([results_file])
    assert "# Covariance on NVIDIA H100 80GB HBM3" in text
    assert "## m = 20,000 entries, n = 2,475 features" in text
    assert "### Shared-memory kernels (seed 000) by chunk size" in text
    assert "| 2 | static | 740 | 0.500 |" in text  # time and CGMA per chunk
    assert "blocks_per_sm" in text and "| warps |" in text
    assert "dynamic / static" in text
    assert "register_tiled at its best (block_tile=128, thread_tile=8, split_k=1): 4.00 ms" in text
    assert "75.0% of cuBLAS SSYRK's throughput (target ≥ 50%: met)" in text
    assert "Best seed kernel: shared_static (chunk_size=32), 19.0 ms" in text
    assert "skipped: needs 9 GiB" in text


def test_duplicates_across_files_shown_once(results_file):
    text = covariance_report.report([results_file, results_file])
    assert "9 points measured in more than one file are shown once" in text
    assert text.count("| 128 | 8 | 1 | 4 B |") == 1


def test_command_line_and_bad_input(results_file, tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), str(results_file)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("# Covariance on")
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    done = subprocess.run([sys.executable, str(SCRIPT), str(bad)], capture_output=True, text=True)
    assert done.returncode == 2 and "expected an occbench results document" in done.stderr

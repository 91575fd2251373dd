"""occbench plan compiles a user kernel's instantiations ahead in several processes (NVRTC compiles
one program at a time per process): the real binary on four #define instantiations, with one process
and with two, gives the same plan, and with two the workers filled the compile cache."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from test_occbench_config import ROOT, occbench_binary

CONFIG = ROOT / "examples" / "compile_benchmark" / "compile_benchmark_defines.json"


def plan(tmp_path, processes):
    occbench = occbench_binary()
    if not occbench:
        pytest.skip("no occbench binary (set OCCBENCH or build into build/)")
    cache, out = tmp_path / f"cache{processes}", tmp_path / f"out{processes}"
    env = dict(os.environ, OCCBENCH_CACHE_DIR=str(cache), OCCBENCH_COMPILE_PROCESSES=str(processes))
    done = subprocess.run([occbench, "plan", str(CONFIG), "--gpu", "h100", "--set", "block_size=32,64", "--set", "items=1,2",
                           "--out", str(out)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(next(out.glob("*.json")).read_text())
    return document["results"], sorted(cache.glob("*.cubin"))


def test_two_compile_processes_give_the_same_plan_from_the_cache_they_filled(tmp_path):
    alone, alone_cubins = plan(tmp_path, 1)
    shared, shared_cubins = plan(tmp_path, 2)
    assert len(alone) == len(shared) == 4
    assert len(alone_cubins) == len(shared_cubins) == 4  # one compilation per point: each has its own -D options
    for a, s in zip(alone, shared):
        assert a["status"] == s["status"] == "planned", (a["reason"], s["reason"])
        assert a["resources"] == s["resources"] and a["occupancy"] == s["occupancy"]
        assert not a["compile"]["cache_hit"], "one process compiles as the points come"
        assert s["compile"]["cache_hit"], "the workers compiled it before the point took it"

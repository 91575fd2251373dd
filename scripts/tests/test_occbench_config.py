"""scripts/ncu/occbench_config.py: a config copied into another folder still finds the files it names,
so the agreement scripts run a user kernel's config as `occbench run` does."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1]
ROOT = SCRIPTS.parent
sys.path.insert(0, str(SCRIPTS / "ncu"))
sys.path.insert(0, str(SCRIPTS / "checks"))
from occbench_config import relocated  # noqa: E402
from occbench_output import occbench_binary  # noqa: E402  (the tests' lookup of the binary, as the tables')


def test_every_file_a_user_kernel_config_names_becomes_absolute(tmp_path):
    folder = tmp_path / "kernels"
    (folder / "include").mkdir(parents=True)
    for name in ("k.cu", "in.npy", "out.npy"):
        (folder / name).write_text("x")
    spec = {"source": "k.cu", "compile": {"include_dirs": ["include", "/usr/include"]},
            "arguments": [{"name": "a", "init": {"kind": "npy", "file": "in.npy"}}, {"name": "b", "init": {"kind": "uniform"}}],
            "reference": {"npy": {"out": "out.npy"}}, "sizes": {"n": [1]}}
    moved = relocated(spec, folder / "k.json")
    assert moved["source"] == str(folder / "k.cu")
    assert moved["compile"]["include_dirs"] == [str(folder / "include"), "/usr/include"]
    assert moved["arguments"][0]["init"]["file"] == str(folder / "in.npy")
    assert moved["arguments"][1]["init"] == {"kind": "uniform"}
    assert moved["reference"]["npy"]["out"] == str(folder / "out.npy")
    assert spec["source"] == "k.cu", "the input is left as it was"
    builtin = {"family": "adjacent_difference", "sizes": {"n": [1024]}}
    assert relocated(builtin, folder / "c.json") == builtin


def test_a_copied_example_config_validates_from_another_folder(tmp_path):
    occbench = occbench_binary()
    if not occbench:
        pytest.skip("no occbench binary (set OCCBENCH or build into build/)")
    config = ROOT / "examples" / "my_scale" / "my_scale.json"
    copied = tmp_path / "my_scale-copy.json"
    shutil.copy(config, copied)
    plain = subprocess.run([occbench, "validate", str(copied)], capture_output=True, text=True)
    assert plain.returncode == 2, "a plain copy loses its source (the failure this module prevents)"
    copied.write_text(json.dumps(relocated(json.loads(config.read_text()), config)))
    done = subprocess.run([occbench, "validate", str(copied)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr

"""Kernel Launcher's captures as occbench configs (occbench.kernel_launcher_capture), without a GPU:
a capture written the way Kernel Launcher writes one (its expression trees, .bin and .bin.gz
buffers, scalars as bytes) becomes a config that occbench plans as it is, and what does not map is
refused naming the field."""
import gzip
import json
import os

import numpy as np
import pytest

from conftest import requires_gpu
from occbench import _engine
from occbench.kernel_launcher_capture import CaptureError, capture_to_config, expression, main

SOURCE = """template <typename T>
__global__ void vector_scale(int n, T* c, const T* a, T factor) {
  for (int k = 0; k < ELEMENTS_PER_THREAD; k++) {
    int i = (blockIdx.x * ELEMENTS_PER_THREAD + k) * blockDim.x + threadIdx.x;
    if (i < n) c[i] = factor * a[i];
  }
}
"""


def param(name):
    return {"operator": "parameter", "operands": [name]}


def op(name, *operands):
    return {"operator": name, "operands": list(operands)}


def write_capture(folder, n=1000, gz=False):
    """A capture as Kernel Launcher writes one: c = factor * a, c written (reference_file), a read."""
    a = np.linspace(-1, 1, n, dtype=np.float32)
    c_before = np.full(n, 7, dtype=np.float32)
    c_after = np.float32(0.5) * a
    files = {"vs_a.bin": a, "vs_c.bin": c_before, "vs_c_after.bin" + (".gz" if gz else ""): c_after}
    for name, array in files.items():
        with (gzip.open if name.endswith(".gz") else open)(os.path.join(folder, name), "wb") as handle:
            handle.write(array.tobytes())
    work = op("*", param("threads_per_block"), param("elements_per_thread"))
    capture = {
        "key": "vector_scale",
        "environment": {"host_name": "node", "nvrtc_version": 12000},
        "config_space": {
            "parameters": [{"name": "threads_per_block", "values": [32, 128, 256], "priors": [1, 1, 1], "default": 256},
                           {"name": "elements_per_thread", "values": [1, 2, 4], "priors": [1, 1, 1], "default": 1}],
            "restrictions": [op("&&", op(">=", work, 64), op("<=", work, 1024))]},
        "kernel": {"source": SOURCE, "name": "vector_scale", "compile_flags": ["-std=c++17"], "headers": [],
                   "template_args": ["float"], "shared_memory": 0,
                   "defines": {"ELEMENTS_PER_THREAD": param("elements_per_thread")},
                   "block_size": [param("threads_per_block"), 1, 1],
                   "grid_size": [op("+", op("/", n, work), op("!=", op("%", n, work), 0)), 1, 1]},
        "arguments": [{"type": "int", "kind": "scalar", "data": list(np.int32(n).tobytes())},
                      {"type": "float*", "kind": "array", "file": "vs_c.bin", "reference_file": "vs_c_after.bin" + (".gz" if gz else "")},
                      {"type": "const float*", "kind": "array", "file": "vs_a.bin"},
                      {"type": "float", "kind": "scalar", "data": list(np.float32(0.5).tobytes())}],
        "problem_size": [n, 1, 1]}
    path = os.path.join(folder, f"vector_scale_{n}.json")
    with open(path, "w") as handle:
        json.dump(capture, handle)
    return path, a, c_before, c_after


@pytest.mark.parametrize("gz", [False, True])
def test_a_capture_becomes_a_config_that_occbench_plans(tmp_path, gz):
    path, a, c_before, c_after = write_capture(str(tmp_path), gz=gz)
    out = tmp_path / "tune"
    config_path = capture_to_config(path, str(out))
    config = json.loads(open(config_path).read())
    assert config["sizes"] == {"x": [1000], "y": [1], "z": [1]}
    assert config["axes"] == {"threads_per_block": [32, 128, 256], "elements_per_thread": [1, 2, 4]}
    entry = config["kernels"]["vector_scale"]
    assert entry["kernel"] == "vector_scale<float>"
    assert entry["defines"] == {"ELEMENTS_PER_THREAD": "elements_per_thread"}
    assert entry["block"][0] == "threads_per_block"
    assert entry["options"] == ["-std=c++17"]
    roles = [(x["name"], x["role"], x["type"]) for x in config["arguments"]]
    assert roles == [("arg0", "scalar", "int32"), ("arg1", "output", "float32"), ("arg2", "input", "float32"), ("arg3", "scalar", "float32")]
    assert config["arguments"][0]["value"] == "1000" and config["arguments"][3]["value"] == "0.5"
    assert config["reference"] == {"npy": {"arg1": "arg1.expected.npy"}}
    np.testing.assert_array_equal(np.load(out / "arg1.npy"), c_before)  # written by the kernel: starts as it was
    np.testing.assert_array_equal(np.load(out / "arg1.expected.npy"), c_after)
    np.testing.assert_array_equal(np.load(out / "arg2.npy"), a)
    # occbench plans it as it is: 3 x 3 points, of which the restrictions keep those of 64 to 1024 elements a block.
    code = _engine.run(["occbench", "plan", config_path, "--gpu", "h200", "--out", str(tmp_path / "plan")], {}, {}, {}, {}, {})
    assert code == 0
    [plan_json] = [f for f in os.listdir(tmp_path / "plan") if f.endswith(".json")]
    results = json.loads(open(tmp_path / "plan" / plan_json).read())["results"]
    kept = {(r["params"]["threads_per_block"], r["params"]["elements_per_thread"]) for r in results}
    assert kept == {(32, 2), (32, 4), (128, 1), (128, 2), (128, 4), (256, 1), (256, 2), (256, 4)}
    grids = {(r["params"]["threads_per_block"], r["params"]["elements_per_thread"]): r["launch"]["grid"][0] for r in results}
    assert grids[(128, 4)] == 2 and grids[(256, 1)] == 4 and grids[(32, 2)] == 16  # ceil(1000 / work), as Kernel Launcher's


def test_expressions_read_as_kernel_launcher_evaluates_them():
    assert expression(op("/", 7, 2), "f", "x") == "floor((7) / (2))"
    assert expression(op("select", param("p"), 10, 20, 30), "f", "x") == "((p) == 0 ? 10 : ((p) == 1 ? 20 : 30))"
    assert expression(op("!", param("p")), "f", "x") == "((p) == 0)"
    assert expression(op("problem_size", 1), "f", "x") == "y"
    assert expression(True, "f", "x") == "1"


def test_what_does_not_map_is_refused_naming_the_field(tmp_path):
    path, *_ = write_capture(str(tmp_path))
    doc = json.loads(open(path).read())

    def refusal(change):
        d = json.loads(json.dumps(doc))
        change(d)
        with open(path, "w") as handle:
            json.dump(d, handle)
        with pytest.raises(CaptureError) as e:
            capture_to_config(path, str(tmp_path / "out"))
        return str(e.value)

    assert "kernel.grid_size[0]: a device attribute (MAX_THREADS_PER_BLOCK)" in refusal(
        lambda d: d["kernel"].__setitem__("grid_size", [op("device_attribute", "MAX_THREADS_PER_BLOCK")]))
    assert "config_space.parameters.threads_per_block: values [0.5, 1]" in refusal(
        lambda d: d["config_space"]["parameters"][0].__setitem__("values", [0.5, 1]))
    assert "arguments[2].type: the element type 'const half*'" in refusal(lambda d: d["arguments"][2].__setitem__("type", "const half*"))
    assert "arguments: no buffer has a reference_file" in refusal(lambda d: d["arguments"][1].pop("reference_file"))
    assert "kernel.headers: preheaders are not mapped" in refusal(lambda d: d["kernel"].__setitem__("headers", [{"file": "h.cuh"}]))
    assert "arguments[2].file: cannot read" in refusal(lambda d: d["arguments"][2].__setitem__("file", "missing.bin"))


def test_the_command_says_what_is_wrong_and_exits_2(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert main([str(broken), "--out", str(tmp_path / "out")]) == 2
    assert "broken.json: not JSON" in capsys.readouterr().err


@requires_gpu
def test_a_converted_capture_runs_verified_on_the_gpu(tmp_path):
    path, *_ = write_capture(str(tmp_path), n=100003, gz=True)
    config_path = capture_to_config(path, str(tmp_path / "tune"))
    # In this process where CUDA already started (an earlier test's plan, CuPy), no child may use the GPU: measure here.
    here = ["--no-supervisor"] if _engine.cuda_initialized() else []
    code = _engine.run(["occbench", "run", config_path, "--out", str(tmp_path / "run"), *here], {}, {}, {}, {}, {})
    assert code == 0
    [run_json] = [f for f in os.listdir(tmp_path / "run") if f.endswith(".json")]
    results = json.loads(open(tmp_path / "run" / run_json).read())["results"]
    assert len(results) == 8
    assert {r["verification"]["status"] for r in results} == {"passed"}

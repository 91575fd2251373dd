"""occbench.launch.choose: the selection rule of occbench::launch from Python, on results files
written here (no GPU: the GPU is named)."""
import json

from conftest import requires_gpu
from occbench.launch import choose


def results_file(path, gpu, cc, n, timings):
    doc = {"schema_version": 1, "tool": {"name": "occbench"}, "device": {"name": gpu, "compute_capability": cc},
           "config": {"sizes": {"n": [n]}}, "results": []}
    for block, ms in timings:
        doc["results"].append({"point_id": f"app/scale/n={n}/BLOCK={block}", "family": "app", "variant": "scale", "status": "ok",
                               "params": {"n": n, "BLOCK": block}, "timing": {"median_ms": ms}})
    path.write_text(json.dumps(doc))
    return path


def test_this_gpus_best_at_the_nearest_size_else_its_architectures_else_the_defaults(tmp_path):
    h200 = results_file(tmp_path / "h200.json", "NVIDIA H200", "9.0", 1 << 20, [(128, 1.0), (512, 0.5)])
    h100 = results_file(tmp_path / "h100.json", "NVIDIA H100 80GB HBM3", "9.0", 1 << 16, [(64, 0.1), (1024, 0.2)])
    files = [h200, h100]
    own = choose(files, "app/scale", {"n": 1 << 19}, defaults={"BLOCK": 256}, gpu="NVIDIA H200", compute_capability="9.0")
    assert (own.params, own.source) == ({"BLOCK": 512}, "this_gpu")
    assert "the recorded size nearest n=524288" in own.reason
    sibling = choose(files, "scale", {"n": 1 << 16}, defaults={"BLOCK": 256}, gpu="NVIDIA GH200 480GB", compute_capability="9.0")
    assert (sibling.params, sibling.source) == ({"BLOCK": 64}, "same_architecture")
    other = choose(files + [tmp_path / "missing.json"], "app/scale", {"n": 1 << 20}, defaults={"BLOCK": 256},
                   gpu="NVIDIA B200", compute_capability="10.0")
    assert (other.params, other.source) == ({"BLOCK": 256}, "defaults")
    assert len(other.left_out) == 1 and "missing.json" in other.left_out[0]


def test_kernel_launchers_wisdom_files_too(tmp_path):
    wisdom = tmp_path / "vector_add.wisdom"
    wisdom.write_text('{"version": "1.0", "key": "vector_add", "objective": "time", "tunable_parameters": ["BLOCK"]}\n'
                      '{"config": [128], "problem_size": [1000], "environment": {"device_name": "NVIDIA H200"}, "time": 0.05}\n'
                      '{"config": [512], "problem_size": [1000], "environment": {"device_name": "NVIDIA H200"}, "time": 0.02}\n')
    chosen = choose([wisdom], "vector_add", {"x": 1000, "y": 1, "z": 1}, defaults={"BLOCK": 256}, gpu="NVIDIA H200", compute_capability="9.0")
    assert (chosen.params, chosen.source) == ({"BLOCK": 512}, "this_gpu")


@requires_gpu
def test_a_kernel_launches_with_cupy_in_the_configuration_chosen(tmp_path):
    import cupy
    import numpy as np
    from occbench.launch import Kernel, this_gpu

    gpu, cc = this_gpu()
    source = tmp_path / "scale.cu"
    source.write_text('extern "C" __global__ void scale(float* out, const float* in, float a, int n) {\n'
                      "  int i = blockIdx.x * BLOCK + threadIdx.x;\n  if (i < n) out[i] = a * in[i];\n}\n")
    n = 100003
    tuned = results_file(tmp_path / "tuned.json", gpu, cc, n, [(128, 1.0), (512, 0.5)])
    lines = []
    declared = dict(name="scale", variant="app/scale", parameters={"BLOCK": 256}, grid=lambda p, s: ((s["n"] + p["BLOCK"] - 1) // p["BLOCK"],),
                    block=lambda p, s: (p["BLOCK"],), log=lines.append)
    x = cupy.asarray(np.random.default_rng(3).uniform(-1, 1, n).astype(np.float32))
    for results, block in (([tuned], 512), ([], 256), ([tuned, tmp_path / "missing.json"], 512)):
        kernel = Kernel(str(source), results=results, **declared)
        out = cupy.full(n, cupy.nan, dtype=cupy.float32)
        kernel({"n": n}, out, x, np.float32(1.5), np.int32(n))
        assert kernel.choice({"n": n}).params == {"BLOCK": block}
        np.testing.assert_array_equal(out.get(), np.float32(1.5) * x.get())
    assert any("this GPU's" in line and "BLOCK=512" in line for line in lines), lines
    assert any("missing.json" in line for line in lines), lines

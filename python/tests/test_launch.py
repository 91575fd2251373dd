"""occbench.launch.choose: the selection rule of occbench::launch from Python, on results files
written here (no GPU: the GPU is named)."""
import json

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

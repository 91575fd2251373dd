"""tune_kernel and run_kernel on a GPU: verified results, failures marked and never the best,
faults contained to their configuration, verify functions and run_kernel's outputs."""
import numpy as np
import pytest

from conftest import requires_gpu

import occbench
from occbench.util import CompilationFailedConfig, RuntimeFailedConfig

pytestmark = requires_gpu

VECTOR_ADD = """
__global__ void vector_add(float *c, float *a, float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
#if PLANT_BUG
        if (block_size_x == 256 && i == 7) { c[i] = 0.0f; return; }
#endif
#if PLANT_FAULT
        if (block_size_x == 512 && i == 0) { __trap(); }
#endif
        c[i] = a[i] + b[i];
    }
}
"""


def vector_args(n=1 << 20, seed=1):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    return [np.zeros_like(a), a, b, np.int32(n)], a + b


def tune(defines=None, **kwargs):
    args, expected = vector_args()
    tune_params = {"block_size_x": [128, 256, 512, 1024], "PLANT_BUG": [0], "PLANT_FAULT": [0]}
    tune_params.update(defines or {})
    return occbench.tune_kernel("vector_add", VECTOR_ADD, args[3].item(), args, tune_params,
                                answer=[expected, None, None, None], quiet=True, **kwargs)


def test_every_configuration_is_verified_and_timed():
    results, env = tune()
    assert [r["block_size_x"] for r in results] == [128, 256, 512, 1024]
    assert all(isinstance(r["time"], float) and r["time"] > 0 for r in results)
    assert all(r["verification"] == "passed" for r in results)
    assert env["best_config"]["time"] == min(r["time"] for r in results)
    frame = results.frame()
    assert {"block_size_x", "time", "occupancy", "occupancy_limiter", "noise"} <= set(frame.columns)
    assert len(frame) == 4


def test_a_wrong_result_is_marked_never_timed_and_never_the_best():
    results, env = tune({"PLANT_BUG": [1]})
    wrong = next(r for r in results if r["block_size_x"] == 256)
    assert isinstance(wrong["time"], RuntimeFailedConfig) and wrong["verification"] == "failed"
    assert "wrong result" in wrong["reason"]
    assert env["best_config"]["block_size_x"] != 256


def test_a_faulting_configuration_fails_alone():
    results, _ = tune({"PLANT_FAULT": [1]})
    by_block = {r["block_size_x"]: r for r in results}
    assert isinstance(by_block[512]["time"], RuntimeFailedConfig)
    assert all(isinstance(by_block[b]["time"], float) for b in (128, 256, 1024))


def test_a_kernel_that_does_not_compile_is_marked():
    results, env = occbench.tune_kernel("vector_add", VECTOR_ADD.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + b[i]\n#if block_size_x == 1024\n error\n#endif\n;"),
                                        1 << 20, vector_args()[0], {"block_size_x": [256, 1024]}, quiet=True)
    by_block = {r["block_size_x"]: r for r in results}
    assert isinstance(by_block[1024]["time"], CompilationFailedConfig)
    assert env["best_config"]["block_size_x"] == 256


PARTIAL_SUMS = """
__global__ void partial_sums(float *sums, const float *x, int n) {
    __shared__ float block[256];
    int i = blockIdx.x * 256 + threadIdx.x;
    float s = 0;
    for (int j = i; j < n; j += gridDim.x * 256) s += x[j];
    block[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0;
        for (int k = 0; k < 256; k++) t += block[k];
        sums[blockIdx.x] = (DROP_A_BLOCK && blockIdx.x == 1) ? 0.0f : t;
    }
}
"""


def test_a_verify_function_judges_partial_results_per_block():
    n = 1 << 20
    x = np.random.default_rng(2).random(n).astype(np.float32)
    sums = np.zeros(64, dtype=np.float32)

    def verify(answer, result, atol=None):  # runs in the child that measures: the outputs as the kernel left them
        assert result[0].shape == (64,) and result[1] is None and result[2] is None
        return bool(np.isclose(answer[0], np.sum(result[0]), rtol=1e-4))

    results, _ = occbench.tune_kernel("partial_sums", PARTIAL_SUMS, "blocks", [sums, x, np.int32(n)],
                                      {"block_size_x": [256], "blocks": [16, 64], "DROP_A_BLOCK": [0, 1]}, grid_div_x=[],
                                      answer=[np.float32(x.sum(dtype=np.float64)), None, None], verify=verify, quiet=True)
    by = {(r["blocks"], r["DROP_A_BLOCK"]): r for r in results}
    assert all(isinstance(by[(b, 0)]["time"], float) for b in (16, 64))
    assert all(isinstance(by[(b, 1)]["time"], RuntimeFailedConfig) for b in (16, 64))
    assert all(by[(b, 1)]["verification"] == "failed" for b in (16, 64))


def test_run_kernel_returns_the_outputs():
    args, expected = vector_args(1 << 16)
    out = occbench.run_kernel("vector_add", VECTOR_ADD, 1 << 16, args, {"block_size_x": 128, "PLANT_BUG": 0, "PLANT_FAULT": 0})
    assert np.allclose(out[0], expected) and out[3] == args[3]
    assert not np.allclose(args[0], expected)  # the caller's arrays are left as they were


def test_64_bit_scalars_reach_the_kernel_exactly():
    # Buffers are at most 32-bit integers: the kernel writes each scalar's two halves.
    source = """__global__ void put(unsigned *out, unsigned long long a, long long b) {
        unsigned long long c = (unsigned long long)b;
        out[0] = unsigned(a); out[1] = unsigned(a >> 32); out[2] = unsigned(c); out[3] = unsigned(c >> 32);
    }"""
    args = [np.zeros(4, np.uint32), np.uint64(2 ** 64 - 1), np.int64(-2 ** 63)]
    out = occbench.run_kernel("put", source, 1, args, {"block_size_x": 32})
    assert list(out[0]) == [0xFFFFFFFF, 0xFFFFFFFF, 0, 0x80000000]  # a double would have rounded both


CONSTANT = """
__constant__ float scale[4];
__global__ void scaled(float *y, const float *x, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) y[i] = scale[i % 4] * x[i];
}
"""


def test_cmem_args_fill_constant_memory():
    n = 1 << 16
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    scale = np.array([1, 2, 3, 4], dtype=np.float32)
    expected = x * np.tile(scale, n // 4)
    results, _ = occbench.tune_kernel("scaled", CONSTANT, n, [np.zeros_like(x), x, np.int32(n)], {"block_size_x": [128, 256]},
                                      cmem_args={"scale": scale}, answer=[expected, None, None], quiet=True)
    assert all(r["verification"] == "passed" for r in results)


def test_a_missing_cmem_symbol_raises_naming_it():
    n = 1 << 16
    x = np.ones(n, dtype=np.float32)
    with pytest.raises((ValueError, RuntimeError), match="nonexistent"):
        occbench.tune_kernel("scaled", CONSTANT, n, [np.zeros_like(x), x, np.int32(n)], {"block_size_x": [128]},
                             cmem_args={"scale": np.ones(4, np.float32), "nonexistent": np.ones(4, np.float32)}, quiet=True)


PRECISION = """
#include <cuda_fp16.h>
using half = __half;
template <typename T>
__global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) out[i] = float(T(in[i]) * T(pad));
}
"""


def test_string_parameters_templated_names_and_a_parameter_named_pad_run_verified():
    n = 1 << 16
    x = np.random.default_rng(2).standard_normal(n).astype(np.float32)
    results, env = occbench.tune_kernel("scale<float_type>", PRECISION, n, [np.zeros_like(x), x, np.int32(n)],
                                        {"block_size_x": [128, 256], "float_type": ["float", "double", "half"], "pad": [2]},
                                        answer=[2 * x, None, None], atol=1e-2, quiet=True)
    assert sorted((r["float_type"], r["block_size_x"]) for r in results) == sorted(
        (t, b) for t in ("float", "double", "half") for b in (128, 256))
    assert all(r["verification"] == "passed" and isinstance(r["time"], float) for r in results), results
    assert env["best_config"]["float_type"] in ("float", "double", "half")


def test_a_code_generator_is_compiled_per_configuration_and_verified():
    args, expected = vector_args(1 << 16)

    def generator(params):
        return VECTOR_ADD.replace("block_size_x", str(params["block_size_x"]))

    results, env = occbench.tune_kernel("vector_add", generator, args[3].item(), args, {"block_size_x": [128, 512]},
                                        answer=[expected, None, None, None], quiet=True)
    assert [r["verification"] for r in results] == ["passed", "passed"]


def test_a_tuning_killed_with_sigkill_keeps_every_configuration_it_measured(tmp_path):
    import json, os, signal, subprocess, sys, textwrap, time
    cache = tmp_path / "cache.json"
    script = textwrap.dedent(f"""
        import numpy as np, occbench
        n = 1 << 20
        a = np.random.default_rng(1).standard_normal(n).astype(np.float32)
        occbench.tune_kernel("vector_add", {VECTOR_ADD!r}, n, [np.zeros_like(a), a, a.copy(), np.int32(n)],
                             {{"block_size_x": [32 * i for i in range(1, 33)], "PLANT_BUG": [0], "PLANT_FAULT": [0]}},
                             answer=[a + a, None, None, None], cache={str(cache)!r}, quiet=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
                             start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and child.poll() is None:
        if cache.exists() and cache.read_text().count('"time": ') >= 3:
            break
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGKILL)  # the tuning and its measuring child, at once
    child.wait()
    kept = occbench.read_cache(cache)["cache"]
    assert len(kept) >= 3, cache.read_text()
    assert all(isinstance(e["time"], float) for e in kept.values())
    # and a tuning started again measures only the rest
    n = 1 << 20
    a = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    results, _ = occbench.tune_kernel("vector_add", VECTOR_ADD, n, [np.zeros_like(a), a, a.copy(), np.int32(n)],
                                      {"block_size_x": [32 * i for i in range(1, 33)], "PLANT_BUG": [0], "PLANT_FAULT": [0]},
                                      answer=[a + a, None, None, None], cache=str(cache), quiet=True)
    assert len(results) == 32 and len(occbench.read_cache(cache)["cache"]) == 32
    assert all(r["time"] == kept[k]["time"] for k in kept for r in results if f"{r['block_size_x']},0,0" == k)


HALF_ADD = """
#include <cuda_fp16.h>
__global__ void half_add(__half *c, const __half *a, const __half *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) c[i] = (PLANT_BUG && i == 5) ? __float2half(9.0f) : __hadd(a[i], b[i]);
}
"""


def test_float16_arrays_are_verified_in_their_own_type():
    n = 4096
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(n).astype(np.float16), rng.standard_normal(n).astype(np.float16)
    results, env = occbench.tune_kernel("half_add", HALF_ADD, n, [np.zeros_like(a), a, b, np.int32(n)],
                                        {"block_size_x": [128, 256], "PLANT_BUG": [0, 1]}, answer=[a + b, None, None, None],
                                        atol=1e-2, quiet=True)
    by_bug = {(r["block_size_x"], r["PLANT_BUG"]): r for r in results}
    assert all(by_bug[(b, 0)]["verification"] == "passed" for b in (128, 256)), results
    assert all(isinstance(by_bug[(b, 1)]["time"], RuntimeFailedConfig) for b in (128, 256)), results
    assert env["best_config"]["PLANT_BUG"] == 0


def test_cupy_and_torch_arrays_are_arguments():
    """In a child Python: CuPy (or PyTorch) starts CUDA in the calling process, so occbench measures there."""
    import subprocess, sys, textwrap
    pytest.importorskip("cupy")
    script = textwrap.dedent(f"""
        import warnings, numpy as np, cupy as cp, occbench
        n = 1 << 16
        a = cp.random.standard_normal(n, dtype=cp.float32)
        b = cp.random.standard_normal(n, dtype=cp.float32)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results, env = occbench.tune_kernel("vector_add", {VECTOR_ADD!r}, n, [cp.zeros_like(a), a, b, np.int32(n)],
                                                {{"block_size_x": [128, 256], "PLANT_BUG": [0], "PLANT_FAULT": [0]}},
                                                answer=[(a + b).get(), None, None, None], quiet=True)
        assert all(r["verification"] == "passed" for r in results), results
        assert any("measures here" in str(w.message) for w in caught), [str(w.message) for w in caught]
        try:
            import torch
        except ImportError:
            print("cupy ok; torch not installed"); raise SystemExit(0)
        t = torch.randn(n, device="cuda")
        results, env = occbench.tune_kernel("vector_add", {VECTOR_ADD!r}, n, [torch.zeros_like(t), t, t, np.int32(n)],
                                            {{"block_size_x": [128], "PLANT_BUG": [0], "PLANT_FAULT": [0]}},
                                            answer=[(t + t).cpu().numpy(), None, None, None], quiet=True)
        assert results[0]["verification"] == "passed", results
        print("cupy ok; torch ok")
    """)
    import os
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "cupy ok" in run.stdout


def test_observers_of_ones_own_registers_and_accuracy_with_tunable_precision():
    from occbench.accuracy import AccuracyObserver, TunablePrecision
    from occbench.observers import BenchmarkObserver, RegisterObserver

    class Samples(BenchmarkObserver):
        def register_configuration(self, params):
            self.params, self.during_calls = params, 0

        def during(self):
            self.during_calls += 1

        def get_results(self):
            return {"seen_block": self.params["block_size_x"], "gaps": self.during_calls}

    kernel = """
    #include <cuda_fp16.h>
    using half = __half;
    template <typename T>
    __global__ void vector_add(int n, const T* left, const T* right, T* output) {
        int i = blockDim.x * blockIdx.x + threadIdx.x;
        if (i < n) output[i] = left[i] + right[i];
    }"""
    n = 1 << 20
    a, b = np.random.default_rng(4).standard_normal(n), np.random.default_rng(5).standard_normal(n)
    args = [np.int32(n), TunablePrecision("float_type", a), TunablePrecision("float_type", b),
            TunablePrecision("float_type", np.zeros_like(a))]
    results, env = occbench.tune_kernel("vector_add<float_type>", kernel, n, args,
                                        {"block_size_x": [128, 256], "float_type": ["float", "double", "half"]},
                                        answer=[None, None, None, a + b],
                                        observers=[Samples(), RegisterObserver(), AccuracyObserver("RMSE", "error_rmse")],
                                        quiet=True)
    assert len(results) == 6 and all(r["status"] == "ok" for r in results), results
    by_type = {r["float_type"]: r for r in results if r["block_size_x"] == 256}
    assert by_type["double"]["error_rmse"] < 1e-12 < by_type["float"]["error_rmse"] < 1e-6 < by_type["half"]["error_rmse"] < 1e-2
    assert all(r["seen_block"] == r["block_size_x"] and r["gaps"] > 0 and r["num_regs"] > 0 for r in results)


def test_python_kernel_runs_one_configuration_as_a_function():
    from occbench.kernelbuilder import PythonKernel
    args, expected = vector_args(1 << 16)
    add = PythonKernel("vector_add", VECTOR_ADD, args[3].item(), args, {"block_size_x": 128, "PLANT_BUG": 0, "PLANT_FAULT": 0},
                       inputs=[False, True, True, True], outputs=[True, False, False, False])
    (c,) = add(*args)
    assert np.allclose(c, expected)


def test_run_kernel_leaves_its_outputs_in_the_callers_cupy_arrays():
    """Kernel Tuner launches on the caller's own device arrays: python_kernel_cupy.py reads c after the call."""
    import subprocess, sys, os, textwrap
    pytest.importorskip("cupy")
    script = textwrap.dedent(f"""
        import numpy as np, cupy as cp
        from occbench.kernelbuilder import PythonKernel
        n = 100000
        a, b = cp.random.randn(n).astype(np.float32), cp.random.randn(n).astype(np.float32)
        c = cp.zeros_like(b)
        add = PythonKernel("vector_add", {VECTOR_ADD!r}, n, [c, a, b, np.int32(n)], {{"block_size_x": 128, "PLANT_BUG": 0, "PLANT_FAULT": 0}})
        add(c, a, b, np.int32(n))
        assert np.allclose(c, a + b)
        print("in place")
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert run.returncode == 0 and "in place" in run.stdout, run.stdout + run.stderr

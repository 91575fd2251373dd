"""Kernel Tuner's scripts as people write them, without a GPU: parameters of every type Kernel
Tuner takes (written into the source as #define lines, so any name works, and into a templated
kernel's name), kernel sources as code, files of any name, lists and code generators, strategies
by name or module with Kernel Tuner's default budgets, an objective whose direction is known or
asked for, a best that never failed, and a cache that never answers for another problem."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import types
from pathlib import Path

import numpy as np
import pytest

import occbench
from occbench import cache as cache_file
from occbench._space import TuneParams
from occbench.interface import _Tuning, _appender, _best, _strategy_flags, objective_direction
from occbench.util import RuntimeFailedConfig, get_best_config

DATA = Path(__file__).parent / "data"

TEMPLATED = """
#include <cuda_fp16.h>
using half = __half;
#define True true
#define False false
template <typename T>
__global__ void vector_add(int n, const T* left, const T* right, T* output) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (flag && i < n) output[i] = T(float(left[i]) * scale + float(right[i]));
}"""


def make_tuning(source, tune_params, kernel_name="vector_add", n=4096, **kw):
    a = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    args = kw.pop("arguments", [np.int32(n), a, a.copy(), np.zeros_like(a)])
    return _Tuning(kernel_name, source, n, args, tune_params, (None, None, None), kw.pop("restrictions", None), None, 1e-6,
                   None, None, None, None, None, None, 7, None)


def plan(t):
    with tempfile.TemporaryDirectory() as folder:
        return t.plan(Path(folder))


def test_parameters_of_every_type_keep_their_values_and_go_to_the_engine_by_position():
    space = TuneParams({"float_type": ["float", "double", "half"], "scale": [0.5, np.float32(2.0)], "flag": [True, False],
                        "block_size_x": [np.int64(32), 64], "big": [2 ** 70, 1]})
    assert space.axes() == {"float_type": [0, 1, 2], "scale": [0, 1], "flag": [0, 1], "block_size_x": [32, 64], "big": [0, 1]}
    assert space.decode({"float_type": 2, "scale": 1, "flag": 0, "block_size_x": 64, "big": 0, "kernel_tuner": 1}) == \
        {"float_type": "half", "scale": 2.0, "flag": True, "block_size_x": 64, "big": 2 ** 70}
    assert space.size() == 48
    with pytest.raises(TypeError, match=r"tune_params\['t'\]: the value None is a NoneType"):
        TuneParams({"t": [None]})
    with pytest.raises(ValueError, match="not a finite number"):
        TuneParams({"t": [float("nan")]})
    with pytest.raises(ValueError, match="appears twice"):
        TuneParams({"t": ["a", "a"]})


def test_strings_floats_and_booleans_reach_the_kernel_and_its_templated_name():
    t = make_tuning(TEMPLATED, {"block_size_x": [32, 64], "float_type": ["float", "double", "half"], "scale": [0.5, 2.0],
                                "flag": [True, False]}, kernel_name="vector_add<float_type>")
    code, text = plan(t)
    assert code == 0 and "24 planned, 0 skipped, 0 failed" in text, text
    grid, block, smem, macros, name, source = t._launch({"block_size_x": 32, "float_type": 2, "scale": 1, "flag": 0,
                                                         "kernel_tuner": 1})
    assert name == "vector_add<half>" and source is None
    assert ("float_type", "half") in macros and ("scale", "2.0") in macros and ("flag", "True") in macros


@pytest.mark.parametrize("name", ["pad", "x", "width", "size", "value", "type"])
def test_a_parameter_of_any_name_compiles(name):
    """-Dpad=1 (and these five) rewrote NVRTC's built-in headers; a #define line above the source does not."""
    source = "__global__ void k(float* out, int n) {\n  if (n > 0) out[0] = %s;  /* no .x: x is a macro */\n}\n" % name
    t = make_tuning(source, {"block_size_x": [32, 64], name: [1, 2]}, kernel_name="k", arguments=[np.zeros(64, np.float32),
                                                                                                  np.int32(64)])
    code, text = plan(t)
    assert code == 0 and "4 planned, 0 skipped, 0 failed" in text, text


def test_a_code_generator_and_jinjas_render_make_each_configurations_code_once():
    calls = []

    def generator(params):
        calls.append(dict(params))
        return ("__global__ void vector_add(float *c, float *a, float *b, int n) {\n"
                "  int i = blockIdx.x * %d + threadIdx.x;\n  if (i < n) c[i] = a[i] + b[i];\n}\n" % params["block_size_x"])

    a = np.ones(1000, np.float32)
    args = [np.zeros_like(a), a, a, np.int32(1000)]
    t = make_tuning(generator, {"block_size_x": [64, 128, 256]}, arguments=args)
    code, text = plan(t)
    assert code == 0 and "3 planned, 0 skipped, 0 failed" in text, text
    assert sorted(c["block_size_x"] for c in calls) == [64, 128, 256]  # once per configuration
    jinja2 = pytest.importorskip("jinja2")
    template = jinja2.Template("__global__ void vector_add(float *c, float *a, float *b, int n) {\n"
                               "  int i = blockIdx.x * {{ block_size_x }} + threadIdx.x;\n  if (i < n) c[i] = a[i] + b[i];\n}\n")
    code, text = plan(make_tuning(template.render, {"block_size_x": [64, 128]}, arguments=args))
    assert code == 0 and "2 planned, 0 skipped, 0 failed" in text, text


def test_a_generator_that_returns_no_code_fails_naming_itself():
    t = make_tuning(lambda p: 42, {"block_size_x": [64]}, arguments=[np.zeros(4, np.float32)])
    code, text = plan(t)
    assert code != 0 and "returned a int" in text, text


def test_kernel_sources_as_files_of_any_name_and_lists_of_files(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "helper.h").write_text("#define HELPED 1\n")
    kernel = tmp_path / "k.cpp"
    kernel.write_text('#include "helper.h"\n__global__ void k(float* out) { out[threadIdx.x] = HELPED + block_size_x; }\n')
    args = [np.zeros(64, np.float32)]
    for source in (str(kernel), kernel, [str(kernel), str(tmp_path / "inc" / "helper.h")]):
        t = make_tuning(source, {"block_size_x": [32, 64]}, kernel_name="k", arguments=args)
        code, text = plan(t)
        if isinstance(source, list):
            assert code == 0 and "2 planned, 0 skipped, 0 failed" in text, text
        else:  # the header's folder is not given: its include fails at every configuration, named
            assert "helper.h" in text, text
    with pytest.raises(FileNotFoundError, match="kernel_source: no file missing.cu"):
        make_tuning("missing.cu", {"block_size_x": [32]}, kernel_name="k", arguments=args)
    with pytest.raises(ValueError, match="kernel_source: an empty list"):
        make_tuning([], {"block_size_x": [32]}, kernel_name="k", arguments=args)
    bad = tmp_path / "latin1.cu"
    bad.write_bytes(b"// caf\xe9\n")
    with pytest.raises(ValueError, match="not UTF-8 text"):
        make_tuning(str(bad), {"block_size_x": [32]}, kernel_name="k", arguments=args)


def test_strategies_by_name_or_module_run_with_kernel_tuners_budgets():
    assert _strategy_flags("genetic_algorithm", None, 10000)[1] == ["--strategy", "genetic", "--max-points", "2340"]
    assert _strategy_flags("greedy_ils", None, 10000)[1] == ["--strategy", "local", "--max-points", "100"]
    assert _strategy_flags("pso", {}, 300)[1] == ["--strategy", "genetic", "--max-points", "300"]
    assert _strategy_flags("diff_evo", None, 5000)[1][-1] == "5000"  # runs until the space is spent
    assert _strategy_flags("random_sample", None, 5000)[1][-1] == "500"
    module = types.ModuleType("kernel_tuner.strategies.firefly_algorithm")
    assert _strategy_flags(module, None, 50)[1] == ["--strategy", "genetic", "--max-points", "50"]
    with pytest.raises(TypeError, match="strategy: expected a strategy's name or module, got int"):
        _strategy_flags(5, None, 50)
    with pytest.raises(ValueError, match="strategy: an empty name"):
        _strategy_flags("", None, 50)
    with pytest.raises(ValueError, match=r"max_fevals'\]: expected a whole number of at least 1"):
        _strategy_flags("pso", {"max_fevals": 0}, 50)


def test_the_objectives_direction_is_known_or_asked_for():
    assert objective_direction(None, None, {}, []) == ("time", False)
    assert objective_direction("GFLOP/s", None, {"GFLOP/s": "1"}, []) == ("GFLOP/s", True)
    assert objective_direction("nvml_energy", None, {}, ["--energy"]) == ("nvml_energy", False)
    assert objective_direction("score", True, {"score": "1"}, []) == ("score", True)
    with pytest.raises(ValueError, match="does not know whether a higher 'score' is better"):
        objective_direction("score", None, {"score": "1"}, [])
    with pytest.raises(ValueError, match="'nvml_energy' is not a field of the results"):
        objective_direction("nvml_energy", None, {}, [])


def test_a_failed_configuration_is_never_the_best(capsys):
    failed = [{"b": 1, "time": RuntimeFailedConfig("trap"), "__error__": RuntimeFailedConfig()},
              {"b": 2, "time": RuntimeFailedConfig("wrong"), "__error__": RuntimeFailedConfig()}]
    assert _best(failed, "time", False, ["b", "time"], quiet=False) is None
    assert "NO CONFIGURATION PASSED" in capsys.readouterr().out
    with pytest.raises(ValueError, match="none of the 2 results passed"):
        get_best_config(failed)
    assert _best(failed + [{"b": 3, "time": 2.0}], "time", False, ["b", "time"], quiet=True)["b"] == 3


def kt_cache(tmp_path):
    path = tmp_path / "cache.json"
    path.write_text((DATA / "kernel_tuner_cache_vector_add.json").read_text())
    return path


def test_a_cache_of_another_problem_device_or_space_is_refused(tmp_path):
    path = kt_cache(tmp_path)
    block = {"block_size_x": [128, 256]}
    with pytest.raises(ValueError, match="problem_size 100, not 4096"):
        cache_file.open_cache(path, "vector_add", 4096, block)
    with pytest.raises(ValueError, match="GPU 'NVIDIA RTX A4000', not this run's 'NVIDIA H200'"):
        cache_file.open_cache(path, "vector_add", 100, block, device="NVIDIA H200")
    with pytest.raises(ValueError, match="over the parameters"):
        cache_file.open_cache(path, "vector_add", 100, {"block_size_x": [128], "tile": [1]})
    os.mkfifo(tmp_path / "fifo.json")
    with pytest.raises(ValueError, match="is not a regular file"):
        cache_file.open_cache(tmp_path / "fifo.json", "vector_add", 100, block)
    with pytest.raises(ValueError, match="is not a regular file"):
        (tmp_path / "folder.json").mkdir()
        cache_file.open_cache(tmp_path / "folder.json", "vector_add", 100, block)


def test_only_the_requested_configurations_come_back_from_a_larger_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_file, "device_name", lambda index: None)  # as where no GPU answers (the file is an A4000's)
    path = kt_cache(tmp_path)
    a = np.ones(100, np.float32)
    args = [np.zeros_like(a), a, a, np.int32(100)]
    kernel = "__global__ void vector_add(float *c, float *a, float *b, int n) {}"
    results, env = occbench.tune_kernel("vector_add", kernel, 100, args, {"block_size_x": [128, 256, 1024]}, cache=str(path),
                                        quiet=True)
    assert sorted(r["block_size_x"] for r in results) == [128, 256, 1024]
    assert env["best_config"]["block_size_x"] in (128, 256, 1024)
    assert len(cache_file.read_cache(path)["cache"]) == 15  # the file keeps what it had
    results, _ = occbench.tune_kernel("vector_add", kernel, 100, args, {"block_size_x": [128, 256]}, cache=str(path),
                                      restrictions=["block_size_x > 128"], quiet=True)
    assert [r["block_size_x"] for r in results] == [256]


def test_each_configuration_is_in_the_cache_as_soon_as_it_is_measured_even_after_kill_9(tmp_path):
    """The record callback appends each configuration; a process killed with SIGKILL leaves them all."""
    script = textwrap.dedent(f"""
        import json, os, signal, numpy as np
        from occbench import cache as cache_file
        from occbench.interface import _Tuning, _appender
        t = _Tuning("k", "__global__ void k(float* c) {{}}", 10, [np.zeros(4, np.float32)], {{"b": [1, 2, 3], "t": ["x", "y"]}},
                    (None, None, None), None, None, 1e-6, None, None, None, None, None, None, 7, None)
        cached = cache_file.open_cache({str(tmp_path / 'c.json')!r}, "k", 10, t.tune_params)
        append = _appender(cached, t, {{}})
        for b, name in ((1, 0), (2, 1)):
            append(json.dumps({{"params": {{"kernel_tuner": 1, "b": b, "t": name}}, "status": "ok", "timing": {{"median_ms": 0.5 * b}}}}))
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == -signal.SIGKILL, run.stderr
    data = cache_file.read_cache(tmp_path / "c.json")
    assert sorted(data["cache"]) == ["1,x", "2,y"] and data["cache"]["2,y"]["time"] == 1.0


def test_tune_kernel_refuses_a_cache_of_another_gpu_before_running_anything(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_file, "device_name", lambda index: "NVIDIA H200")
    path = kt_cache(tmp_path)
    a = np.ones(100, np.float32)
    with pytest.raises(ValueError, match="holds results of the GPU 'NVIDIA RTX A4000', not this run's 'NVIDIA H200'"):
        occbench.tune_kernel("vector_add", "__global__ void vector_add(float *c, float *a, float *b, int n) {}", 100,
                             [np.zeros_like(a), a, a, np.int32(100)], {"block_size_x": [128]}, cache=str(path), quiet=True)

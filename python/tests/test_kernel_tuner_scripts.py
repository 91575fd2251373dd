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


def test_parameters_of_every_type_keep_their_values_and_go_to_the_engine_as_labels_or_by_position():
    space = TuneParams({"float_type": ["float", "double", "half"], "scale": [0.5, np.float32(2.0)], "flag": [True, False],
                        "block_size_x": [np.int64(32), 64], "big": [2 ** 70, 1], "path": ["a/b", "c"], "one": [1, 1.0]})
    # Labels where the engine's JSON holds them (its records and ids then show the values); else positions.
    assert space.axes() == {"float_type": ["float", "double", "half"], "scale": [0.5, 2.0], "flag": [True, False],
                            "block_size_x": [32, 64], "big": [0, 1], "path": [0, 1], "one": [0, 1]}
    assert space.from_record({"float_type": "half", "scale": 2.0, "flag": True, "block_size_x": 64, "big": 0, "path": 1,
                              "one": 1, "kernel_tuner": 1}) == \
        {"float_type": "half", "scale": 2.0, "flag": True, "block_size_x": 64, "big": 2 ** 70, "path": "c", "one": 1.0}
    assert space.decode({"float_type": 2, "scale": 1, "flag": 0, "block_size_x": 64, "big": 0, "kernel_tuner": 1}) == \
        {"float_type": "half", "scale": 2.0, "flag": True, "block_size_x": 64, "big": 2 ** 70}
    assert space.size() == 192
    with pytest.raises(TypeError, match=r"tune_params\['t'\]: the value None is a NoneType"):
        TuneParams({"t": [None]})
    with pytest.raises(ValueError, match="not a finite number"):
        TuneParams({"t": [float("nan")]})
    with pytest.raises(ValueError, match="appears twice"):
        TuneParams({"t": ["a", "a"]})


def test_the_largest_64_bit_scalars_are_taken_as_they_are():
    source = "__global__ void k(float* c, unsigned long long a, long long b) { c[0] = float(a + b); }"
    t = make_tuning(source, {"block_size_x": [32]}, kernel_name="k",
                    arguments=[np.zeros(4, np.float32), np.uint64(2 ** 64 - 1), np.int64(-2 ** 63)])
    code, text = plan(t)
    assert code == 0, text  # through a double, 2**64 - 1 came back as 1.8446744073709552e+19 and was refused


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
    with pytest.raises(ValueError, match=r"launch.host: .*TypeError: kernel_source: .*<lambda> returned a int"):
        plan(t)


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
        for b, name in ((1, "x"), (2, "y")):  # the engine's record holds a string axis's values
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


KINDS = """
#include <cuda_fp16.h>
__global__ void kinds(__half *h, signed char *c, short *s, unsigned short *u, bool *b, float2 *z, __half hs, char cs, int n) {}
"""


def kinds_args():
    n = 8
    return [np.ones(n, np.float16), np.arange(n, dtype=np.int8), np.arange(n, dtype=np.int16), np.arange(n, dtype=np.uint16),
            np.ones(n, bool), np.ones(n, np.complex64), np.float16(1.5), np.int8(-1), np.int32(n)]


def test_every_numpy_type_kernel_tuner_takes_travels_as_its_bytes_and_is_checked_in_its_own_type():
    args = kinds_args()
    answer = [a if i == 0 else None for i, a in enumerate(args)]
    t = make_tuning(KINDS, {"block_size_x": [32]}, kernel_name="kinds", arguments=args, n=8)
    t.args.atol = 1e-3
    entries = {e["name"]: e for e in t.args.config}
    assert entries["arg0"]["type"] == "uint8" and entries["arg0"]["count"] == "16"  # 8 float16: 16 bytes
    assert entries["arg5"]["count"] == "64"  # 8 complex64
    assert entries["arg6"] == {"name": "arg6", "role": "scalar", "type": "uint32", "value": str(0x3E00)}  # 1.5 in half's bits
    assert entries["arg7"]["value"] == "255"  # -1 as a char's byte
    t = _Tuning("kinds", KINDS, 8, args, {"block_size_x": [32]}, (None, None, None), None, answer, 1e-3, None, None, None, None,
                None, None, 7, None)
    good = np.ones(8, np.float16).view(np.uint8)
    assert t.verify([good]) == (True, "")
    bad = np.full(8, 2, np.float16).view(np.uint8)
    passed, detail = t.verify([bad])
    assert not passed and "arguments[0] (float16)" in detail
    code, text = plan(t)
    assert code == 0 and "1 planned, 0 skipped, 0 failed" in text, text


@pytest.mark.parametrize("change, words", [
    (lambda a: a.__setitem__(1, np.arange(8, dtype=np.int16)), r"arguments\[1\]: int16 for the kernel's parameter 'signed char \*c'; expected int8"),
    (lambda a: a.__setitem__(8, np.int64(8)), r"arguments\[8\]: int64 for the kernel's parameter 'int n'; expected int32"),
    (lambda a: a.__setitem__(2, np.int16(3)), r"arguments\[2\]: a scalar for the kernel's parameter 'short \*s', which takes a pointer"),
    (lambda a: a.pop(), r"arguments: 8 given; the kernel kinds takes 9"),
])
def test_an_argument_that_does_not_match_the_kernels_parameter_is_refused_naming_it(change, words):
    args = kinds_args()
    change(args)
    with pytest.raises(TypeError, match=words):
        make_tuning(KINDS, {"block_size_x": [32]}, kernel_name="kinds", arguments=args, n=8)


def test_a_templated_parameter_is_not_judged():
    a = np.ones(8, np.float64)
    make_tuning("template <typename T> __global__ void k(T* out, int n) {}", {"block_size_x": [32]}, kernel_name="k<double>",
                arguments=[a, np.int32(8)])


def test_verbose_names_each_failed_configuration_and_log_writes_kernel_tuners_log(tmp_path, capsys, monkeypatch):
    from occbench.interface import _report, _start_log
    import logging
    t = make_tuning("__global__ void k(float* c) {}", {"b": [1, 2]}, kernel_name="k", arguments=[np.zeros(4, np.float32)])
    results = [{"b": 1, "time": 0.5}, {"b": 2, "time": RuntimeFailedConfig("x"), "__error__": RuntimeFailedConfig(), "reason": "trap"}]
    _report(results, t, verbose=True)
    out = capsys.readouterr().out
    assert "skipping config b=2 reason: RuntimeFailedConfig: trap" in out and "b=1" not in out
    monkeypatch.chdir(tmp_path)
    root = logging.getLogger()
    saved = root.handlers[:]
    root.handlers = []
    try:
        _start_log(logging.DEBUG, "k")
        _report(results, t, verbose=False)
        for h in root.handlers:
            h.flush()
        logged = "".join(p.read_text() for p in tmp_path.glob("k*.log"))
    finally:
        for h in root.handlers:
            h.close()
        root.handlers = saved
    assert "tune_kernel called" in logged and "b=2: trap" in logged and "b=1: time=0.5 ms" in logged


ENERGY = {"status": "ok", "reason": "", "window": "hot", "joules_per_launch": 42.46, "average_w": 712.2, "idle_w": 123.5,
          "launches": 7, "host_bound": False, "energy_j": 213.7, "gpu_temperature_c": 54.0, "throttle_reasons": [],
          "second_window": {"window_s": 1.0, "throttle_reasons": ["sw_power_cap"]}, "power_limit_w": 700.0, "at_power_limit": False}


def engine_record(b, status="ok", **sections):
    r = {"params": {"kernel_tuner": 1, "b": b}, "status": status, "reason": "" if status == "ok" else "trap",
         "timing": {"median_ms": 1.0, "min_ms": 0.9, "samples_ms": [1.0, 1.1, 0.9], "sampling_wall_s": 0.1},
         "time_use": {"point_s": 0.2, "verify_s": 0.01, "search_s": 0.003, "finished_utc": "2026-12-02T01:00:00Z"}, "compile": {"compile_ms": 50.0},
         "verification": {"status": "passed" if status == "ok" else "failed"}}
    r.update(sections)
    return r


def test_results_hold_kernel_tuners_times_timestamps_and_t4_holds_its_schema_with_every_observer():
    jsonschema = pytest.importorskip("jsonschema")
    from occbench._results import records_to_results
    from occbench.file_utils import get_t4_results
    document = {"results": [engine_record(64, energy=ENERGY), engine_record(128, energy={"status": "too short", "reason": "x"},
                                                                             counters={"status": "ok", "values": {"a": 1.0}}),
                            engine_record(256, "failed")]}
    with pytest.warns(UserWarning, match="metrics\\['GFLOPS/W'\\]: KeyError"):
        results = records_to_results(document, {"b": [64, 128, 256]}, {"GFLOPS/W": lambda p: 1 / p["nvml_energy"]})
    first = results[0]
    assert first["times"] == [1.0, 1.1, 0.9] and first["timestamp"] == "2026-12-02T01:00:00Z"
    assert first["benchmark_time"] == 100.0 and first["framework_time"] == pytest.approx(200 - 50 - 10 - 100)
    assert first["strategy_time"] == pytest.approx(3.0)  # the engine's time_use.search_s, outside the point's own
    assert results[1]["GFLOPS/W"] is None  # no energy reading for it: no value, and the tuning goes on
    t4 = get_t4_results(results, {"b": [64, 128, 256]})
    schema = json.loads((DATA / "t4-results-schema.json").read_text())
    assert list(jsonschema.Draft7Validator(schema).iter_errors(t4)) == []
    assert {"name": "energy.host_bound", "value": 0, "unit": ""} in t4["results"][0]["measurements"]


def test_env_holds_kernel_tuners_keys_and_totals():
    from occbench._results import environment, total_timings
    t = make_tuning("__global__ void k(float* c) {}", {"b": [1]}, kernel_name="k", arguments=[np.zeros(4, np.float32)])
    document = {"device": {"name": "NVIDIA H200", "compute_capability": "9.0", "pci_bus_id": "0000:00:06.0", "driver_version": 13000,
                           "clocks": {"start": {}}}}
    env = total_timings([{"compile_time": 5.0, "benchmark_time": 2.0, "verification_time": 1.0, "framework_time": 1.0,
                          "strategy_time": 0}], environment(document, t, "exhaustive", 0.02, 0))
    assert env["compute_capability"] == "90" and env["cuda_version"] == 13000 and env["pci_bus_id"] == "0000:00:06.0"
    assert env["device_properties"]["name"] == "NVIDIA H200" and "clocks" not in env["device_properties"]
    assert env["total_compile_time"] == 5.0 and env["overhead_time"] == pytest.approx(20 - 9)


@pytest.mark.parametrize("option", ["--output-file=kernel.cu", "-save-temps", "-MF=deps.d"])
def test_compiler_options_that_write_files_are_refused_before_anything_runs(option, tmp_path):
    t = _Tuning("k", "__global__ void k(float* c) {}", 4, [np.zeros(4, np.float32)], {"b": [1]}, (None, None, None), None, None,
                1e-6, None, None, None, [option], None, None, 7, None)
    with pytest.raises(ValueError, match="write files"):
        t.validate(tmp_path)


@pytest.mark.parametrize("change, words", [
    (dict(problem_size=2 ** 40), r"ValueError: problem_size / grid_div_x: a grid of \d+ blocks in x"),
    (dict(grid_div=([1e-30], None, None)), r"grid_div_x: a grid of"),
])
def test_a_launch_beyond_cudas_limits_is_refused_in_python_words_without_a_traceback(change, words, tmp_path):
    a = np.zeros(4, np.float32)
    t = _Tuning("k", "__global__ void k(float* c) {}", change.get("problem_size", 4), [a], {"block_size_x": [32]},
                change.get("grid_div", (None, None, None)), None, None, 1e-6, None, None, None, None, None, None, 7, None)
    with pytest.raises(ValueError, match=words) as caught:
        t.validate(tmp_path)
    assert "Traceback" not in str(caught.value) and "config.json" not in str(caught.value)


def test_bad_scalars_shared_memory_and_huge_value_lists_are_refused_naming_them():
    a = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match=r"arguments\[1\]: the scalar is nan"):
        make_tuning("__global__ void k(float* c, float s) {}", {"b": [1]}, kernel_name="k", arguments=[a, np.float32("nan")])
    with pytest.raises(ValueError, match=r"tune_params\['b'\]: 1000000000000 values"):
        TuneParams({"b": range(10 ** 12)})
    from occbench._space import Launch
    with pytest.raises(ValueError, match=r"smem_args\['size'\]: -1 bytes"):
        Launch(4, (None, None, None), None, {"size": -1}, None).smem_bytes({})
